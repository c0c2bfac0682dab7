"""``mallows tournament run|list|show``, ``mallows ratings``, ``mallows replay``, ``mallows export``.

The commands only parse arguments and print: loading and validation live in
``mallows.tournaments.roundrobin.spec``, execution in ``mallows.runner.executor`` (``cluster`` for
Ray) and ``run``, SQLite in ``mallows.results.store`` (opened read-only by list, show, ratings and
replay), the leaderboard's columns in the rating system (``mallows.results.ratings``).
"""

from __future__ import annotations

import csv
import io
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional

import typer
from rich.console import Console
from rich.markup import escape as markup_escape
from rich.text import Text

from mallows.botname import BotName
from mallows.cli.common import (
    address_option,
    db_option,
    sandbox_option,
    user_errors,
    workers_option,
)
from mallows.safetext import escape
from mallows.errors import MallowsError
from mallows.results.interface import RatingSystem
from mallows.results.ratings import system
from mallows.results.store import DEFAULT_DB, Store

if TYPE_CHECKING:
    from mallows.agents.registry import Resolver
    from mallows.runner.worker import Outcome
    from mallows.tournaments.format import Spec
    from mallows.tournaments.live import LiveRatings
    from mallows.tournaments.seating import MatchSpec

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores

FORMATS = ("table", "csv", "json", "markdown")

tournament_app = typer.Typer(
    help="Run round-robin tournaments and read their results.", no_args_is_help=True
)


def register(app: typer.Typer) -> None:
    app.add_typer(tournament_app, name="tournament")
    app.command("ratings")(ratings)
    app.command("replay")(replay)
    app.command("export")(export)


def _open_readonly(db: Path) -> Store:
    """The database of a read-only command (list, show, ratings, replay): never written."""
    from mallows.results.integrity import existing_db

    existing_db(
        db,
        f"no database at {db}: run a tournament first "
        f"(mallows tournament run tournaments/demo.toml) or pass --db PATH",
    )
    return Store(db, readonly=True)


# -- leaderboards -----------------------------------------------------------------------------

COLUMNS = RATING_SYSTEM.columns  # the default rating system's leaderboard columns


def _row_values(r: dict, system: RatingSystem = RATING_SYSTEM) -> list[str]:
    cells = []
    for c in system.columns:
        value = r[c.key]
        if c.blank_unplayed and not r["games"]:
            cells.append("-")
        else:
            cells.append(f"{value:.{c.digits}f}" if c.digits is not None else str(value))
    return cells


def _cells(
    rows: list[dict], places: dict | None, system: RatingSystem = RATING_SYSTEM
) -> list[list[str]]:
    """Table cells: a bot given by path shows as its base name, the mean place with its 95%
    interval (``2.31 ± 0.08``) when the places are known."""
    from mallows.report.data import short_bot

    keys = [c.key for c in system.columns]
    bot, place = keys.index("bot"), keys.index("mean_place")
    out = []
    for r in rows:
        cells = _row_values(r, system)
        cells[bot] = short_bot(cells[bot])
        stats = (places or {}).get(r["bot"])
        if stats is not None and stats.half_width is not None:
            cells[place] += f" ± {stats.half_width:.2f}"
        out.append(cells)
    return out


def _headers(places: dict | None, system: RatingSystem = RATING_SYSTEM) -> list[str]:
    return [
        c.header + " (95%)" if c.key == "mean_place" and places else c.header
        for c in system.columns
    ]


#: Below every TrueSkill table (terminal and markdown): what its numbers may be compared with.
MU_NOTE = (
    "mu is comparable within this table only: TrueSkill rates matches one after another, so "
    "its absolute values depend on the order they were rated in (the same matches in another "
    "order move every mu together by points); gaps and order hold. Between tables compare "
    "mean places, or the whole-history fit (mallows ladder status; docs/whole-history-rating.md)."
)


def _note(system: RatingSystem) -> str | None:
    """The note below a table of ``system`` (TrueSkill's order dependence; none for a fit)."""
    return MU_NOTE if system.kind == "online" else None


def _print_board(
    title: str,
    rows: list[dict],
    places: dict | None = None,
    system: RatingSystem = RATING_SYSTEM,
) -> None:
    from mallows.cli.tables import print_table

    print_table(
        title,
        _headers(places, system),
        _cells(rows, places, system),
        right=[c.key != "bot" for c in system.columns],
        caption=_note(system),
    )


def _places(store: Store, scope: str, name: str) -> dict:
    from mallows.results.stats import place_stats

    if scope == "tournament":
        return place_stats(store.results(tournament=name))
    return place_stats(store.results(game=name))


def _json_row(r: dict, system: RatingSystem = RATING_SYSTEM) -> dict:
    """One row of ``ratings --format json`` (keys kept stable for scripts)."""
    return {
        "rank": r["rank"],
        "bot": r["bot"],
        **{k: r[k] for k in system.stored},
        "matches": r["games"],
        "games": r["games"],
        "wins": r["wins"],
        "mean_place": r["mean_place"],
        "game": r["game"],
        "scope": r["scope"],
        "name": r["name"],
    }


def _csv_cell(value: object) -> str:
    return f"{value:.6f}" if isinstance(value, float) else str(value)


def _markdown(
    title: str, rows: list[dict], places: dict | None = None, system: RatingSystem = RATING_SYSTEM
) -> str:
    lines = [
        f"### {title}",
        "",
        "| " + " | ".join(_headers(places, system)) + " |",
        "|" + "|".join("---:" if c.key != "bot" else "---" for c in system.columns) + "|",
    ]
    lines += ["| " + " | ".join(cells) + " |" for cells in _cells(rows, places, system)]
    if _note(system):
        lines += ["", MU_NOTE]
    return "\n".join(lines) + "\n"


def _interval(places: dict, bot: str) -> list[float] | None:
    stats = places.get(bot)
    return list(stats.interval) if stats is not None and stats.interval is not None else None


def _print_boards(
    boards: list[tuple[str, list[dict], dict]], fmt: str, system: RatingSystem = RATING_SYSTEM
) -> None:
    """``boards``: (title, rows, places: bot -> PlaceStats), rows of ``system``."""
    if fmt == "json":
        typer.echo(
            json.dumps(
                [
                    dict(_json_row(r, system), mean_place_95=_interval(places, r["bot"]))
                    for _, rows, places in boards
                    for r in rows
                ],
                indent=2,
            )
        )
    elif fmt == "csv":
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        shown = [c for c in system.columns if c.csv]
        w.writerow(
            ["scope", "name"] + [c.csv for c in shown] + ["mean_place_low", "mean_place_high"]
        )
        for _, rows, places in boards:
            for r in rows:
                low_high = _interval(places, r["bot"])
                w.writerow(
                    [r["scope"], r["name"]]
                    + [_csv_cell(r[c.key]) for c in shown]
                    + ([f"{v:.6f}" for v in low_high] if low_high else ["", ""])
                )
        sys.stdout.write(out.getvalue())
    elif fmt == "markdown":
        typer.echo(
            "\n".join(_markdown(title, rows, places, system) for title, rows, places in boards),
            nl=False,
        )
    else:
        for title, rows, places in boards:
            _print_board(title, rows, places, system)


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise MallowsError(
            f"--format {fmt!r} is not one of {', '.join(FORMATS)}: e.g. --format json"
        )
    return fmt


def _fitted(store: Store, rating: RatingSystem, scope: str, name: str, humans: bool) -> list[dict]:
    """Board ``scope`` ``name`` rated by ``rating`` from the stored results, in memory (its
    default parameters: a tournament file's [ratings] are TrueSkill's)."""
    from mallows.results.leaderboard import played_dicts

    if scope == "tournament":
        row = store.tournament(name) or {}
        results, game = store.results(tournament=name), row.get("game", name)
    else:
        results, game = store.results(game=name, humans=humans), name
    return played_dicts(
        [
            dict(rating.row_dict(r), scope=scope, name=name, game=game, updated=None)
            for r in rating.leaderboard(results)
        ]
    )


def _board(store: Store, scope: str, name: str) -> list[dict]:
    from mallows.tournaments.run import board

    return board(store, scope, name)


# -- tournament run -----------------------------------------------------------------------------


@tournament_app.command("run")
@user_errors
def run(
    file: Path = typer.Argument(..., help="Tournament file (TOML), e.g. tournaments/demo.toml"),
    db: Path = db_option(),
    workers: Optional[int] = workers_option(),
    address: Optional[str] = address_option(),
    batch_size: Optional[int] = typer.Option(
        None, "--batch-size", help="Matches per Ray task (default: automatic)."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    sandbox: Optional[str] = sandbox_option(),
    key: Optional[str] = typer.Option(
        None,
        "--key",
        help="The tournament's secret key (hex), e.g. one revealed by "
        "mallows tournament show --reveal-key: a new database then plays the very matches of "
        "the published one. Default: a fresh key, kept in --db.",
    ),
) -> None:
    """Play every match of FILE not yet stored in --db, then print the rating table."""
    from mallows.cli.common import resolver_for, sandbox_mode
    from mallows.cli.signals import termination_as_interrupt
    from mallows.tournaments.lock import run_lock
    from mallows.tournaments.format import get_format

    from mallows.runner.executor import check_executor_options

    t = _load(file)  # pure: reads and validates the file (its `format`: the registry's)
    check_executor_options(workers, address)  # also when nothing is left to play
    mode = sandbox_mode(sandbox) if sandbox is not None else None
    if batch_size is not None and batch_size < 1:
        raise MallowsError(f"--batch-size must be 1 or more, got {batch_size}")
    from mallows.tournaments.secrecy import parse_key

    given = parse_key(key) if key is not None else None
    if any(BotName.parse(b, strict=False).plain == "human" for b in t.bots):  # a human league
        if workers not in (None, 1) or address is not None:
            raise MallowsError(
                "a human seat plays at this terminal: run the tournament with "
                "--workers 1 and no --address"
            )
        workers, quiet = 1, True  # in this process; no progress bar over the prompts
    # the plan's check step, before a new database is created: the file may name submitted
    # versions (NAME@N), which live in an existing database; a file with mistakes is refused
    with resolver_for(db) as resolver:
        t = get_format(t.kind).check(t, resolver, mode)
        from mallows.tournaments.format import idle_parameters

        for warning in idle_parameters(t.bots, t.game, resolver):
            typer.echo(f"warning: {warning}", err=True)
    # one writer per tournament (a second run is refused); SIGTERM and SIGHUP act as Ctrl-C
    with run_lock(db, t.name), termination_as_interrupt() as reinstall:
        try:
            _run(t, db, workers, address, batch_size, quiet, reinstall, resolver, given)
        except KeyboardInterrupt as exc:  # before the run loop (timing one, Ray starting):
            from mallows.cli.signals import exit_status, interrupted  # Typer's own handler

            typer.echo(
                f"{interrupted(exc)} before this run played a match: nothing was lost; "
                f"rerun the same command",
                err=True,
            )  # would exit 130 in silence
            raise typer.Exit(exit_status(exc))


def _isolation_line(t: Spec) -> str | None:
    """What isolation the sandboxed bots of ``t`` get here and what is missing, in one line
    (``sandbox.isolation``); None when none of its bots runs in a sandbox."""
    if (t.limits or {}).get("sandbox", "on") == "off":
        return None
    from mallows.agents.registry import parse_name, trusted_shipped

    trusted = set(trusted_shipped())
    if all(parse_name(b)[0] in trusted or b == "human" for b in t.written_names):
        return None
    from mallows.agents import sandbox

    return sandbox.isolation()


def _load(file: Path) -> Any:
    """The file's spec: a round robin's, or that of the format its `format` key names
    (``tournaments.format.FORMATS``) when that format reads files (``FORMAT.load``)."""
    import tomllib

    from mallows.tournaments.format import FORMATS, get_format
    from mallows.tournaments.roundrobin.spec import load_tournament

    from mallows.errors import MallowsError as Unreadable
    from mallows.files import read_text

    try:  # regular files only (a FIFO is refused, never read): load_tournament names why
        text = read_text(file, "tournament file", "give the path of a tournament file")
        kind = tomllib.loads(text).get("format")
    except (Unreadable, tomllib.TOMLDecodeError, RecursionError):
        kind = None
    if not isinstance(kind, str):
        return load_tournament(file)
    load = getattr(get_format(kind), "load", None) if kind in FORMATS else None
    if load is None:
        readable = sorted(k for k in FORMATS if hasattr(get_format(k), "load"))
        raise MallowsError(
            f"{file}: `format = {kind!r}` is not a format `mallows tournament run` plays: "
            f"write one of {', '.join(readable)}, or leave `format` out for a round robin"
        )
    return load(str(file))


def _run(
    t: Any,  # a file's spec (``_load``): a ``Spec``, a round robin's or a Swiss one's
    db: Path,
    workers: int | None,
    address: str | None,
    batch_size: int | None,
    quiet: bool,
    reinstall: Callable[[], None],
    resolver: Resolver,
    key: bytes | None = None,
) -> None:
    from mallows.cli.signals import raise_swallowed
    from mallows.runner.executor import cluster_address, make_executor
    from mallows.tournaments.plan import prepare
    from mallows.tournaments.format import EpochFormat
    from mallows.tournaments.run import LARGE_RUN, check_free_space, estimate, execute, run_epochs

    from mallows.tournaments.secrecy import commitment, untrusted_seed_warning

    store = Store(db)
    new = store.tournament(t.name) is None
    # registered and pinned once: a changed definition, or changed bot code, is refused
    # before Ray starts; its seed derivation and secret key settled (tournaments.secrecy)
    plan = prepare(t, store, resolver.using(store), key=key)
    t = plan.run
    console = Console(stderr=True)
    warning = untrusted_seed_warning(t)
    if warning and new:
        console.print(Text(warning, style="yellow"), soft_wrap=True)
    promise = commitment(store, t.name)
    if promise and new:  # publish it now, reveal the key after: nobody chose the deals
        console.print(
            Text(
                f"{t.name}: secret key commitment {promise} (mallows tournament "
                f"show {t.name} --reveal-key prints the key once it is finished)"
            ),
            soft_wrap=True,
            highlight=False,
        )
    line = _isolation_line(t) if plan.total > store.count_matches(t.name) else None
    if line:
        console.print(Text(line), soft_wrap=True, highlight=False)
    from mallows.tournaments.seating import SCHEDULE_VERSION

    if getattr(t, "schedule", SCHEDULE_VERSION) != SCHEDULE_VERSION and not t.schedule_given:
        console.print(
            f"{t.name} was started under schedule version {t.schedule} (every deal in "
            f"the rotations of the file's bot order) and resumes under it; new "
            f"tournaments get version {SCHEDULE_VERSION}, balanced seat orders",
            soft_wrap=True,
            highlight=False,
        )
    check_free_space(plan, store, db)  # before the timing match: a run that cannot fit is refused
    epochs = isinstance(plan.format, EpochFormat)  # rounds planned one after another
    total = t.match_count() if epochs else plan.total
    remaining = total - store.count_matches(t.name)
    guess = None
    if remaining >= LARGE_RUN:
        with console.status(f"{remaining:,} matches to play: timing one..."):
            guess = estimate(plan, store)
    if remaining == 0:
        executor = make_executor(1, None)
    else:
        joining = cluster_address(address)
        if joining and not quiet:  # a join can take a while to fail: say so at once
            console.print(
                f"connecting to the Ray cluster at {joining} ...", highlight=False, markup=False
            )
        with console.status("starting the executor..."):
            executor = make_executor(
                workers, address, batch_size, snapshots=plan.roster.snapshots()
            )
        reinstall()  # Ray sets its own SIGTERM handler
    if guess is not None:
        console.print(guess.describe(executor.workers, db))
    from mallows.cli.progress import FittedProgress, Meter, PlainProgress, eta_text

    live = console.is_terminal and not quiet and remaining > 0
    # one line fitted to the terminal: the count always whole (see cli/progress.py)
    progress = FittedProgress(console=console, disable=not live, refresh_per_second=4)
    state: dict = {"task": None, "meter": None, "plain": None, "rater": None}

    def on_start(total: int, already: int) -> None:
        state["meter"] = meter = Meter(total, already)
        state["task"] = progress.add_task(
            t.name, total=total, completed=already, rate="", eta="-:--:--", leader="-"
        )
        if not live and not quiet and remaining > 0:  # a log or a pipe: a plain line now and then
            state["plain"] = PlainProgress(t.name, meter, sys.stderr)

    def on_outcome(outcome: Outcome, spec: MatchSpec, rater: LiveRatings) -> None:
        raise_swallowed()  # a signal a finaliser swallowed stops the run here
        meter = state["meter"]
        meter.add()
        state["rater"] = rater
        if state["plain"] is not None:
            state["plain"].update(lambda: _leader_text(rater))
            return
        rate = meter.rate()
        fields: dict[str, Any] = {
            "rate": f"{rate:.1f} matches/s" if rate else "",
            "eta": eta_text(meter.eta()),
        }
        now = time.perf_counter()
        if now - state.get("last", 0.0) >= 1.0:
            state["last"] = now
            fields["leader"] = markup_escape(_leader_text(rater))  # a rich markup field
        progress.update(state["task"], advance=1, **fields)

    try:
        with executor, progress:
            if epochs:
                on_start(total, store.count_matches(t.name))
                summary = run_epochs(plan, store, executor, on_outcome=on_outcome)
            else:
                summary = execute(plan, store, executor, on_start=on_start, on_outcome=on_outcome)
        if state["plain"] is not None and state["rater"] is not None:  # the run's last line
            state["plain"].finish(lambda: _leader_text(state["rater"]))
    except KeyboardInterrupt as exc:
        from mallows.cli.signals import exit_status, interrupted

        console.print(
            f"{interrupted(exc)}: {store.count_matches(t.name)} of {total} "
            f"matches are stored in {db}; rerun the same command to resume"
        )
        raise typer.Exit(exit_status(exc))
    out = Console()
    lost = getattr(executor, "lost_batches", 0)
    if lost:
        out.print(
            f"{lost} batch{'es' if lost != 1 else ''} lost with {'their' if lost != 1 else 'its'}"
            f" worker {'were' if lost != 1 else 'was'} run again"
        )
    rows = _board(store, "tournament", t.name)
    _print_board(
        f"{t.name} · {t.game} · {total} matches", rows, _places(store, "tournament", t.name)
    )
    rate = summary.played / summary.wall if summary.wall > 0 else 0.0
    out.print(
        f"played {summary.played} matches ({summary.already} already stored) in "
        f"{summary.wall:.1f} s on {summary.executor}: {rate:.1f} matches/s. "
        f"Head-to-head: mallows tournament show {t.name}"
        + (f" --db {db}" if Path(db) != DEFAULT_DB else ""),
        soft_wrap=True,
    )


def _leader_text(rater: LiveRatings) -> str:
    best = rater.leader()
    return f"{escape(best[0])} ({best[1]:.1f})" if best else "-"  # a name, shown as text


# -- tournament list / show -------------------------------------------------------------------


@tournament_app.command("list")
@user_errors
def list_(db: Path = db_option()) -> None:
    """The tournaments in --db, with how many of their matches are stored."""
    from mallows.cli.tables import print_table

    store = _open_readonly(db)
    rows = []
    for r in store.tournaments():
        status = "finished" if r["done"] == r["total"] else "incomplete (rerun to resume)"
        rows.append(
            [
                r["name"],
                r["game"],
                f"{r['done']}/{r['total']}",
                status,
                r["created"],
                r["file"] or "",
            ]
        )
    print_table(
        f"tournaments in {db}",
        ["name", "game", "matches", "status", "created", "file"],
        rows,
        right=[False, False, True, False, False, False],
    )


@tournament_app.command("show")
@user_errors
def show(
    name: str = typer.Argument(..., help="Tournament name (see mallows tournament list)."),
    db: Path = db_option(),
    reveal_key: bool = typer.Option(
        False,
        "--reveal-key",
        help="Print the tournament's secret "
        "key (only once every match is played), so anyone can "
        "check it against the commitment and recompute the seeds.",
    ),
) -> None:
    """A tournament's definition, leaderboard and head-to-head table."""
    from mallows.results.ratings import head_to_head
    from mallows.results.stats import place_stats

    store = _open_readonly(db)
    row = store.tournament(name)
    if row is None:
        known = ", ".join(r["name"] for r in store.tournaments()) or "none"
        raise MallowsError(
            f"no tournament {name!r} in {db} (tournaments: {known}): check the "
            f"name with mallows tournament list"
        )
    definition = json.loads(row["definition"])
    console = Console()
    done = store.count_matches(name)
    console.print(
        f"[bold]{name}[/bold] · {row['game']}"
        + (f" ({definition.get('rules')})" if definition.get("rules") else "")
        + f" · {definition['players']} players · {definition['deals']} deals · seed "
        f"{definition['seed']} · schedule {definition.get('schedule', 1)} · "
        f"{done}/{row['total']} matches"
        + ("" if done == row["total"] else " (incomplete: rerun to resume)"),
        soft_wrap=True,
    )
    _print_chance(console, store, name, definition, done == row["total"], reveal_key)
    if definition.get("kind") == "compare":  # mallows compare: its verdict first
        from mallows.tournaments.compare.run import stored_test, verdict_text

        console.print(verdict_text(*stored_test(store, name)), soft_wrap=True)
    if definition.get("options"):
        console.print("options: " + ", ".join(f"{k}={v}" for k, v in definition["options"].items()))
    if (definition.get("limits") or {}).get("sandbox") == "off":
        console.print(
            "[bold yellow]sandbox: off[/bold yellow] · the bots that are not shipped "
            "ran with process isolation only, without their bubblewrap sandbox"
        )
    from mallows.cli.tables import print_table
    from mallows.report.data import short_bot

    pins = store.pins(name)
    if pins:  # the code each bot runs, fixed at the first run (tournaments.pinning)
        console.print(
            "code: " + ", ".join(f"{p['display']} {p['digest'][:12]}" for p in pins),
            soft_wrap=True,
            highlight=False,
        )
    leaders = _board(store, "tournament", name)
    with store.snapshot():  # two streamed passes over one state of the file
        places = place_stats(store.results(tournament=name))
        h2h = head_to_head(store.results(tournament=name))
    _print_board("leaderboard", leaders, places)
    bots = [r["bot"] for r in leaders]
    rows = []
    for k, a in enumerate(bots, 1):
        cells = []
        for b in bots:
            h = h2h.get(a, {}).get(b)
            cells.append(
                ""
                if a == b
                else ("-" if h is None else f"{h.mean_place:.2f} {h.ahead:.0%} n={h.matches}")
            )
        rows.append([str(k), short_bot(a), *cells])
    # columns named by bot (a table wider than the terminal is printed in blocks of columns)
    print_table(
        "head-to-head",
        ["#", "bot"] + [f"vs {short_bot(b)}" for b in bots],
        rows,
        right=[True, False] + [True] * len(bots),
        caption="cell: the row bot's mean place (1 = first) in the n matches it shared "
        "with the column bot, and the share of them it finished ahead of it",
    )
    _print_seats(store, name, definition, bots)
    ids = store.match_ids(name, 1)
    if ids:
        console.print(
            f"replay a match: mallows replay {ids[0]}"
            + (f" --db {db}" if Path(db) != DEFAULT_DB else ""),
            soft_wrap=True,
        )


def _print_chance(
    console: Console, store: Store, name: str, definition: dict, finished: bool, reveal: bool
) -> None:
    """How the tournament's hidden numbers derive, its key's commitment, and (``reveal``,
    once finished) the key itself."""
    from mallows import seeding
    from mallows.tournaments.secrecy import commitment

    derivation = definition.get("chance", seeding.LEGACY)
    promise = commitment(store, name)
    if derivation == seeding.LEGACY:
        text = (
            "seeds: derivation 1 (unkeyed, stored before secret keys: anyone who knows the "
            "seed can compute the deals and the bots' seeds)"
        )
    else:
        text = (
            f"seeds: derivation {derivation}, bots' seeds keyed with a secret"
            + (
                "; deals keyed too (secret = true)"
                if definition.get("secret")
                else "; deals keyed too"
                if definition.get("kind") == "compare"
                else ""
            )
            + ("; seed drawn from the OS" if definition.get("drawn_seed") else "")
        )
        if promise:
            text += f"; key commitment {promise}"
    console.print(Text(text), soft_wrap=True, highlight=False)
    if reveal:
        key = store.chance_key(name)
        if key is None:
            raise MallowsError(
                f"{name} has no secret key (derivation 1): there is nothing to reveal"
            )
        if not finished:
            raise MallowsError(
                f"{name} is not finished: its key stays secret until every "
                f"match is played (revealing it now would let authors compute "
                f"the rest); rerun the tournament to finish it first"
            )
        console.print(Text(f"secret key: {key.hex()}"), soft_wrap=True, highlight=False)


def _print_seats(store: Store, name: str, definition: dict, bots: list[str]) -> None:
    """Each bot's mean place by seat, and the seat effect: every bot's place by seat, the deal
    as the unit (``mallows.results.seats``)."""
    from mallows.cli.tables import print_table
    from mallows.report.data import short_bot
    from mallows.results.seats import deal_of, seat_effects
    from mallows.results.stats import seat_stats

    with store.snapshot():  # two streamed passes over one state of the file
        indexed = store.indexed_results(name)
        effects = seat_effects(
            ((deal_of(definition, i), p, r) for i, p, r in indexed), grouped=True
        )  # by index: a deal's matches come together, held one deal at a time
        by_bot = seat_stats((p, r) for _, p, r in store.indexed_results(name))
    if not effects:
        return
    k = max(effects)
    rows = []
    for b in bots:
        seats = by_bot.get(b, {})
        rows.append(
            [short_bot(b)]
            + [(cell.text() if (cell := seats.get(s)) is not None else "-") for s in range(k)]
        )
    effect = effects[k]
    rows.append(["every bot"] + [cell.text() for cell in effect.seats])
    spread = effect.spread
    print_table(
        "mean place by seat",
        ["bot"] + [f"seat {s}" for s in range(k)],
        rows,
        caption=(
            f"1 = first, ± its 95% interval; the last row is the seat effect of "
            f"{definition.get('game')} at {k} seats: every bot's mean place from "
            f"each seat over {effect.deals:,} deals (the deal as the unit); "
            f"spread {spread:.2f} places"
            if spread is not None
            else None
        ),
    )


# -- ratings ----------------------------------------------------------------------------------


@user_errors
def ratings(
    db: Path = db_option(),
    game: Optional[str] = typer.Option(
        None, "--game", help="One game's leaderboard over all its tournaments."
    ),
    tournament: Optional[str] = typer.Option(None, "--tournament", help="One tournament's."),
    format: str = typer.Option("table", "--format", help="table, csv, json or markdown."),
    latest: bool = typer.Option(
        False,
        "--latest",
        help="Only each submitted bot's newest version (NAME@N with the highest N).",
    ),
    humans: bool = typer.Option(
        False,
        "--humans",
        help="Game leaderboards with the matches "
        "people played (human seats) too; by default they are the "
        "bots'.",
    ),
    rating: str = typer.Option(
        "trueskill",
        "--system",
        help="The rating system: trueskill (online, in schedule order: the stored tables, "
        "sorted by mu - 3 sigma) or plackett-luce (every match at once, in any order, with "
        "rating and rank intervals).",
    ),
) -> None:
    """Leaderboards sorted by mu - 3 sigma (or, with --system plackett-luce, by the
    whole-history rating): per game (default: every game) or per tournament."""
    fmt = _check_format(format)
    try:
        chosen = system(rating)
    except ValueError as exc:
        raise MallowsError(f"--system {rating!r}: {exc}") from None
    store = _open_readonly(db)
    stored = chosen is RATING_SYSTEM  # the stored tables; another system is fitted here
    suffix = "" if stored else f" · {chosen.name}"
    boards: list[tuple[str, list[dict], dict]] = []
    if tournament is not None:
        row = store.tournament(tournament)
        if row is None:
            known = ", ".join(r["name"] for r in store.tournaments()) or "none"
            raise MallowsError(f"no tournament {tournament!r} in {db} (tournaments: {known})")
        if game is not None and game != row["game"]:
            raise MallowsError(
                f"tournament {tournament!r} is {row['game']}, not {game}: drop --game or change it"
            )
        boards.append(
            (
                f"{tournament} ({row['game']}){suffix}",
                _board(store, "tournament", tournament)
                if stored
                else _fitted(store, chosen, "tournament", tournament, False),
                _places(store, "tournament", tournament),
            )
        )
    else:
        games = store.games()
        if game is not None:
            if game not in games:
                raise MallowsError(
                    f"no {game!r} tournaments in {db} (games: "
                    f"{', '.join(games) or 'none'}): check --game"
                )
            games = [game]
        for g in games:
            if humans:  # people's matches counted too: computed here, never stored
                from mallows.results.stats import place_stats
                from mallows.tournaments.run import game_board_with_humans

                boards.append(
                    (
                        f"{g} (all tournaments, people too){suffix}",
                        game_board_with_humans(store, g)
                        if stored
                        else _fitted(store, chosen, "game", g, True),
                        place_stats(store.results(game=g, humans=True)),
                    )
                )
                continue
            boards.append(
                (
                    f"{g} (all tournaments){suffix}",
                    _board(store, "game", g)
                    if stored
                    else _fitted(store, chosen, "game", g, False),
                    _places(store, "game", g),
                )
            )
    if latest:
        from mallows.agents.submissions import newest_versions

        boards = [
            (title + ", newest versions", newest_versions(rows), places)
            for title, rows, places in boards
        ]
    _print_boards(boards, fmt, chosen)


# -- replay -----------------------------------------------------------------------------------


@user_errors
def replay(
    match: str = typer.Argument(
        ...,
        help="Match id, <tournament>/<index> (e.g. demo/0), or a "
        "record file (JSON, e.g. from mallows play --record).",
    ),
    db: Path = db_option(),
    seat: Optional[int] = typer.Option(
        None, "--seat", help="Show only what this seat saw (default: every card's value)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the match record (JSON)."),
) -> None:
    """Print a match turn by turn, every card's value shown (or its record with --json)."""
    from mallows.report.frames import ReplayMismatch
    from mallows.report.text import replay_text

    match_id, record = _load_record(match, db)
    if as_json:
        typer.echo(json.dumps(record, indent=1))
        return
    from mallows.games.describe import replay_lines

    try:
        lines = replay_text(match_id, record, seat)
    except ReplayMismatch as exc:  # still told, event by event, without the table
        if seat is not None:
            raise MallowsError(f"--seat needs a record that replays: {exc}") from None
        lines = [f"note: {exc}; the events as recorded:"] + replay_lines(match_id, record)
    for line in lines:  # names and reasons from bots: their control characters shown
        typer.echo(escape(line))


def _load_record(match: str, db: Path) -> tuple[str, dict]:
    """(label, record) for a match id in --db or a record file."""
    from mallows.files import exists, read_bytes

    path = Path(match)
    if exists(path) or match.endswith(".json"):
        fix = "give a record file or a match id such as demo/0"
        from mallows.runner.record_format import parse_record

        text = read_bytes(path, "record file", fix)  # a FIFO, a device or a folder refused
        # checked against the record format: the first thing wrong is named, nothing below
        # meets a value of the wrong type
        return path.name, parse_record(text, match)
    store = _open_readonly(db)
    row = store.match(match)
    if row is None:
        name = match.rsplit("/", 1)[0]
        hint = ", ".join(store.match_ids(name, 3)) if store.tournament(name) else ""
        raise MallowsError(
            f"no match {match!r} in {db}: ids are <tournament>/<index>"
            + (f", e.g. {hint}" if hint else "; see mallows tournament list")
        )
    try:
        return match, json.loads(row["record"])
    except (TypeError, ValueError) as exc:
        raise MallowsError(
            f"match {match} in {db} has a damaged record ({exc}): restore the "
            f"file from a copy (mallows db check --db {db} lists what is "
            f"damaged)"
        ) from None


@user_errors
def export(
    db: Path = db_option(),
    tournament: Optional[str] = typer.Option(
        None, "--tournament", help="One tournament's matches (default: all)."
    ),
    trajectories: bool = typer.Option(
        False,
        "--trajectories",
        help="One line per decision "
        "instead, for offline learning: the seat's observation "
        "as its encoder's vector, the legal-action mask, the "
        "action numbers, the reward (docs/play-and-train.md).",
    ),
) -> None:
    """Every stored match as JSON lines (one object per match, in schedule order): its place
    in the schedule, players, ranks, forfeits, seed and the full record, for other tools."""
    store = _open_readonly(db)
    if tournament is not None and store.tournament(tournament) is None:
        known = ", ".join(r["name"] for r in store.tournaments()) or "none"
        raise MallowsError(
            f"no tournament {tournament!r} in {db} (tournaments: {known}): "
            f"check the name with mallows tournament list"
        )
    out = sys.stdout
    for row in store.export(tournament):
        if trajectories:
            from mallows.interop.trajectories import trajectory_rows

            for step in trajectory_rows(row["id"], json.loads(row["record"])):
                out.write(json.dumps(step, separators=(",", ":")) + "\n")
            continue
        line = {
            "id": row["id"],
            "tournament": row["tournament"],
            "index": row["idx"],
            "game": row["game"],
            "table": row["tbl"],
            "rotation": row["rotation"],
            "deal": row["deal"],
            "seed": row["seed"],
            "players": json.loads(row["players"]),
            "ranks": json.loads(row["ranks"]),
            "forfeits": row["forfeits"],
            "seconds": row["seconds"],
            "finished_at": row["finished_at"],
        }
        # the record as stored (compact JSON, checked against its digest), spliced in rather
        # than parsed and written again: a record costs its text once, not its objects
        head = json.dumps(line, separators=(",", ":"))
        out.write(head[:-1] + ',"record":' + row["record"] + "}\n")
