"""``check_bot(name)``: play a bot against the registry's bots and report every problem.

What ``mallows bots check`` and ``bots submit`` run, usable from a bot author's own tests. The
bot is always isolated (its own process, as in a tournament); it plays ``matches`` matches in
every game it declares (or the one asked for). A check is not a predictable exam: without a
seed it draws a fresh seed from the operating system, keyed with this user's secret key
(``seeding.local_key``; so ``seed`` repeats a check on this machine only), and from them, match
by match, the number of seats, the bot's seat, the rule set (where a game has
several), whether the opponents' names are shown or hidden (as under ``names = "hidden"``),
and the opponents: the shipped bots that play the game (``OPPONENTS``), under their real
names, as a tournament seats them. The match seeds and the bots' seeds are keyed as in a
tournament (``seeding.Chance``). Forfeits are counted by the ``kind`` the match
record gives them (``agents.protocol.KINDS``); each forfeit is kept as a ``Problem`` with the
observation the bot was answering and its answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Callable, Sequence

from mallows.results.interface import ResultStore
from mallows import seeding
from mallows.botname import BotName
from mallows.agents.protocol import KINDS, BotHandle, Limits
from mallows.agents.registry import BotSpec, Resolver, load_bot, require_sandbox
from mallows.errors import BotError, MallowsError
from mallows.games import game_ids, get_game
from mallows.runner.match import play_match

__all__ = [
    "check_bot",
    "choose_games",
    "run_check",
    "BotCheck",
    "GameReport",
    "Problem",
    "NO_ANSWER",
]

NO_ANSWER = object()  # ``Problem.answer`` when the bot gave no valid answer


class Watch:
    """Wraps a handle: keeps the last observation and answer and the decision times."""

    def __init__(self, inner: BotHandle) -> None:
        self.inner = inner
        self.name = inner.name
        self.last_obs: dict | None = None
        self.last_answer: Any = NO_ANSWER
        self.decisions = 0
        self.times: list[float] = []

    def start(self, info: dict) -> None:
        self.inner.start(info)

    @property
    def protocol(self) -> int:  # the inner handle's choice, once started (protocol 2: events)
        return getattr(self.inner, "protocol", 1)

    @property
    def history(self) -> str | None:
        return getattr(self.inner, "history", None)

    @property
    def observation_mode(self) -> str | None:
        return getattr(self.inner, "observation_mode", None)

    def act(self, observation: dict, *events: Any) -> Any:
        self.last_obs, self.last_answer = observation, NO_ANSWER
        self.decisions += 1
        t0 = perf_counter()
        try:
            answer = self.inner.act(observation, *events)
        finally:
            self.times.append(perf_counter() - t0)
        self.last_answer = answer
        return answer

    def end(self, info: dict) -> None:
        self.inner.end(info)

    def close(self) -> None:
        self.inner.close()


@dataclass
class GameReport:
    game: str
    matches: int = 0
    decisions: int = 0
    forfeits: dict = field(default_factory=lambda: dict.fromkeys(KINDS, 0))  # kind -> count
    times: list = field(default_factory=list)  # seconds per decision

    @property
    def forfeit_total(self) -> int:
        return sum(self.forfeits.values())


@dataclass
class Problem:
    game: str
    match: int
    seed: int
    players: int
    seat: int
    options: dict
    kind: str
    reason: str
    decision: int
    observation: dict | None
    answer: Any


@dataclass
class BotCheck:
    spec: BotSpec
    games: list[str]
    reports: list[GameReport]
    problems: list[Problem]
    seed: int | None = None  # the check's seed: ``--seed`` repeats it on this machine

    @property
    def passed(self) -> bool:
        return not self.problems


def choose_games(spec: BotSpec, game: str | None = None, sandbox: str = "on") -> list[str]:
    """The games to check: ``game`` if given (it must be known and declared), else every game
    the bot declares (every game if it declares none). A ``MallowsError`` names a mismatch."""
    declared = spec.games
    if declared is None:
        try:
            spec.describe(sandbox=sandbox)
            declared = spec.games
        except BotError:
            declared = None  # the matches will show what is wrong
    if game is not None:
        get_game(game)
        if declared and game not in declared:
            raise MallowsError(
                f"bot {spec.name!r} declares the games {', '.join(declared)}, "
                f"not {game!r}: drop --game, or add {game!r} to its games"
            )
        return [game]
    unknown = [g for g in declared or () if g not in game_ids()]
    if unknown:
        raise MallowsError(
            f"bot {spec.name!r} declares unknown games {unknown}: the games are "
            f"{', '.join(game_ids())}"
        )
    return [g for g in game_ids() if not declared or g in declared]


def _forfeit_kind(record: dict, seat: int) -> str:
    for event in record["events"]:
        if event.get("type") == "forfeit" and event.get("seat") == seat:
            return event.get("kind", "error")
    return "error"


# The check's opponents: the shipped bots, under the names a tournament file gives them (a
# search bot with a budget that keeps a check quick).
OPPONENTS = ("random", "greedy", "heuristic", "denial", "ismcts:budget=0.01")


#: Names of the kind submitted bots have, for the check's opponents: in a tournament or ladder
#: a bot meets ``NAME@N`` entrants as well as shipped bots, so the check shows both kinds.
EXAM_NAMES = (
    "otter",
    "kestrel",
    "maple",
    "quokka",
    "basalt",
    "juniper",
    "marmot",
    "tern",
    "cobalt",
    "fennel",
    "lynx",
    "sorrel",
    "pike",
    "wren",
    "ember",
    "tamarin",
    "heron",
    "sage",
    "vole",
    "birch",
    "gecko",
    "lark",
    "saffron",
    "bison",
    "krill",
    "plover",
    "mallard",
    "aster",
)


def exam_names(draw: random.Random, opponents: Sequence[BotSpec]) -> list[str]:
    """The names the check's ``opponents`` are shown under: each either a shipped bot's base
    name (as a tournament file writes it, without the check's small search budgets) or a
    plausible submitted ``NAME@N``, drawn by ``draw``; never two alike."""
    out: list[str] = []
    for spec in opponents:
        while True:
            if draw.random() < 0.5:
                name = BotName.parse(str(spec.name), strict=False).plain
            else:
                name = f"{draw.choice(EXAM_NAMES)}@{draw.randint(1, 9)}"
            if name not in out:
                break
        out.append(name)
    return out


def check_chance(seed: int | None) -> tuple[seeding.Chance, int]:
    """The derivation and seed of a check: keyed with this user's key (``seeding.local_key``;
    a fresh one where none can be kept), and a fresh seed from the OS unless ``seed`` is
    given: nobody can foresee a check, and ``--seed S`` repeats one on this machine."""
    key = seeding.local_key() or seeding.fresh_key()
    return seeding.Chance(seeding.KEYED, key), seeding.fresh_seed() if seed is None else seed


def opponents_for(game: str) -> list[BotSpec]:
    """The shipped bots (trusted, in-process) that play ``game``; ``random`` at least."""
    out = []
    for name in OPPONENTS:
        try:
            opponent = load_bot(name, isolate=False)
        except (MallowsError, OSError):
            continue  # not found here (a trimmed bots/): the others play
        if opponent.trusted and (not opponent.games or game in opponent.games):
            out.append(opponent)
    return out or [load_bot("random", isolate=False)]


def run_check(
    spec: BotSpec,
    games: list[str],
    matches: int,
    seed: int | None,
    limits: Limits,
    progress: Callable[[str, int], None] | None = None,
    chance: seeding.Chance | None = None,
    shown: str | None = None,
) -> tuple[list[GameReport], list[Problem]]:
    """Play the matches; return one report per game and every problem, in order. ``seed``
    None: a fresh secret one (``check_chance``); ``chance`` overrides the derivation.
    ``shown``: the name the bot is shown under, as a tournament would (``exam_name``); the
    opponents are shown as ``exam_names`` draws."""
    if chance is None:
        chance, seed = check_chance(seed)
    elif seed is None:
        seed = seeding.fresh_seed()
    draw = random.Random(seeding.keyed(chance.key or b"unkeyed-check-key", b"mallows check", seed))
    reports, problems = [], []
    for g, game in enumerate(games):
        module = get_game(game)
        rule_sets = list(getattr(module, "RULE_SETS", None) or [None])
        pool = opponents_for(game)
        report = GameReport(game)
        for i in range(matches):
            players = draw.randint(module.MIN_PLAYERS, module.MAX_PLAYERS)
            seat = draw.randrange(players)
            options = module.make_options(draw.choice(rule_sets), None)
            hide = draw.random() < 0.5
            match_seed = chance.play_seed(seeding.child_seed(seed, g * matches + i))
            # distinct opponents, as in a tournament, while the pool has enough
            others = (
                draw.sample(pool, players - 1)
                if len(pool) >= players - 1
                else [draw.choice(pool) for _ in range(players - 1)]
            )
            chosen = others[:seat] + [spec] + others[seat:]
            watch = Watch(spec.handle(limits))
            handles = [watch if s == seat else chosen[s].handle(limits) for s in range(players)]
            seen = iter(exam_names(draw, others))
            names = [shown or spec.name if s == seat else next(seen) for s in range(players)]
            record = play_match(
                game, options, match_seed, handles, names, chance=chance, hide_names=hide
            )
            report.matches += 1
            report.decisions += watch.decisions
            report.times.extend(watch.times)
            reason = record["result"]["forfeits"][seat]
            if reason:
                kind = _forfeit_kind(record, seat)
                report.forfeits[kind] = report.forfeits.get(kind, 0) + 1
                problems.append(
                    Problem(
                        game,
                        i,
                        match_seed,
                        players,
                        seat,
                        options,
                        kind,
                        reason,
                        watch.decisions,
                        watch.last_obs if watch.decisions else None,
                        watch.last_answer,
                    )
                )
            if progress is not None:
                progress(game, i)
        reports.append(report)
    return reports, problems


def exam_name(spec: BotSpec, store: ResultStore | None = None, name: str | None = None) -> str:
    """The name a checked bot is shown under: a submitted version's own ``NAME@N``; else the
    name it would be submitted as (``name``, default its own) at its next version in
    ``store`` (``@1`` without one): what a tournament or ladder will show it as."""
    from mallows.agents.submissions import short_name

    shown = BotName.parse(str(name or short_name(spec)), strict=False)
    if shown.version is not None:
        return shown.plain
    base = shown.base
    finder = getattr(store, "newest_digest", None)
    newest = finder(base) if finder is not None else None
    return f"{base}@{(newest[0] if newest else 0) + 1}"


def check_bot(
    name: str,
    game: str | None = None,
    matches: int = 10,
    seed: int | None = None,
    limits: Limits | None = None,
    on_start: Callable[[BotSpec, list[str]], None] | None = None,
    progress: Callable[[str, int], None] | None = None,
    resolver: Resolver | None = None,
) -> BotCheck:
    """Load bot ``name`` (isolated; ``resolver``: how names resolve, default the registry
    alone, ``mallows.cli.common.resolver_for`` for a command with ``--db``), choose its games,
    play ``matches`` matches in each against the shipped bots (``run_check``: ``seed`` None
    draws a fresh secret one) and return what happened. ``on_start(spec, games)`` is called
    before the first match. Bad input (an unknown bot or game, no match) is a ``MallowsError``."""
    if matches < 1:
        raise MallowsError(f"--games {matches}: play at least one match per game")
    spec = (resolver or Resolver()).load(name, isolate=True)
    limits = limits or Limits()
    require_sandbox([spec], limits)  # refused before anything runs where none can be made
    games = choose_games(spec, game, limits.sandbox)
    if on_start is not None:
        on_start(spec, games)
    chance, seed = check_chance(seed)
    shown = exam_name(spec, getattr(resolver, "catalog", None))
    reports, problems = run_check(spec, games, matches, seed, limits, progress, chance, shown)
    return BotCheck(spec, games, reports, problems, seed)
