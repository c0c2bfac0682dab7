"""A run, planned once: ``prepare(spec, store, resolver) -> Plan``.

Every command that plays matches (``tournament run``, ``compare``; ``bots check``, ``bots
submit`` and ``play`` resolve their bots the same way) builds its plan here, in three steps,
each a service of the spec's format (``format.get_format(spec.kind)``, a ``format.Format``):

1. **check** (``Format.check``, over ``format.check_bots``): every bot resolved once by the
   run's ``Resolver`` (the registry, the database's submissions), built once with its
   parameters or asked for its hello (the isolated ones side by side), checked to play the
   game; the sandbox decided once (``--sandbox`` over the file's ``[limits]``; a bot that
   needs a sandbox none can make here is refused now). This step needs no database to write
   to: a command runs it before it creates one.
2. **settle, register and pin** (once, in ``prepare``): the spec as the store has it (its
   schedule version, its drawn seed, its secret key: ``Format.settle``), recorded in the store
   (a changed definition is refused: ``Format.register``), and the code of each bot pinned
   (``pinning``: a changed bot is refused before any match).
3. the **plan**: the shown names, the ``Roster`` that loads them (carried by every job to its
   worker), the checked ``Limits``, the effective options and the schedule over the shown names
   (``Format.schedule``).

A spec (``format.Spec``: a ``Tournament``, a ``Comparison``, ...) is data; the format's object
does the work. Running a plan is ``run.execute``, the same for every format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable

from mallows.results.interface import ResultStore
from mallows.agents.protocol import Limits
from mallows.agents.registry import Resolver
from mallows.agents.roster import Roster
from mallows.tournaments.format import Format, ScheduleLike, Spec, get_format
from mallows.tournaments.seating import MatchSpec

if TYPE_CHECKING:
    from mallows.runner.worker import Job


@dataclass(frozen=True)
class Plan:
    """Everything a run needs, decided once."""

    run: Spec  # the spec: its definition is what the store keeps
    kind: str  # the format's kind: "tournament", "compare", "ladder"
    name: str
    game: str
    options: dict  # the effective rule options
    limits: Limits  # checked once
    bots: tuple[str, ...]  # the shown names, in the order written
    shown: dict  # name as written -> shown name
    schedule: ScheduleLike  # over the shown names
    roster: Roster  # how each shown name loads
    resolver: Resolver  # the resolver with the roster
    ratings: dict  # the rating system's parameters
    format: Format  # the services over ``run`` (its stop rule, its next tables)
    sources: dict = field(default_factory=dict)  # shown name -> where its code came from

    @property
    def total(self) -> int:
        return len(self.schedule)

    def job(self, spec: MatchSpec) -> Job:
        """The executor's job for one match of the schedule."""
        from mallows.runner.executor import Job

        return Job(
            index=spec.index,
            game=self.game,
            options=self.options,
            seed=spec.seed,
            seats=tuple(spec.seats),
            limits=self.limits,
            roster=self.roster,
            chance=self.run.chance,
        )

    def jobs(self, specs: Iterable[MatchSpec]) -> list[Job]:
        return [self.job(s) for s in specs]


def prepare(
    spec: Spec,
    store: ResultStore,
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    key: bytes | None = None,
) -> Plan:
    """The plan of ``spec`` in ``store``: checked (unless ``spec.bot_sources`` says it was),
    settled, registered and pinned once, by its format's services (the module docstring;
    ``key``: a revealed key to replay a published run). ``resolver``: how names resolve
    (default: the registry and ``store``'s submissions)."""
    from mallows.tournaments.pinning import pin_bots

    fmt = get_format(spec.kind)
    resolver = resolver if resolver is not None else Resolver(store)
    if not spec.bot_sources:
        spec = fmt.check(spec, resolver, sandbox)
    limits = Limits.from_dict(spec.limits)
    spec = fmt.settle(spec, store, key)
    fmt.register(spec, store)
    pins = pin_bots(
        store,
        spec.name,
        spec.written_names,
        spec.match_count(),
        resolver,
        kind="comparison" if spec.kind == "compare" else "tournament",
    )
    shown = dict(zip(spec.written_names, pins.shown))
    return Plan(
        run=spec,
        kind=spec.kind,
        name=spec.name,
        game=spec.game,
        options=spec.effective_options,
        limits=limits,
        bots=pins.shown,
        shown=shown,
        schedule=fmt.schedule(spec, shown, store),
        roster=pins.roster,
        resolver=resolver.with_roster(pins.roster),
        ratings=spec.rating_params,
        format=fmt,
        sources=pins.sources,
    )
