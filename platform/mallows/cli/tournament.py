"""``mallows tournament run|list|show``, ``mallows ratings``, ``mallows replay``.

The commands only parse arguments and print: loading and validation live in
``mallows.tournaments.spec``, execution in ``mallows.tournaments.executor`` and ``run``, SQLite
in ``mallows.results.store`` (opened read-only by list, show, ratings and replay), the
leaderboard's columns in the rating system (``mallows.results.ratings``).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
from rich import box
from rich.table import Table

from mallows.cli.common import user_errors
from mallows.errors import MallowsError
from mallows.results.ratings import TRUESKILL as RATING_SYSTEM
from mallows.results.store import DEFAULT_DB, Store

FORMATS = ("table", "csv", "json", "markdown")
DB_HELP = "SQLite database (created if missing)."

tournament_app = typer.Typer(help="Run round-robin tournaments and read their results.",
                             no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")
    app.command("ratings")(ratings)
    app.command("replay")(replay)


def _open_readonly(db: Path) -> Store:
    """The database of a read-only command (list, show, ratings, replay): never written."""
    if not Path(db).exists():
        raise MallowsError(f"no database at {db}: run a tournament first "
                           f"(mallows tournament run tournaments/demo.toml) or pass --db PATH")
    return Store(db, readonly=True)


# -- leaderboards -----------------------------------------------------------------------------

COLUMNS = RATING_SYSTEM.columns  # the rating system's leaderboard columns


def _row_values(r: dict) -> list[str]:
    cells = []
    for c in COLUMNS:
        value = r[c.key]
        if c.blank_unplayed and not r["games"]:
            cells.append("-")
        else:
            cells.append(f"{value:.{c.digits}f}" if c.digits is not None else str(value))
    return cells


def _json_row(r: dict) -> dict:
    """One row of ``ratings --format json`` (keys kept stable for scripts)."""
    return {"rank": r["rank"], "bot": r["bot"], **{k: r[k] for k in RATING_SYSTEM.stored},
            "matches": r["games"], "games": r["games"], "wins": r["wins"],
            "mean_place": r["mean_place"], "game": r["game"], "scope": r["scope"],
            "name": r["name"]}


def _csv_cell(value) -> str:
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def _rich_table(title: str, rows: list[dict]) -> Table:
    table = Table(title=title)
    width = max([len(r["bot"]) for r in rows] + [3])
    for c in COLUMNS:
        if c.key == "bot":
            table.add_column(c.header, min_width=width, no_wrap=True)
        else:
            table.add_column(c.header, justify="right")
    for r in rows:
        table.add_row(*_row_values(r))
    return table


def _markdown(title: str, rows: list[dict]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(c.header for c in COLUMNS) + " |",
             "|" + "|".join("---:" if c.key != "bot" else "---" for c in COLUMNS) + "|"]
    lines += ["| " + " | ".join(_row_values(r)) + " |" for r in rows]
    return "\n".join(lines) + "\n"


def _print_boards(boards: list[tuple[str, list[dict]]], fmt: str) -> None:
    if fmt == "json":
        typer.echo(json.dumps([_json_row(r) for _, rows in boards for r in rows], indent=2))
    elif fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        shown = [c for c in COLUMNS if c.csv]
        w.writerow(["scope", "name"] + [c.csv for c in shown])
        for _, rows in boards:
            for r in rows:
                w.writerow([r["scope"], r["name"]] + [_csv_cell(r[c.key]) for c in shown])
        sys.stdout.write(out.getvalue())
    elif fmt == "markdown":
        typer.echo("\n".join(_markdown(title, rows) for title, rows in boards), nl=False)
    else:
        console = Console()
        for title, rows in boards:
            console.print(_rich_table(title, rows))


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise MallowsError(f"--format {fmt!r} is not one of {', '.join(FORMATS)}: "
                           f"e.g. --format json")
    return fmt


def _board(store: Store, scope: str, name: str) -> list[dict]:
    from mallows.tournaments.run import board
    return board(store, scope, name)


# -- tournament run -----------------------------------------------------------------------------

@tournament_app.command("run")
@user_errors
def run(
    file: Path = typer.Argument(..., help="Tournament file (TOML), e.g. tournaments/demo.toml"),
    db: Path = typer.Option(DEFAULT_DB, "--db", help=DB_HELP),
    workers: Optional[int] = typer.Option(
        None, "--workers", help="1: in this process; N > 1: a local Ray with N CPUs "
        "(default: the CPU count)."),
    address: Optional[str] = typer.Option(
        None, "--address", help="Join this Ray cluster (default: $RAY_ADDRESS), shipping bots/."),
    batch_size: Optional[int] = typer.Option(None, "--batch-size",
                                             help="Matches per Ray task (default: automatic)."),
    quiet: bool = typer.Option(False, "--quiet", help="No progress bar."),
) -> None:
    """Play every match of FILE not yet stored in --db, then print the rating table."""
    from mallows.tournaments.executor import make_executor
    from mallows.tournaments.run import register, run_tournament
    from mallows.tournaments.spec import load_tournament

    t = load_tournament(file)
    if batch_size is not None and batch_size < 1:
        raise MallowsError(f"--batch-size must be 1 or more, got {batch_size}")
    store = Store(db)
    # refuse a changed definition before starting Ray
    register(store, t)
    console = Console(stderr=True)
    remaining = t.match_count() - store.count_matches(t.name)
    if remaining == 0:
        executor = make_executor(1, None)
    else:
        with console.status("starting the executor..."):
            executor = make_executor(workers, address, batch_size)
    from mallows.cli.progress import Meter, PlainProgress, eta_text

    live = console.is_terminal and not quiet and remaining > 0
    progress = Progress(
        TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"), TextColumn("ETA {task.fields[eta]}"),
        TextColumn("leader: {task.fields[leader]}"), console=console,
        disable=not live, refresh_per_second=4)
    state: dict = {"task": None, "meter": None, "plain": None}

    def on_start(total: int, already: int) -> None:
        state["meter"] = meter = Meter(total, already)
        state["task"] = progress.add_task(t.name, total=total, completed=already,
                                          rate="", eta="-:--:--", leader="-")
        if not live and not quiet and remaining > 0:  # a log or a pipe: a plain line now and then
            state["plain"] = PlainProgress(t.name, meter, sys.stderr)

    def on_outcome(outcome, spec, rater) -> None:
        meter = state["meter"]
        meter.add()
        if state["plain"] is not None:
            state["plain"].update(lambda: _leader_text(rater))
            return
        rate = meter.rate()
        fields = {"rate": f"{rate:.1f} matches/s" if rate else "", "eta": eta_text(meter.eta())}
        now = time.perf_counter()
        if now - state.get("last", 0.0) >= 1.0:
            state["last"] = now
            fields["leader"] = _leader_text(rater)
        progress.update(state["task"], advance=1, **fields)

    try:
        with executor, progress:
            summary = run_tournament(t, store, executor, on_start, on_outcome)
    except KeyboardInterrupt:
        console.print(f"interrupted: {store.count_matches(t.name)} of {t.match_count()} "
                      f"matches are stored in {db}; rerun the same command to resume")
        raise typer.Exit(130)
    out = Console()
    lost = getattr(executor, "lost_batches", 0)
    if lost:
        out.print(f"{lost} batch{'es' if lost != 1 else ''} lost with {'their' if lost != 1 else 'its'}"
                  f" worker {'were' if lost != 1 else 'was'} run again")
    rows = store.ratings("tournament", t.name)
    out.print(_rich_table(f"{t.name} · {t.game} · {t.match_count()} matches", rows))
    rate = summary.played / summary.wall if summary.wall > 0 else 0.0
    out.print(f"played {summary.played} matches ({summary.already} already stored) in "
              f"{summary.wall:.1f} s on {summary.executor}: {rate:.1f} matches/s. "
              f"Head-to-head: mallows tournament show {t.name}"
              + (f" --db {db}" if Path(db) != DEFAULT_DB else ""))


def _leader_text(rater) -> str:
    best = rater.leader()
    return f"{best[0]} ({best[1]:.1f})" if best else "-"


# -- tournament list / show -------------------------------------------------------------------

@tournament_app.command("list")
@user_errors
def list_(db: Path = typer.Option(DEFAULT_DB, "--db", help=DB_HELP)) -> None:
    """The tournaments in --db, with how many of their matches are stored."""
    store = _open_readonly(db)
    table = Table(title=f"tournaments in {db}")
    for c in ("name", "game", "matches", "status", "created"):
        table.add_column(c, no_wrap=c != "status")
    table.add_column("file", overflow="fold")
    for r in store.tournaments():
        status = "finished" if r["done"] == r["total"] else "incomplete (rerun to resume)"
        table.add_row(r["name"], r["game"], f"{r['done']}/{r['total']}", status,
                      r["created"], r["file"] or "")
    Console().print(table)


@tournament_app.command("show")
@user_errors
def show(
    name: str = typer.Argument(..., help="Tournament name (see mallows tournament list)."),
    db: Path = typer.Option(DEFAULT_DB, "--db", help=DB_HELP),
) -> None:
    """A tournament's definition, leaderboard and head-to-head table."""
    from mallows.results.ratings import head_to_head

    store = _open_readonly(db)
    row = store.tournament(name)
    if row is None:
        known = ", ".join(r["name"] for r in store.tournaments()) or "none"
        raise MallowsError(f"no tournament {name!r} in {db} (tournaments: {known}): check the "
                           f"name with mallows tournament list")
    definition = json.loads(row["definition"])
    console = Console()
    done = store.count_matches(name)
    console.print(f"[bold]{name}[/bold] · {row['game']}"
                  + (f" ({definition.get('rules')})" if definition.get("rules") else "")
                  + f" · {definition['players']} players · {definition['deals']} deals · seed "
                  f"{definition['seed']} · {done}/{row['total']} matches"
                  + ("" if done == row["total"] else " (incomplete: rerun to resume)"))
    if definition.get("options"):
        console.print("options: " + ", ".join(f"{k}={v}" for k, v in definition["options"].items()))
    leaders = _board(store, "tournament", name)
    console.print(_rich_table("leaderboard", leaders))
    h2h = head_to_head(store.results(tournament=name))
    bots = [r["bot"] for r in leaders]
    table = Table(title="head-to-head", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True,
                  caption="cell: the row bot's mean place (1 = first) in the matches it shared "
                          "with the column bot (columns numbered as the rows), and the share of them "
                          "it finished ahead of it")
    table.add_column("#", justify="right", min_width=2, no_wrap=True)
    table.add_column("bot", no_wrap=True)
    for k in range(1, len(bots) + 1):  # numbers: bot names (with parameters) are too wide
        table.add_column(f"vs {k}", justify="right", no_wrap=True)
    for k, a in enumerate(bots, 1):
        cells = []
        for b in bots:
            h = h2h.get(a, {}).get(b)
            cells.append("" if a == b else ("-" if h is None else
                                             f"{h.mean_place:.2f} {h.ahead:>4.0%}"))
        table.add_row(str(k), a, *cells)
    console.print(table)
    ids = store.match_ids(name, 1)
    if ids:
        console.print(f"replay a match: mallows replay {ids[0]}"
                      + (f" --db {db}" if Path(db) != DEFAULT_DB else ""))


# -- ratings ----------------------------------------------------------------------------------

@user_errors
def ratings(
    db: Path = typer.Option(DEFAULT_DB, "--db", help=DB_HELP),
    game: Optional[str] = typer.Option(None, "--game", help="One game's leaderboard over all "
                                       "its tournaments."),
    tournament: Optional[str] = typer.Option(None, "--tournament", help="One tournament's."),
    format: str = typer.Option("table", "--format", help="table, csv, json or markdown."),
) -> None:
    """Leaderboards sorted by mu - 3 sigma: per game (default: every game) or per tournament."""
    fmt = _check_format(format)
    store = _open_readonly(db)
    boards: list[tuple[str, list[dict]]] = []
    if tournament is not None:
        row = store.tournament(tournament)
        if row is None:
            known = ", ".join(r["name"] for r in store.tournaments()) or "none"
            raise MallowsError(f"no tournament {tournament!r} in {db} (tournaments: {known})")
        if game is not None and game != row["game"]:
            raise MallowsError(f"tournament {tournament!r} is {row['game']}, not {game}: drop "
                               f"--game or change it")
        boards.append((f"{tournament} ({row['game']})", _board(store, "tournament", tournament)))
    else:
        games = store.games()
        if game is not None:
            if game not in games:
                raise MallowsError(f"no {game!r} tournaments in {db} (games: "
                                   f"{', '.join(games) or 'none'}): check --game")
            games = [game]
        for g in games:
            boards.append((f"{g} (all tournaments)", _board(store, "game", g)))
    _print_boards(boards, fmt)


# -- replay -----------------------------------------------------------------------------------

@user_errors
def replay(
    match_id: str = typer.Argument(..., help="Match id, <tournament>/<index>, e.g. demo/0"),
    db: Path = typer.Option(DEFAULT_DB, "--db", help=DB_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the match record (JSON)."),
) -> None:
    """Print a stored match turn by turn (or its record with --json)."""
    store = _open_readonly(db)
    row = store.match(match_id)
    if row is None:
        name = match_id.rsplit("/", 1)[0]
        hint = ", ".join(store.match_ids(name, 3)) if store.tournament(name) else ""
        raise MallowsError(f"no match {match_id!r} in {db}: ids are <tournament>/<index>"
                           + (f", e.g. {hint}" if hint else "; see mallows tournament list"))
    record = json.loads(row["record"])
    if as_json:
        typer.echo(json.dumps(record, indent=1))
        return
    from mallows.games.describe import replay_lines

    for line in replay_lines(match_id, record):
        typer.echo(line)
