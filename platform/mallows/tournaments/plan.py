"""A run, planned once: ``prepare(run, store, resolver) -> Plan``.

Every command that plays matches (``tournament run``, ``compare``; ``bots check``, ``bots
submit`` and ``play`` resolve their bots the same way) builds its plan here, in three steps:

1. **check** (``check_bots``): every bot resolved once by the run's ``Resolver`` (the
   registry, the database's submissions), built once with its parameters or asked for its
   hello (the isolated ones side by side), checked to play the game; the sandbox decided
   once (``--sandbox`` over the file's ``[limits]``; a bot that needs a sandbox none can make
   here is refused now). This step needs no database to write to: a command runs it before it
   creates one.
2. **register and pin** (once, in ``prepare``): the run is recorded in the store (a changed
   definition is refused), and the code of each bot pinned (``pinning``: a changed bot is
   refused before any match).
3. the **plan**: the shown names, the ``Roster`` that loads them (carried by every job to its
   worker), the checked ``Limits``, the effective options and the schedule over the shown names.

A ``Runnable`` is what can be planned: a ``Tournament`` (``spec``) or a ``Comparison``
(``mallows.tournaments.compare.spec``). They differ in their schedule, their checks' wording and
how they are registered; everything else (and running: ``run.execute``) is shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Protocol

from mallows.agents.protocol import Limits
from mallows.agents.registry import BotSpec, Resolver, require_sandbox
from mallows.agents.roster import Roster
from mallows.errors import MallowsError


class ScheduleLike(Protocol):
    """A schedule: ``len``, and the match specs of some indices, lazily."""

    def __len__(self) -> int: ...
    def specs(self, indices: Iterable[int]) -> Iterator[Any]: ...


class Runnable(Protocol):
    """What ``prepare`` plans: a tournament or a comparison."""

    @property
    def kind(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def effective_options(self) -> dict: ...
    @property
    def limits(self) -> dict: ...
    @property
    def bot_sources(self) -> dict: ...
    @property
    def written_names(self) -> tuple[str, ...]: ...
    @property
    def rating_params(self) -> dict: ...
    def match_count(self) -> int: ...
    def schedule_for(self, shown: Mapping[str, str]) -> ScheduleLike: ...
    def register(self, store: Any) -> bool: ...
    def check_bots(self, resolver: Any = None, sandbox: str | None = None) -> Any: ...
    def resumed_as(self, stored: dict | None) -> Any: ...
    def with_chance(self, store: Any, key: bytes | None = None) -> Any: ...


def resumed(run: Runnable, store: Any) -> Any:
    """``run`` as ``store`` has it: a stored tournament or comparison keeps the schedule version
    it was started with (``tournaments.roundrobin.schedule``); a new one gets the newest."""
    import json

    row = store.tournament(run.name)
    return run.resumed_as(json.loads(row["definition"]) if row is not None else None)


@dataclass(frozen=True)
class Plan:
    """Everything a run needs, decided once."""

    run: Any  # the Runnable (its definition is what the store keeps)
    kind: str  # "tournament" or "compare"
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
    sources: dict = field(default_factory=dict)  # shown name -> where its code came from

    @property
    def total(self) -> int:
        return len(self.schedule)

    def job(self, spec: Any) -> Any:
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

    def jobs(self, specs: Iterable[Any]) -> list:
        return [self.job(s) for s in specs]


# -- step 1: check ----------------------------------------------------------------------------


def sandbox_limits(limits: dict, sandbox: str | None) -> dict:
    """``limits`` (as written) with the command line's ``--sandbox`` applied: ``off`` becomes
    part of them (so the stored definition says so), ``on`` is the default and not stored."""
    if sandbox is None:
        return dict(limits)
    out = {k: v for k, v in limits.items() if k != "sandbox"}
    if sandbox == "off":
        out["sandbox"] = "off"
    return out


def resolve_all(names: Iterable[str], resolver: Resolver) -> dict[str, BotSpec | Exception]:
    """Each name resolved once (a name that cannot be: the error, to report in order)."""
    out: dict[str, BotSpec | Exception] = {}
    for name in names:
        try:
            out[name] = resolver.load(name)
        except (MallowsError, OSError) as exc:
            out[name] = exc
    return out


def ready_all(
    loaded: Mapping[str, BotSpec | Exception],
    sandbox: str,
    fail: Callable[[str, BotSpec | Exception, str | None], None],
) -> None:
    """Build every bot once with its parameters, or ask an isolated one for its hello (all
    started side by side first, so their handshakes do not wait for one another); ``fail(name,
    spec_or_error, message)`` raises the caller's error (``message``: why ``ready`` refused)."""
    from mallows.agents.checks import ready

    specs = [s for s in loaded.values() if isinstance(s, BotSpec)]
    try:
        for spec in specs:
            spec.prepare(sandbox=sandbox)
        for name, found in loaded.items():
            if not isinstance(found, BotSpec):
                fail(name, found, None)
                continue
            try:
                ready(found, sandbox=sandbox)
            except MallowsError as exc:
                fail(name, found, str(exc))
    finally:
        for spec in specs:
            spec.unprepare()


def decide_sandbox(specs: Iterable[BotSpec], limits: Limits) -> None:
    """Refuse, before anything runs, bots that need a sandbox none can make here."""
    require_sandbox(list(specs), limits)


# -- steps 2 and 3: register, pin, plan -----------------------------------------------------------


def prepare(
    run: Runnable,
    store: Any,
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    key: bytes | None = None,
) -> Plan:
    """The plan of ``run`` in ``store``: checked (unless ``run.bot_sources`` says it was, by
    ``run.check_bots``), registered and pinned once, with its seed derivation and secret key
    (``run.with_chance``; ``key``: a revealed key to replay a published run). ``resolver``: how
    names resolve (default: the registry and ``store``'s submissions)."""
    from mallows.tournaments.pinning import pin_bots

    resolver = resolver if resolver is not None else Resolver(store)
    if not run.bot_sources:
        run = run.check_bots(resolver, sandbox)
    limits = Limits.from_dict(run.limits)
    run = resumed(run, store)
    run = run.with_chance(store, key)  # after the schedule version: it compares digests
    run.register(store)
    pins = pin_bots(
        store,
        run.name,
        run.written_names,
        run.match_count(),
        resolver,
        kind="comparison" if run.kind == "compare" else "tournament",
    )
    shown = dict(zip(run.written_names, pins.shown))
    return Plan(
        run=run,
        kind=run.kind,
        name=run.name,
        game=run.game,
        options=run.effective_options,
        limits=limits,
        bots=pins.shown,
        shown=shown,
        schedule=run.schedule_for(shown),
        roster=pins.roster,
        resolver=resolver.with_roster(pins.roster),
        ratings=run.rating_params,
        sources=pins.sources,
    )
