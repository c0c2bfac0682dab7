"""Tournament formats: the ``Format`` protocol, the registry of formats, and what every format's
file shares (its checks, and the checks of its bots).

**A format** (round robin, ladder, comparison; a Swiss system next) is one package under
``tournaments/`` with two kinds of module: its *spec*, a frozen data class that holds what the
file (or the command line) says and nothing else (``Spec``: its name, game, bots, limits, its
canonical ``definition()`` and that definition's ``digest()``), and its *format*: one object,
``FORMAT`` in ``<package>/format.py``, whose methods are the services ``plan.prepare`` and
``run.execute`` call with the spec:

- ``check(spec, resolver, sandbox)``: the spec with its bots checked (``check_bots`` below:
  resolved, built or asked for their hello, checked to play the game, the sandbox decided
  once) and ``bot_sources`` filled in;
- ``settle(spec, store, key)``: the spec as it runs against ``store``: a stored run keeps its
  schedule version and drawn seed, and the seed derivation gets its secret key
  (``secrecy.settle`` for a round robin; ``key``: a published key, to replay a run);
- ``register(spec, store)``: record it in the store (True) or check it against the stored
  definition of the same name (False: a resume; a changed definition is refused, listing what
  changed: ``diff_definitions``);
- ``schedule(spec, shown, store)``: its matches over the shown names, a ``ScheduleLike``
  (``len`` and lazy ``specs(indices)``: ``seating.MatchSpec``s, seeded with
  ``seating.deal_seed``; ``execute`` plays the indices the store is missing); a format whose
  next tables depend on the results so far (a Swiss system's rounds, a ladder's epochs)
  returns the tables planned so far, read from ``store``;
- ``stop_rule(spec, store)``: when ``execute`` may stop before the schedule is done (a
  comparison's sequential test, a ladder's ``stop``), or None.

An *epoch format* (``EpochFormat``) also has ``next_tables(plan, store)``: the schedule grown by
the next epoch (or round) planned from what is stored, its indices following on, or None when
the format is finished; ``run.run_epochs`` plays such a format epoch after epoch (each planned
only once the epoch before it is stored, and only from what is stored, so a killed run resumes
exactly where it stopped). ``tests/toy_format.py`` is one in a single file. The ladder plans
its epochs in its own loop (``ladder.run.run_ladder``): a join changes its field, so each of
its epochs gets a new plan, not only a longer schedule.

``prepare(spec, store)`` finds the format by ``spec.kind`` in ``FORMATS`` (kind -> the module
that holds its ``FORMAT``): a new format joins with one line there. A stored definition says
its kind (``kind_of``: a round robin's says none).
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

from mallows.results.interface import ResultStore
from mallows.botname import BotName
from mallows.agents.protocol import Limits
from mallows.agents.registry import BotSpec, Resolver, require_sandbox
from mallows.errors import MallowsError, TournamentError
from mallows.files import check_file, read_text
from mallows.results.ratings import system
from mallows.seeding import Chance
from mallows.tournaments.seating import MatchSpec

if TYPE_CHECKING:
    from mallows.runner.worker import Outcome
    from mallows.tournaments.plan import Plan

#: kind -> the module that holds the format's ``FORMAT``: a new format is its package and one
#: line here
FORMATS: dict[str, str] = {
    "tournament": "mallows.tournaments.roundrobin.format",
    "compare": "mallows.tournaments.compare.format",
    "ladder": "mallows.tournaments.ladder.format",
    "swiss": "mallows.tournaments.swiss.format",
}
#: the kind of a stored definition that names none (a round robin's)
DEFAULT_KIND = "tournament"


class ScheduleLike(Protocol):
    """A schedule: ``len``, and the match specs (``seating.MatchSpec``) of some indices, lazily."""

    def __len__(self) -> int: ...
    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]: ...


class StopRule(Protocol):
    """When a run may stop before its schedule is done (a comparison's sequential test)."""

    @property
    def decided(self) -> bool: ...

    def replay(self, store: ResultStore, name: str) -> None:
        """Read what is stored (a resume) before anything is played."""

    def add(self, spec: MatchSpec, outcome: Outcome) -> None:
        """One match played and stored (arrival order; the rule orders them itself)."""


class Spec(Protocol):
    """A format's run as data: a frozen data class holding what its file (or command line)
    says, what the plan reads of it and what the store keeps."""

    kind: ClassVar[str]  # the format's key in ``FORMATS``

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def players(self) -> int: ...
    @property
    def effective_options(self) -> dict: ...
    @property
    def limits(self) -> dict: ...  # [limits] as written (checked)
    @property
    def bot_sources(self) -> dict: ...  # written name -> where the check found it
    @property
    def written_names(self) -> tuple[str, ...]: ...  # every bot, as written
    @property
    def rating_params(self) -> dict: ...
    @property
    def chance(self) -> Chance: ...  # the seed derivation with its key, once settled
    def match_count(self) -> int: ...
    def definition(self) -> dict: ...  # canonical, JSON-able: what the store keeps
    def digest(self) -> str: ...  # the definition's identity: a rerun must match it


@runtime_checkable
class Format(Protocol):
    """A tournament format: the services over its ``Spec`` that ``plan.prepare`` and
    ``run.execute`` call (the module docstring says what each must do)."""

    kind: str

    def check(self, spec: Any, resolver: Resolver | None, sandbox: str | None) -> Any: ...
    def settle(self, spec: Any, store: ResultStore, key: bytes | None) -> Any: ...
    def register(self, spec: Any, store: ResultStore) -> bool: ...
    def schedule(self, spec: Any, shown: Mapping[str, str], store: ResultStore) -> ScheduleLike: ...
    def stop_rule(self, spec: Any, store: ResultStore) -> StopRule | None: ...


@runtime_checkable
class EpochFormat(Format, Protocol):
    """A format whose next tables depend on the results so far (epochs, rounds)."""

    def next_tables(self, plan: Plan, store: ResultStore) -> ScheduleLike | None:
        """``plan.schedule`` grown by the next epoch, planned from what ``store`` holds (every
        match of ``plan.schedule`` is stored when it is called), or None: the run is over."""
        ...


def get_format(kind: str) -> Format:
    """The format registered as ``kind`` (``FORMATS``)."""
    path = FORMATS.get(kind)
    if path is None:
        raise TournamentError(f"unknown format {kind!r}: mallows runs {', '.join(sorted(FORMATS))}")
    found = importlib.import_module(path).FORMAT
    if not isinstance(found, Format) or found.kind != kind:
        raise TypeError(f"{path}.FORMAT is not the Format of kind {kind!r}")
    return found


def kind_of(definition: Mapping[str, Any]) -> str:
    """The format of a stored definition (a round robin's names none)."""
    return str(definition.get("kind", DEFAULT_KIND))


# -- the checks every format's file shares ----------------------------------------------------

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores

#: a tournament's, ladder's or comparison's name: unique in a database
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def where(source: str) -> str:
    """The prefix naming the file a message is about (nothing without one)."""
    return f"{source}: " if source else ""


def read_file(path: str | Path, what: str, shipped: str, error: type[MallowsError]) -> dict:
    """A format's file, parsed: refused with ``error`` naming the fix when nothing is there,
    it is not a regular file (a folder or a FIFO is never opened), not UTF-8, nested too
    deeply or not TOML. ``what``: "tournament file"; ``shipped``: where examples are, as a
    clause ("the shipped ones are in tournaments/")."""
    fix = f"give the path of a {what} (TOML; {shipped})"
    if check_file(path, what, fix, error) is None:
        raise error(f"no {what} {str(path)!r}: check the path ({shipped})")
    # a byte-order mark (some Windows editors write one) is not TOML but is read past
    text = read_text(path, what, fix, error)
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise error(
            f"{path}: nested too deeply for a {what} (arrays or tables inside each other "
            f"hundreds of levels down): a {what} is a few flat keys and tables"
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise error(
            f"{path}: not valid TOML: {exc}. Fix the syntax (strings in double quotes, lists "
            f"in [ ])"
        ) from None


def whole_number(data: dict, key: str, low: int, high: int | None, src: str, hint: str) -> int:
    """``data[key]``, a whole number from ``low`` to ``high`` (None: no upper bound)."""
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TournamentError(f"{where(src)}`{key}` must be a whole number, got {value!r}: {hint}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise TournamentError(f"{where(src)}`{key}` must be {span}, got {value}: {hint}")
    return value


def available_bots() -> list[str]:
    """The names of every bot the registry can find (for error messages)."""
    from mallows.agents.registry import list_bots

    return sorted(b.name for b in list_bots())


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


#: the shipped bots' parameters that change play in some games only, kept here rather than in
#: their files (a changed file is other code: a resumed run that pinned it would be refused)
SHIPPED_PARAMETER_GAMES: dict[str, dict[str, tuple[str, ...]]] = {
    "random": {"call": ("arschmallows",)},  # the call probability: Take4 has no call
    "greedy": {"margin": ("arschmallows",)},  # the call margin
}


def idle_parameters(bots: Iterable[str], game: str, resolver: Resolver | None = None) -> list[str]:
    """Warnings, one a bot: a parameter that changes nothing in ``game`` (a bot class says
    which games each parameter changes play in: ``parameter_games = {"call":
    ("arschmallows",)}``), so that ``random:call=0.5`` is ``random`` under another name."""
    resolver = resolver if resolver is not None else Resolver()
    out = []
    for name in dict.fromkeys(bots):
        try:
            spec = resolver.load(name)
        except MallowsError:
            continue  # the check step says what is wrong with it
        games_of = getattr(spec.cls, "parameter_games", None) or (
            SHIPPED_PARAMETER_GAMES.get(spec.base, {}) if spec.trusted else {}
        )
        idle = [p for p in spec.params if p in games_of and game not in games_of[p]]
        for p in idle:
            out.append(
                f"{name!r}: the parameter {p} has no effect in {game} (it changes play in "
                f"{', '.join(games_of[p])} only): {name} plays {game} as {spec.base} does, "
                f"two names for one program"
            )
    return out


def check_bots(
    bots: Iterable[str],
    game: str,
    limits: dict,
    source: str = "",
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    fail: Callable[[str, BotSpec | Exception, str | None], None] | None = None,
) -> tuple[dict, dict]:
    """The check step of ``plan.prepare`` for a file's ``bots``: every bot resolved once
    (``resolver``: default the registry alone), built once with its parameters or asked for its
    hello (the isolated ones in their sandbox unless ``sandbox``, the command line's
    ``--sandbox``, or the file says "off"), checked to play ``game``; the first problem, in the
    file's order, is the error. Returns the limits with ``--sandbox`` applied and where each
    bot was found, after refusing bots that need a sandbox none can make here. ``fail(name,
    spec_or_error, message)``: raise the error in the caller's words (default: the file's
    ``TournamentError``s; it also refuses a bot that plays other games)."""
    src = source
    resolver = resolver if resolver is not None else Resolver()
    limits = sandbox_limits(limits, sandbox)
    mode = limits.get("sandbox", "on")
    loaded = resolve_all(bots, resolver)

    def refuse(name: str, spec: Any, message: str | None) -> None:
        if not isinstance(spec, BotSpec):
            known = available_bots()
            listing = f"; bots found: {', '.join(known)}" if known else ""
            raise TournamentError(
                f"{where(src)}`bots`: cannot load {name!r}: {spec}{listing}. Fix the name in "
                f"`bots = [...]` or add the bot to bots/"
            ) from None
        if message is not None:
            raise TournamentError(
                f"{where(src)}`bots`: {message}. Fix the bot's parameters in `bots = [...]`"
            ) from None
        if spec.games and game not in spec.games:  # None: not declared, so not checked
            raise TournamentError(
                f"{where(src)}`bots`: {name!r} plays {', '.join(spec.games)}, not {game}: "
                f"remove it from `bots`"
            )

    fail = fail if fail is not None else refuse
    ready_all(loaded, mode, fail)
    specs = [s for s in loaded.values() if isinstance(s, BotSpec)]
    for spec in specs:  # the games of an isolated bot are known after its hello
        fail(spec.name, spec, None)
    sources = {n: s.source for n, s in loaded.items() if isinstance(s, BotSpec)}
    decide_sandbox(specs, Limits.from_dict(limits))
    return limits, sources


def check_limits(limits: Any, src: str) -> dict:
    """``[limits]`` as written, checked by ``Limits.from_dict`` (the one validator)."""
    if not isinstance(limits, dict):
        raise TournamentError(
            f"{where(src)}`limits` must be a table: write [limits] "
            f"followed by lines like decision_seconds = 1.0"
        )
    names = [f.name for f in dataclasses.fields(Limits)]
    for key in limits:
        if key not in names:
            raise TournamentError(
                f"{where(src)}unknown key `limits.{key}`{suggest(key, names)}: [limits] "
                f"takes {', '.join(names)}"
            )
    try:
        checked = Limits.from_dict(limits)
    except MallowsError as exc:
        raise TournamentError(f"{where(src)}[limits]: {exc}") from None
    # sandbox = "on" and names = "shown" are the defaults and are not stored: such a
    # definition stays as it was
    return {
        key: getattr(checked, key)
        for key in limits
        if not (key == "sandbox" and checked.sandbox == "on")
        and not (key == "names" and checked.names == "shown")
    }


def check_ratings(ratings: Any, src: str) -> dict:
    """The rating system's parameters: it owns their defaults, ranges and messages."""
    if not isinstance(ratings, dict):
        raise TournamentError(
            f"{where(src)}`ratings` must be a table: write [ratings] "
            f"followed by lines like draw_probability = 0.02"
        )
    names = [p.name for p in RATING_SYSTEM.params]
    for key in ratings:
        if key not in names:
            raise TournamentError(
                f"{where(src)}unknown key `ratings.{key}`{suggest(key, names)}: "
                f"[ratings] takes {', '.join(names)}"
            )
    try:
        return RATING_SYSTEM.check_params(ratings)
    except ValueError as exc:
        raise TournamentError(f"{where(src)}{exc}") from None


def canonical_bots(bots: list[str], src: str) -> list[str]:
    """Each name in its one spelling (``agents.checks.canonical_name``); two names for one bot
    are refused."""
    from mallows.agents.checks import canonical_name

    seen: dict[str, str] = {}
    out = []
    for bot in bots:
        try:
            canon = canonical_name(bot)
        except MallowsError as exc:
            raise TournamentError(f"{where(src)}`bots`: {exc}") from None
        if canon in seen:
            same = (
                "twice"
                if seen[canon] == bot
                else f"twice, as {seen[canon]!r} and {bot!r} (one bot: {canon!r})"
            )
            raise TournamentError(
                f"{where(src)}`bots` lists {canon!r} {same}: list each bot "
                f"once (give a variant its own parameters, e.g. "
                f'"{BotName.parse(canon, strict=False).plain}:call=0.1")'
            )
        seen[canon] = bot
        out.append(canon)
    return out


def diff_definitions(old: dict, new: dict) -> list[str]:
    """Human-readable differences ``key: old -> new`` between two definitions."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for sub in sorted(set(a) | set(b)):
                if a.get(sub) != b.get(sub):
                    out.append(f"{key}.{sub}: {_show(a.get(sub))} -> {_show(b.get(sub))}")
        else:
            out.append(f"{key}: {_show(a)} -> {_show(b)}")
    return out


def _show(value: Any) -> str:
    return "(unset)" if value is None else json.dumps(value)
