"""``mallows bots submit|show|withdraw`` and ``mallows tournament delete``.

``submit PATH`` checks a bot exactly as ``bots check`` does (every game it declares, through
isolation), run from the snapshot it is about to store, and stores that snapshot as the next
version ``NAME@N`` (``mallows.agents.submissions``); the same content again is the same
version. ``show NAME`` lists a bot's versions with their digests, check figures and ratings per
game (or, for any other name, where its code is). ``withdraw NAME@N`` keeps a version's
history but keeps it out of new tournaments. ``tournament delete`` removes a tournament and
recomputes its game's leaderboard.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional

import numpy as np
import typer
from rich.table import Table
from rich.text import Text

from mallows.agents import registry
from mallows.agents.protocol import Limits
from mallows.agents.submissions import (
    check_submission_name,
    materialise,
    parse_version,
    read_files,
    short_name,
)
from mallows.botname import BotName
from mallows.cli.common import db_option, sandbox_mode, sandbox_option, user_errors
from mallows.errors import MallowsError
from mallows.files import check_file, check_name, exists
from mallows.safetext import escape
from mallows.seeding import check_seed
from mallows.results.store import Store

if TYPE_CHECKING:
    from rich.console import Console

    from mallows.testing.bots import GameReport


def _open(db: Path) -> Store:
    from mallows.results.integrity import existing_db

    existing_db(
        db, f"no database at {db}: submit a bot or run a tournament first, or pass --db PATH"
    )
    return Store(db)


def _summary(reports: Iterable[GameReport]) -> dict:
    out = {}
    for r in reports:
        times = np.asarray(r.times)
        pct = (
            (lambda q: round(float(np.percentile(times, q)) * 1000, 3))  # noqa: B023 (used
            if len(times)
            else (lambda q: None)
        )  # in this pass only)
        out[r.game] = {
            "matches": r.matches,
            "decisions": r.decisions,
            "forfeits": r.forfeit_total,
            **r.forfeits,
            "p50_ms": pct(50),
            "p99_ms": pct(99),
            "max_ms": pct(100),
        }
    return out


def submit(
    path: Path = typer.Argument(
        ..., help="The bot: a .py file, or a folder with bot.toml or __init__.py."
    ),
    name: Optional[str] = typer.Option(
        None,
        "--name",
        help="Name to submit under (default: the bot's own name, else its file or folder name).",
    ),
    db: Path = db_option(),
    games: int = typer.Option(10, "--games", help="Check matches to play in each game."),
    seed: Optional[int] = typer.Option(
        None,
        help="Repeat a check on this machine (default: a "
        "fresh secret seed, so the check cannot be foreseen).",
    ),
    decision_seconds: float = typer.Option(1.0, help="Time limit per decision in the check."),
    sandbox: str = sandbox_option("on"),
    ladder: Optional[str] = typer.Option(
        None,
        "--ladder",
        help="Then enter NAME@N in this "
        "ladder of --db: it joins at its next epoch, at a "
        "boosted rate until its place is known.",
    ),
    server: Optional[str] = typer.Option(
        None,
        "--server",
        help="Submit to this competition server (e.g. http://host:8000) instead of --db: it "
        "checks the bot in its queue and stores it (needs --token).",
    ),
    token: Optional[str] = typer.Option(
        None,
        "--token",
        envvar="MALLOWS_TOKEN",
        help="Your account's token on --server (or $MALLOWS_TOKEN).",
    ),
) -> None:
    """Check a bot, then store an immutable snapshot of it as NAME@N (printed).

    With --server URL --token T: send it to a competition server, which checks and stores it
    (the position in its queue, then the check's table, are printed)."""
    from mallows.cli.bots import _console, _sandbox_line, print_problem, report_table
    from mallows.testing.bots import choose_games, run_check

    if server is not None or token is not None:
        from mallows.cli.remote import submit_remote

        if not server or not token:
            raise MallowsError(
                "--server and --token go together: give both (mallows users add NAME on the "
                "server makes a token)"
            )
        submit_remote(path, name, server, token)
        return

    from mallows.cli.bots import MAX_CHECK_GAMES

    if not 1 <= games <= MAX_CHECK_GAMES:  # as bots check: a huge count would run for ever
        raise MallowsError(
            f"--games {games}: play at least one match per game, at most {MAX_CHECK_GAMES}"
        )
    limits = Limits.from_dict(
        {"decision_seconds": decision_seconds, "sandbox": sandbox_mode(sandbox)}
    )
    fix = "give the path to your bot's .py file or folder"
    if check_file(path, "bot", fix, folder_ok=True) is None:
        raise MallowsError(f"no file or folder {path}: {fix}")
    what = f"bot {str(path)!r}"
    snap = read_files(path, what, strict=True)  # no hard link, no special file
    found = registry.load_bot(str(path.resolve()), isolate=True)  # checks the manifest
    name = check_submission_name(
        name or BotName.parse(short_name(found), strict=False).plain,
        registry.SHIPPED,
        submitted=path,
    )
    store = Store(db)
    console = _console()
    if ladder is not None:  # before the check: a wrong ladder name costs nothing
        from mallows.tournaments.ladder.run import stored_ladder

        stored_ladder(store, ladder)
    newest = store.newest_digest(name)
    if newest is not None and newest[1] == snap.digest:
        console.print(
            Text(
                f"{name}@{newest[0]} (unchanged: the same content as the newest "
                f"version, digest {snap.digest[:12]})"
            )
        )
        if ladder is not None:
            _enter(store, ladder, f"{name}@{newest[0]}", console)
        typer.echo(f"{name}@{newest[0]}")
        return
    # check the very bytes that will be stored: run from the snapshot, not from PATH
    materialise(snap.digest, snap.files)
    spec = registry.from_snapshot(name, snap.digest, snap.entry, {}, isolate=True)
    chosen = choose_games(spec)  # every game it declares, as bots check
    console.print(
        Text(
            escape(
                f"checking {path} ({spec.kind_label}, {len(snap.files)} "
                f"file(s), {snap.size} bytes, digest {snap.digest[:12]}): "
                f"{games} match(es) per game in {', '.join(chosen)}"
            )
        ),
        highlight=False,
    )
    console.print(Text(_sandbox_line(limits.sandbox)), highlight=False)
    from mallows.testing.bots import check_chance

    if seed is not None:
        check_seed(seed)
    chance, seed = check_chance(seed)
    shown = f"{name}@{(newest[0] if newest else 0) + 1}"  # what it will be stored as
    reports, problems = run_check(spec, chosen, games, seed, limits, chance=chance, shown=shown)
    console.print(report_table(f"{path}", reports))
    if problems:
        print_problem(console, problems[0], len(problems))
        console.print(
            Text(
                "Not submitted: fix the problem (mallows bots check PATH shows it "
                "again) and submit again.",
                style="bold red",
            )
        )
        raise typer.Exit(1)
    manifest = snap.files.get(f"{snap.entry}/bot.toml", b"").decode("utf-8", "replace")
    row = {
        "entry": snap.entry,
        "kind": spec.kind,
        "manifest": manifest,
        "source": str(path.resolve()),
        "bytes": snap.size,
        "files": len(snap.files),
        "check": json.dumps(
            {
                "games": _summary(reports),
                "seed": seed,
                "version": spec.version,
                "sandbox": limits.sandbox,
            }
        ),
    }
    version, new = store.add_submission(name, snap.digest, snap.files, row)
    console.print(
        Text(
            f"OK: passed {games} match(es) per game with no forfeit; stored "
            f"{name}@{version} (digest {snap.digest[:12]})",
            style="bold green",
        )
    )
    if ladder is not None:
        _enter(store, ladder, f"{name}@{version}", console)
    typer.echo(f"{name}@{version}")


def _enter(store: Store, ladder: str, bot: str, console: Console) -> None:
    """``--ladder``: record the join (the ladder checks and pins it at its next epoch)."""
    from mallows.tournaments.ladder.run import join

    try:
        written = join(store, ladder, bot, note="mallows bots submit --ladder")
    except MallowsError as exc:
        if "already" not in str(exc):
            raise
        console.print(Text(f"{bot} is already in ladder {ladder}"), highlight=False)
        return
    console.print(
        Text(
            f"entered {written} in ladder {ladder}: it joins at the ladder's next "
            f"epoch (mallows ladder status {ladder} shows it)"
        ),
        highlight=False,
    )


def _game_rows(store: Store) -> list[dict]:
    from mallows.tournaments.run import board

    return [row for game in store.games() for row in board(store, "game", game)]


def _belongs(bot: str, shown: str) -> bool:
    """``mybot@2:depth=3`` belongs to ``mybot@2``."""
    return BotName.parse(bot, strict=False).plain == shown


def show(
    name: str = typer.Argument(
        ...,
        help="A submitted NAME or NAME@N, a shown name from a "
        "leaderboard, a code digest (8 or more hex digits), "
        "or any bot name.",
    ),
    db: Path = db_option(),
    extract: Optional[Path] = typer.Option(
        None, "--extract", help="Write the version's files into this folder (which must not exist)."
    ),
) -> None:
    """A bot's versions: digest, time, check figures and rating per game; where its code is."""
    from mallows.cli.bots import _console

    console = _console()
    from mallows.results.integrity import present_db

    store = Store(db, readonly=True) if present_db(db) else None
    if store is not None and re.fullmatch(r"[0-9a-f]{8,64}", name):
        digests = store.snapshot_digests(name)
        if len(digests) > 1:
            raise MallowsError(f"{name} starts {len(digests)} stored digests: give more digits")
        if digests:
            _show_digest(store, digests[0], extract, console)
            return
    parsed = BotName.parse(name)
    base = parsed.plain
    at = (parsed.base, parsed.version) if parsed.version is not None else None
    rows = store.submissions(at[0] if at else base) if store is not None else []
    if at is not None:
        rows = [r for r in rows if r["version"] == at[1]]
        if not rows:
            raise MallowsError(
                f"no submitted bot {base!r} in {db}: see mallows bots show {at[0]} --db {db}"
            )
    if rows:
        assert store is not None  # the rows came from it
        ratings = _game_rows(store)
        table = Table(title=f"{rows[0]['name']}: submitted versions")
        for c in ("version", "digest", "submitted", "files", "bytes", "check", "status"):
            table.add_column(c, no_wrap=c in ("version", "digest", "submitted"))
        for r in rows:
            check = json.loads(r["check"] or "{}").get("games", {})
            figures = "; ".join(
                f"{g}: {c['matches']} matches, {c['forfeits']} forfeits, p50 "
                f"{c['p50_ms']} ms, max {c['max_ms']} ms"
                for g, c in check.items()
            )
            table.add_row(
                f"{r['name']}@{r['version']}",
                r["digest"][:16],
                r["created"],
                str(r["files"]),
                str(r["bytes"]),
                figures,
                f"withdrawn {r['withdrawn']}" if r["withdrawn"] else "active",
            )
        console.print(table)
        board = Table(title="ratings per game (all tournaments)")
        for c in ("game", "bot", "rank", "mu", "sigma", "mu-3σ", "matches"):
            board.add_column(c, justify="left" if c in ("game", "bot") else "right")
        for r in rows:
            shown = str(BotName(r["name"], int(r["version"])))
            for x in ratings:
                if _belongs(x["bot"], shown):
                    board.add_row(
                        x["name"],
                        x["bot"],
                        str(x["rank"]),
                        f"{x['mu']:.2f}",
                        f"{x['sigma']:.2f}",
                        f"{x['conservative']:.2f}",
                        str(x["games"]),
                    )
        console.print(board if board.row_count else Text("not rated yet: put it in a tournament"))
        for r in rows:
            console.print(
                Text(
                    escape(
                        f"{r['name']}@{r['version']}: digest {r['digest']}, "
                        f"from {r['source']}, files: "
                        f"{', '.join(store.snapshot_files(r['digest']))}"
                    )
                ),
                soft_wrap=True,
                highlight=False,
            )
        if extract is not None:
            _extract(store, rows[-1]["digest"], extract, console)
        return
    pins = store.pinned(name) if store is not None else []
    if pins:
        assert store is not None  # the pins came from it
        p = pins[0]
        console.print(
            Text(
                escape(
                    f"{name}: pinned by tournament(s) "
                    f"{', '.join(sorted({q['tournament'] for q in pins}))}; written "
                    f"{p['bot']!r}; {p['origin']} bot from {p['source']}; code "
                    f"digest {p['digest']}"
                )
            ),
            soft_wrap=True,
            highlight=False,
        )
        if extract is not None:
            _extract(store, p["digest"], extract, console)
        return
    spec = registry.Resolver(store).load(name)
    console.print(
        Text(
            escape(
                f"{name}: {spec.kind_label}, version {spec.version or '?'}, "
                f"games {', '.join(spec.games) if spec.games else '?'}; from "
                f"{spec.source} ({spec.origin}); not submitted"
                + (f" to {db}" if store is not None else "")
            )
        ),
        soft_wrap=True,
        highlight=False,
    )
    if extract is not None:
        raise MallowsError(
            "--extract writes out a stored snapshot: this bot has none (it is "
            "not submitted, nor pinned by a tournament)"
        )


def _show_digest(store: Store, digest: str, extract: Path | None, console: Console) -> None:
    pins = [p for t in store.tournaments() for p in store.pins(t["name"]) if p["digest"] == digest]
    versions = [f"{r['name']}@{r['version']}" for r in store.submissions() if r["digest"] == digest]
    console.print(
        Text(
            escape(
                f"code {digest}: files {', '.join(store.snapshot_files(digest))}"
                + (f"; submitted as {', '.join(versions)}" if versions else "")
                + (
                    "; pinned as "
                    + ", ".join(
                        f"{p['display']} in {p['tournament']} ({p['source']})" for p in pins
                    )
                    if pins
                    else ""
                )
            )
        ),
        soft_wrap=True,
        highlight=False,
    )
    if extract is not None:
        _extract(store, digest, extract, console)


def _extract(store: Store, digest: str, folder: Path, console: Console) -> None:
    files = store.snapshot_files(digest)
    if not files:
        raise MallowsError(
            f"no stored files for digest {digest[:12]} (a shipped or entry-point "
            f"bot's code is not kept)"
        )
    check_name(folder, "--extract", "give a new folder")
    if exists(folder) or folder.is_symlink():
        raise MallowsError(f"--extract {folder}: it exists; give a new folder")
    for rel, data in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    console.print(Text(f"wrote {len(files)} file(s) to {folder}"), highlight=False)


def withdraw(
    name: str = typer.Argument(..., help="The version to withdraw, NAME@N."),
    db: Path = db_option(),
) -> None:
    """Keep NAME@N's history and ratings, but refuse it in new tournaments."""
    at = parse_version(name)
    if at is None:
        raise MallowsError(
            f"withdraw takes one version, NAME@N (for example {name}@1): see "
            f"the versions with mallows bots show {name}"
        )
    store = _open(db)
    row = store.submission(*at)
    if row is None:
        raise MallowsError(f"no submitted bot {name!r} in {db}: see mallows bots show {at[0]}")
    if row["withdrawn"]:
        typer.echo(f"{name} was already withdrawn ({row['withdrawn']})")
        return
    store.withdraw(*at)
    typer.echo(f"withdrew {name}: its matches and ratings stay; new tournaments refuse it")


def delete(
    name: str = typer.Argument(..., help="Tournament name (see mallows tournament list)."),
    db: Path = db_option(),
    yes: bool = typer.Option(False, "--yes", help="Do not ask for confirmation."),
) -> None:
    """Remove a tournament, its matches and ratings; recompute its game's leaderboard."""
    from mallows.tournaments.lock import run_lock

    store = _open(db)
    row = store.tournament(name)
    if row is None:
        known = ", ".join(r["name"] for r in store.tournaments()) or "none"
        raise MallowsError(f"no tournament {name!r} in {db} (tournaments: {known})")
    # the run lock: a tournament being run is not deleted (the message names the run), and no
    # run starts while it is being deleted
    with run_lock(db, name, doing="delete"):
        _delete(store, db, name, row, yes)


def _delete(store: Store, db: Path, name: str, row: dict, yes: bool) -> None:
    from mallows.tournaments.run import ensure_ratings

    count = store.count_matches(name)
    if not yes and not typer.confirm(
        f"delete tournament {name!r} ({row['game']}, {count} "
        f"stored matches) and its ratings from {db}?"
    ):
        raise typer.Exit(1)
    game = store.delete_tournament(name)
    if game in store.games():  # its matches changed, so the stored board is stale
        ensure_ratings(store, "game", game)
    typer.echo(f"deleted {name} ({count} matches); the {game} leaderboard is recomputed")


def register(app: typer.Typer) -> None:
    from mallows.cli.bots import bots_app
    from mallows.cli.tournament import tournament_app

    bots_app.command("submit")(user_errors(submit))
    bots_app.command("show")(user_errors(show))
    bots_app.command("withdraw")(user_errors(withdraw))
    from mallows.cli import new as _new  # ``bots new``: its own module

    _new.register(bots_app)
    tournament_app.command("delete")(user_errors(delete))
