"""``mallows bots list`` and ``mallows bots check BOT [--game G] [--games N]``.

``list`` shows every bot the registry can find: its name, version, kind, games and where it
comes from (a broken one is listed with what is wrong with it).

``check`` runs ``mallows.testing.bots.check_bot`` (N matches against the shipped bots, with
fresh secret seeds and drawn seats, in every game the bot declares, always isolated) and prints its forfeits by kind, as the match records
give them, and the decision-time percentiles. It exits 0 when the bot passed, 1 on the first
problem (printed as the forfeit reason, the observation, the bot's answer and the legal
actions), 2 on bad input.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Optional, Sequence

import numpy as np
import typer
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import list_bots
from mallows.cli.common import db_option, resolver_for, sandbox_mode, sandbox_option, user_errors
from mallows.errors import BotError, MallowsError
from mallows.safetext import escape
from mallows.testing.bots import NO_ANSWER, Problem, check_bot
from mallows.runner.match import decision_context

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec, Resolver
    from mallows.testing.bots import GameReport

bots_app = typer.Typer(
    help="List the bots, and check a bot before it enters a tournament.", no_args_is_help=True
)

LINE_CHARS = 240  # one line of the printed observation
LEGAL_SHOWN = 40  # legal actions printed, at most
LIST_SHOWN = 12  # elements of a long observation list printed (the last ones)


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
    probe: bool = typer.Option(
        True,
        help="Start isolated bots whose version or games cannot "
        "be read from their files, to ask them.",
    ),
    db: Path = db_option(),
) -> None:
    """Every bot in bots/, every installed entry point and every bot submitted to --db:
    name, version, kind, games, source."""
    table = Table(title="bots")
    for column in ("name", "version", "kind", "games", "source"):
        table.add_column(column)
    problems = []
    for item in list_bots():
        spec = item.spec
        if (
            spec is not None
            and probe
            and spec.isolated
            and (spec.version is None or spec.games is None)
        ):
            try:
                spec.describe()
            except BotError as exc:
                item.error = str(exc)
        if item.error:
            problems.append(item)
            table.add_row(*shown(item.name, "-", "broken", "-", _where(item.source)))
            continue
        assert spec is not None  # an item without an error has its spec
        table.add_row(
            *shown(
                spec.base,
                spec.version or "?",
                spec.kind_label,
                ", ".join(spec.games) if spec.games else "?",
                _where(spec.source),
            )
        )
    for row in _submitted_rows(db):
        table.add_row(*shown(*row))
    console = _console()
    console.print(table)
    for item in problems:
        console.print(Text(escape(f"{item.name}: {item.error}", keep_lines=True)))


def shown(*values: str) -> list[Text]:
    """Table cells of text from bots and authors: control characters escaped, no markup."""
    return [Text(escape(v)) for v in values]


def _submitted_rows(db: Path) -> list[tuple[str, ...]]:
    """``bots list`` rows for the newest version of every bot submitted to ``db``."""
    from mallows.results.integrity import present_db
    from mallows.results.store import Store

    if not present_db(db):
        return []

    store = Store(db, readonly=True)
    newest: dict[str, dict] = {}
    for r in store.submissions():
        if not r["withdrawn"]:
            newest[r["name"]] = r
    rows: list[tuple[str, ...]] = []
    for r in newest.values():
        check = json.loads(r["check"] or "{}")
        rows.append(
            (
                f"{r['name']}@{r['version']}",
                check.get("version") or "?",
                f"submitted ({r['kind']})",
                ", ".join(check.get("games", {})) or "?",
                f"{db}, {r['created']}",
            )
        )
    store.close()
    return rows


# -- check ----------------------------------------------------------------------------------


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
    out = lambda text="", style=None: console.print(
        Text(escape(text, keep_lines=True), style=style), soft_wrap=True
    )
    where = (
        f"{problem.game}, match {problem.match} (seed {problem.seed}, {problem.players} "
        f"players, seat {problem.seat}"
    )
    if "rules" in problem.options:
        where += f", rules {problem.options['rules']}"
    out(f"FAILED: {total} forfeit(s). First problem, {where}):", "bold red")
    out(f"  {escape(problem.reason)}")  # the bot's words: one line, controls shown
    if problem.observation is None:
        out("\n(no observation: the failure came before the first decision)")
        return
    out(
        f"\nObservation ({decision_context(problem.decision, problem.observation)}; "
        f"legal_actions below):",
        "bold",
    )
    shown = {k: v for k, v in problem.observation.items() if k != "legal_actions"}
    for line in _json_object_lines(shown):
        out(line)
    out("\nAnswer:", "bold")
    if problem.answer is NO_ANSWER:
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


def _sandbox_line(mode: str) -> str:
    """Whether the bot runs in its sandbox, and how, for ``bots check``."""
    from mallows.agents import sandbox

    if mode == "off":
        return "sandbox: off (--sandbox off): process isolation only"
    return (
        f"sandbox: on (bubblewrap {sandbox.bwrap_binary()}; no network, read-only runtime, "
        f"private {sandbox.TMP_MB} MiB /tmp; process limit: {sandbox.process_limit()}; "
        f"memory limit: {sandbox.memory_limit()}; CPU: {sandbox.cpu_control()})"
    )


def _sandbox_binds(spec: BotSpec, limits: Limits) -> list[str]:
    """Lines naming every folder and file bound into the bot's sandbox, for ``bots check``."""
    from mallows.agents import sandbox

    if limits.sandbox == "off" or not spec.isolated:
        return []
    handle = spec.handle(limits)  # not started: only its command and files are read
    process: Any = getattr(handle, "process", handle)  # its process handle (spawn.BotProcess)
    binds = sandbox.binds_for(process.command, python=process.python, bot_paths=process.bot_paths)
    system = [d for d in sandbox.SYSTEM_DIRS if os.path.isdir(d) and not os.path.islink(d)]
    return [
        "bound into its sandbox, read-only: "
        + ", ".join(system + binds)
        + " (and "
        + ", ".join(f"/etc/{f}" for f in sandbox.ETC_FILES)
        + " where present)",
        f"host user: {sandbox.status()['host_user']}",
        sandbox.isolation(),
    ]


MAX_CHECK_GAMES = 10_000


@bots_app.command("check")
@user_errors
def check(
    bot: str = typer.Argument(
        ...,
        help="A name in bots/, a path, an entry-point name, or a "
        "submitted NAME@N (parameters after a colon: "
        "mybot:depth=3).",
    ),
    game: Optional[str] = typer.Option(
        None, help="Check this game only (default: every game the bot declares)."
    ),
    games: int = typer.Option(10, "--games", help="Matches to play in each game."),
    seed: Optional[int] = typer.Option(
        None,
        help="Repeat a check on this machine (default: a "
        "fresh secret seed, so the check cannot be foreseen).",
    ),
    decision_seconds: float = typer.Option(1.0, help="Time limit per decision."),
    match_seconds: float = typer.Option(
        300.0, help="Time budget for all of one match's decisions."
    ),
    sandbox: str = sandbox_option("on"),
    db: Path = db_option(),
) -> None:
    """Play matches against the shipped bots through isolation and report every problem."""
    with resolver_for(db) as resolver:
        _check(bot, game, games, seed, decision_seconds, match_seconds, sandbox, resolver)


def _check(
    bot: str,
    game: str | None,
    games: int,
    seed: int | None,
    decision_seconds: float,
    match_seconds: float,
    sandbox: str,
    resolver: Resolver,
) -> None:
    from mallows.agents.checks import canonical_name

    if not 1 <= games <= MAX_CHECK_GAMES:
        raise MallowsError(
            f"--games {games}: play at least one match per game, at most {MAX_CHECK_GAMES}"
        )
    if seed is not None:
        seeding.check_seed(seed)
    bot = canonical_name(bot)  # refuses a name no file or bot can have (e.g. too long)
    console = _console()

    def on_start(spec: BotSpec, chosen: list[str]) -> None:
        console.print(
            Text(
                f"checking {spec.name} ({spec.kind_label}, {_where(spec.source)}): "
                f"{games} match(es) per game against the shipped bots, seats, seat "
                f"counts and names drawn at random"
            )
        )
        console.print(Text(_sandbox_line(limits.sandbox)))
        for line in _sandbox_binds(spec, limits):
            console.print(Text(line))
        if not spec.games and game is None and len(chosen) > 1:
            console.print(
                Text(
                    f"{spec.name} declares no games: checking every game "
                    f"({', '.join(chosen)}); a bot that plays only some says so in "
                    f'its class Bot, e.g. games = ("take4",)'
                ),
                soft_wrap=True,
            )

    limits = Limits.from_dict(
        {
            "decision_seconds": decision_seconds,
            "match_seconds": match_seconds,
            "sandbox": sandbox_mode(sandbox),
        }
    )
    result = check_bot(bot, game, games, seed, limits, on_start=on_start, resolver=resolver)
    spec, chosen, reports, problems = result.spec, result.games, result.reports, result.problems
    console.print(report_table(spec.name, reports))
    if problems:
        print_problem(console, problems[0], len(problems))
        console.print(
            Text(
                f"\nthe same check again, on this machine: mallows bots check "
                f"{escape(bot)} --seed {result.seed}"
                + (f" --game {game}" if game else "")
                + f" --games {games}"
            ),
            soft_wrap=True,
            highlight=False,
        )
        hint = _no_games_hint(spec, chosen, reports, game)
        if hint:
            console.print(Text("\n" + hint, style="bold"), soft_wrap=True)
        raise typer.Exit(1)
    console.print(
        Text(
            f"OK: {spec.name} passed {games} match(es) in {', '.join(chosen)} with no forfeit.",
            style="bold green",
        )
    )


def _no_games_hint(
    spec: BotSpec, chosen: list[str], reports: Sequence[GameReport], game: str | None
) -> str | None:
    """For a bot that declares no ``games`` (so every game was checked) and failed in some:
    say so, and how to declare the games it plays."""
    if spec.games or game is not None or len(chosen) < 2:
        return None
    clean = [r.game for r in reports if not r.forfeit_total]
    failed = [r.game for r in reports if r.forfeit_total]
    if not clean or not failed:
        return None
    listed = ", ".join(f'"{g}"' for g in clean) + ("," if len(clean) == 1 else "")
    return (
        f"{spec.name} declares no games, so it was checked in every game, and it fails "
        f"only in {', '.join(failed)}. If it is written for {', '.join(clean)} only, say so "
        f"in its class Bot: games = ({listed}) (mallows then never seats it in "
        f"{', '.join(failed)}); or check one game with --game {clean[0]}."
    )


def report_table(name: str, reports: Iterable[GameReport]) -> Table:
    """The check's figures, one row per game."""
    table = Table(title=Text(escape(f"bots check {name} (forfeits by kind; decision time in ms)")))
    for column in (
        "game",
        "matches",
        "decisions",
        "forfeits",
        "by kind",
        "p50",
        "p90",
        "p99",
        "max",
    ):
        table.add_column(column, justify="left" if column in ("game", "by kind") else "right")
    for r in reports:
        times = np.asarray(r.times)
        kinds = ", ".join(f"{kind} {n}" for kind, n in r.forfeits.items() if n) or "-"
        table.add_row(
            r.game,
            str(r.matches),
            str(r.decisions),
            str(r.forfeit_total),
            kinds,
            _ms(times, 50),
            _ms(times, 90),
            _ms(times, 99),
            _ms(times, 100),
        )
    return table
