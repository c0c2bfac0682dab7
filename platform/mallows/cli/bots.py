"""``mallows bots list`` and ``mallows bots check BOT [--game G] [--games N]``.

``list`` shows every bot the registry can find: its name, version, kind, games and where it
comes from (a broken one is listed with what is wrong with it).

``check`` plays N matches against ``random`` bots in every game the bot declares (seat count and
seat vary from match to match; Arschmallows alternates its rule sets), always through isolation,
and reports forfeits by kind (illegal actions, errors and crashes, time-outs, garbage) and the
decision-time percentiles. It exits 0 when the bot passed, 1 on the first problem (printed as
the forfeit reason, the observation, the bot's answer and the legal actions), 2 on bad input.
"""

from __future__ import annotations

import json
from pathlib import Path
from dataclasses import dataclass, field
from time import perf_counter
from typing import Any, Optional

import numpy as np
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mallows import seeding
from mallows.agents.protocol import BotFailure, Limits
from mallows.cli.common import user_errors
from mallows.errors import BotError, MallowsError
from mallows.games import GAMES, get_game
from mallows.agents.registry import BotSpec, list_bots, load_bot
from mallows.tournaments.match import decision_context, play_match

bots_app = typer.Typer(help="List the bots, and check a bot before it enters a tournament.",
                       no_args_is_help=True)

LINE_CHARS = 240    # one line of the printed observation
LEGAL_SHOWN = 40    # legal actions printed, at most
LIST_SHOWN = 12     # elements of a long observation list printed (the last ones)
_NOTHING = object()


def _where(source: str) -> str:
    """A source path relative to the working directory when it is under it."""
    try:
        return str(Path(source).resolve().relative_to(Path.cwd()))
    except ValueError:
        return source


def _console() -> Console:
    """A console that does not squeeze tables into 80 columns when output is not a terminal."""
    console = Console()
    if not console.is_terminal:
        console = Console(width=max(console.width, 140))
    return console


def register(app: typer.Typer) -> None:
    app.add_typer(bots_app, name="bots")


# -- list -----------------------------------------------------------------------------------

@bots_app.command("list")
@user_errors
def list_command(
    probe: bool = typer.Option(True, help="Start isolated bots whose version or games cannot "
                                          "be read from their files, to ask them."),
) -> None:
    """Every bot in bots/ and every installed entry point: name, version, kind, games, source."""
    table = Table(title="bots")
    for column in ("name", "version", "kind", "games", "source"):
        table.add_column(column)
    problems = []
    for item in list_bots():
        spec = item.spec
        if spec is not None and probe and spec.isolated and (spec.version is None
                                                              or spec.games is None):
            try:
                spec.describe()
            except BotError as exc:
                item.error = str(exc)
        if item.error:
            problems.append(item)
            table.add_row(item.name, "-", "broken", "-", _where(item.source))
            continue
        table.add_row(spec.base, spec.version or "?", spec.kind_label,
                      ", ".join(spec.games) if spec.games else "?", _where(spec.source))
    console = _console()
    console.print(table)
    for item in problems:
        console.print(Text(f"{item.name}: {item.error}"))


# -- check ----------------------------------------------------------------------------------

class Watch:
    """Wraps a handle: keeps the last observation and answer, the failure, the decision times."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name
        self.last_obs: dict | None = None
        self.last_answer: Any = _NOTHING
        self.failure: BotFailure | None = None
        self.decisions = 0
        self.times: list[float] = []

    def start(self, info: dict) -> None:
        try:
            self.inner.start(info)
        except BotFailure as exc:
            self.failure = exc
            raise

    def act(self, observation: dict) -> Any:
        self.last_obs, self.last_answer = observation, _NOTHING
        self.decisions += 1
        t0 = perf_counter()
        try:
            answer = self.inner.act(observation)
        except BotFailure as exc:
            self.failure = exc
            raise
        finally:
            self.times.append(perf_counter() - t0)
        self.last_answer = answer
        return answer

    def end(self, info: dict) -> None:
        self.inner.end(info)

    def close(self) -> None:
        self.inner.close()


KINDS = {"illegal": "illegal", "error": "crash", "crash": "crash", "timeout": "timeout",
         "garbage": "garbage", "flood": "garbage", "protocol": "garbage"}


@dataclass
class GameReport:
    game: str
    matches: int = 0
    decisions: int = 0
    forfeits: dict = field(default_factory=lambda: {k: 0 for k in
                                                     ("illegal", "crash", "timeout",
                                                      "garbage")})
    times: list = field(default_factory=list)

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


def run_check(spec: BotSpec, games: list[str], matches: int, seed: int, limits: Limits,
              progress=None) -> tuple[list[GameReport], list[Problem]]:
    """Play the matches; return one report per game and every problem, in order."""
    opponent = load_bot("random", isolate=False)
    reports, problems = [], []
    for game in games:
        module = get_game(game)
        rule_sets = list(module.RULE_SETS)
        report = GameReport(game)
        span = module.MAX_PLAYERS - module.MIN_PLAYERS + 1
        for i in range(matches):
            players = module.MIN_PLAYERS + i % span
            seat = i % players
            options = module.make_options(rule_sets[i % len(rule_sets)], None)
            match_seed = seeding.child_seed(seed, i)
            watch = Watch(spec.handle(limits))
            handles = [watch if s == seat else opponent.handle(limits) for s in range(players)]
            names = [spec.name if s == seat else "random" for s in range(players)]
            record = play_match(game, options, match_seed, handles, names)
            report.matches += 1
            report.decisions += watch.decisions
            report.times.extend(watch.times)
            reason = record["result"]["forfeits"][seat]
            if reason:
                kind = watch.failure.kind if watch.failure is not None else "illegal"
                report.forfeits[KINDS.get(kind, "crash")] += 1
                problems.append(Problem(game, i, match_seed, players, seat, options, kind,
                                        reason, watch.decisions,
                                        watch.last_obs if watch.decisions else None,
                                        watch.last_answer))
            if progress is not None:
                progress(game, i)
        reports.append(report)
    return reports, problems


def _ms(values: np.ndarray, q: float) -> str:
    return f"{np.percentile(values, q) * 1000:.2f}" if len(values) else "-"


def _json_object_lines(obj: dict) -> list[str]:
    """A JSON object, one key a line, each line cut at ``LINE_CHARS``."""
    compact = lambda v: json.dumps(v, separators=(",", ":"))
    cut = lambda line: line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " …"
    lines = ["{"]
    items = list(obj.items())
    for n, (key, value) in enumerate(items):
        comma = "," if n < len(items) - 1 else ""
        line = f"  {json.dumps(key)}: {compact(value)}{comma}"
        if len(line) > LINE_CHARS and isinstance(value, list) and value:
            # a long list (rows by seat, history): one element a line, the last ones kept
            lines.append(f"  {json.dumps(key)}: [")
            if len(value) > LIST_SHOWN:
                lines.append(f"    ... {len(value) - LIST_SHOWN} earlier entries,")
            shown = value[-LIST_SHOWN:]
            for m, element in enumerate(shown):
                lines.append(cut(f"    {compact(element)}{',' if m < len(shown) - 1 else ''}"))
            lines.append(f"  ]{comma}")
        else:
            lines.append(cut(line))
    lines.append("}")
    return lines


def print_problem(console: Console, problem: Problem, total: int) -> None:
    out = lambda text="", style=None: console.print(Text(text, style=style), soft_wrap=True)
    where = (f"{problem.game}, match {problem.match} (seed {problem.seed}, {problem.players} "
             f"players, seat {problem.seat}")
    if "rules" in problem.options:
        where += f", rules {problem.options['rules']}"
    out(f"FAILED: {total} forfeit(s). First problem, {where}):", "bold red")
    out(f"  {problem.reason}")
    if problem.observation is None:
        out("\n(no observation: the failure came before the first decision)")
        return
    out(f"\nObservation ({decision_context(problem.decision, problem.observation)}; "
        f"legal_actions below):", "bold")
    shown = {k: v for k, v in problem.observation.items() if k != "legal_actions"}
    for line in _json_object_lines(shown):
        out(line)
    out("\nAnswer:", "bold")
    if problem.answer is _NOTHING:
        out("  (no valid answer: see the reason above)")
    else:
        try:
            out("  " + json.dumps(problem.answer, separators=(",", ":")))
        except (TypeError, ValueError):
            out("  " + repr(problem.answer))
    legal = problem.observation.get("legal_actions", [])
    out(f"\nLegal actions ({len(legal)}):", "bold")
    for action in legal[:LEGAL_SHOWN]:
        out("  " + json.dumps(action, separators=(",", ":")))
    if len(legal) > LEGAL_SHOWN:
        out(f"  ... and {len(legal) - LEGAL_SHOWN} more")


@bots_app.command("check")
@user_errors
def check(
    bot: str = typer.Argument(..., help="A name in bots/, a path, or an entry-point name "
                                        "(parameters after a colon: mybot:depth=3)."),
    game: Optional[str] = typer.Option(None, help="Check this game only (default: every game "
                                                  "the bot declares)."),
    games: int = typer.Option(10, "--games", help="Matches to play in each game."),
    seed: int = typer.Option(0, help="Seed of the first match; the rest derive from it."),
    decision_seconds: float = typer.Option(1.0, help="Time limit per decision."),
    match_seconds: float = typer.Option(300.0, help="Time budget for all of one match's "
                                                    "decisions."),
) -> None:
    """Play matches against random bots through isolation and report every problem."""
    if games < 1:
        raise MallowsError(f"--games {games}: play at least one match per game")
    spec = load_bot(bot, isolate=True)
    declared = spec.games
    if declared is None:
        try:
            spec.describe()
            declared = spec.games
        except BotError:
            declared = None  # the matches will show what is wrong
    if game is not None:
        get_game(game)
        if declared and game not in declared:
            raise MallowsError(f"bot {bot!r} declares the games {', '.join(declared)}, not "
                               f"{game!r}: drop --game, or add {game!r} to its games")
        chosen = [game]
    else:
        chosen = [g for g in GAMES if not declared or g in declared]
        unknown = [g for g in declared or () if g not in GAMES]
        if unknown:
            raise MallowsError(f"bot {bot!r} declares unknown games {unknown}: the games are "
                               f"{', '.join(GAMES)}")
    limits = Limits(decision_seconds=decision_seconds, match_seconds=match_seconds)
    console = _console()
    console.print(Text(f"checking {spec.name} ({spec.kind_label}, {_where(spec.source)}): {games} "
                       f"match(es) per game against random bots"))
    reports, problems = run_check(spec, chosen, games, seed, limits)

    table = Table(title=f"bots check {spec.name} (forfeits by kind; decision time in ms)")
    for column in ("game", "matches", "decisions", "forfeits", "illegal", "crash",
                   "timeout", "garbage", "p50", "p90", "p99", "max"):
        table.add_column(column, justify="left" if column == "game" else "right")
    for r in reports:
        times = np.asarray(r.times)
        table.add_row(r.game, str(r.matches), str(r.decisions), str(r.forfeit_total),
                      *(str(r.forfeits[k]) for k in ("illegal", "crash", "timeout",
                                                     "garbage")),
                      _ms(times, 50), _ms(times, 90), _ms(times, 99), _ms(times, 100))
    console.print(table)
    if problems:
        print_problem(console, problems[0], len(problems))
        raise typer.Exit(1)
    console.print(Text(f"OK: {spec.name} passed {games} match(es) in "
                       f"{', '.join(chosen)} with no forfeit.", style="bold green"))
