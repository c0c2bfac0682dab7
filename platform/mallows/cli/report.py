"""``mallows report`` (a static HTML site) and ``mallows serve`` (the same pages, live).

Only arguments and printing here: the pages are ``mallows.report.site``, the server
``mallows.server``.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Optional

import typer

from mallows.cli.common import address_option, db_option, user_errors, workers_option
from mallows.errors import MallowsError


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("serve")(serve)


def check_out_folder(out: Path) -> None:
    """Refuse an ``-o`` the site cannot be written to, before any page is rendered: a path
    under a file, a place where no folder can be made or written (a read-only or system file
    system, no permission). Makes the missing parent folders; ``out`` itself is left to the
    writer."""
    from mallows.files import check_folder
    from mallows.report.publish import beside

    out = Path(out)
    check_folder(out, "-o", "give a folder for the site (e.g. -o report)")
    existing = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        raise MallowsError(
            f"-o {out}: {existing} is a file, not a folder: give a folder for "
            f"the site (e.g. -o report)"
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        # named as the report's other folders beside OUT (``report.publish``): a report killed
        # between these two calls leaves one the next report to OUT removes
        probe = beside(out, "probe")
        if probe.is_dir():  # a killed report's of the same pid
            probe.rmdir()
        probe.mkdir()
        probe.rmdir()
    except OSError as exc:
        raise MallowsError(
            f"-o {out}: cannot write a folder in {out.parent} "
            f"({exc.strerror or exc}): give a folder you can write to "
            f"(e.g. -o report)"
        ) from None


@user_errors
def report(
    out: Path = typer.Option(
        ..., "-o", "--out", help="Folder to write the site into (created; open its index.html)."
    ),
    db: Path = db_option(),
    tournament: Optional[str] = typer.Option(None, "--tournament", help="Only this tournament."),
    game: Optional[str] = typer.Option(None, "--game", help="Only this game's tournaments."),
    replay_pages: bool = typer.Option(
        False,
        "--replay-pages",
        help="A replay page of its own "
        "per match (m/TOURNAMENT/INDEX.html, as mallows serve "
        "has them) instead of one replay page per tournament "
        "reading compressed data files: over ten times bigger.",
    ),
) -> None:
    """Write a static HTML report: leaderboards, head-to-head, rating progression, a page per
    bot and a replay per match. It opens from the file system and works offline.

    Replays: one page per tournament, reading its matches from a few compressed data files
    beside it (--replay-pages: a page per match instead)."""
    from mallows.files import check_name
    from mallows.report.site import Site
    from mallows.server.pages import ladder_views, open_store
    from mallows.tournaments.compare.run import stored_test

    check_name(out, "-o", "give a folder for the site (e.g. -o report)")  # before the database
    t0 = time.perf_counter()
    site = Site(
        open_store(db),
        tournament=tournament,
        game=game,
        replay_data=not replay_pages,
        ladders=ladder_views(),
        comparisons=stored_test,
    )
    check_out_folder(out)
    try:
        count = site.write(out)
    except OSError as exc:  # e.g. the disk filled up while writing
        raise MallowsError(
            f"cannot write the report to {out}: {exc.strerror or exc} "
            f"({exc.filename or out}): free some space or give another -o"
        ) from None
    typer.echo(
        f"wrote {count} files to {out} in {time.perf_counter() - t0:.1f} s: open "
        f"{Path(out) / 'index.html'}"
    )


MAX_CHECK_WORKERS = 64  # checks of submitted bots at once: far beyond a machine's sandboxes
MAX_REFRESH = 86_400  # a day: the longest wait between reloads ``serve --refresh`` takes
MAX_QUOTA_VERSIONS = 100_000  # versions an account may store a day: beyond any real author


@user_errors
def serve(
    db: Path = db_option(),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help="Address to listen on (default: this "
        "machine only; ::1 for IPv6; another address needs --public).",
    ),
    port: int = typer.Option(8000, "--port", help="Port, 1 to 65535 (0: any free port)."),
    public: bool = typer.Option(
        False,
        "--public",
        help="Allow a --host beyond this machine "
        "(e.g. 0.0.0.0): the pages carry no authentication (every write then needs an "
        "account's token).",
    ),
    public_name: Optional[str] = typer.Option(
        None,
        "--public-name",
        help="The name the server is reached by from other machines (e.g. mallows.example.org):"
        " requests naming any other host than it and this machine's loopback names are refused.",
    ),
    ladder: Optional[str] = typer.Option(
        None,
        "--ladder",
        help="The ladder of --db this server hosts and plays while it runs (as mallows ladder "
        "resume NAME --follow would, resuming after a restart): a bot submitted over HTTP "
        "(POST /api/bots) enters it once it passed its check.",
    ),
    workers: Optional[int] = workers_option(),
    address: Optional[str] = address_option(),
    check_workers: int = typer.Option(
        1,
        "--check-workers",
        help="Checks of submitted bots run at once. They share --workers with the hosted "
        "ladder: the checks get these, the ladder's matches the rest (at least 1); with "
        "--address the ladder plays on the cluster.",
    ),
    check_games: int = typer.Option(
        5, "--check-games", help="Check matches per game of a bot submitted over HTTP."
    ),
    refresh: int = typer.Option(
        5,
        "--refresh",
        help="Seconds between checks for new results: a running tournament's pages update "
        "themselves then.",
    ),
    rate_limit: list[str] = typer.Option(
        [],
        "--rate-limit",
        help="WHAT:BY=RATE, repeatable: submit, sign-in (refused tokens) or play, by account "
        "or address, e.g. submit:account=10/hour or play:address=off. Defaults: submit 10/hour "
        "an account, 60/hour an address; sign-in 10/minute, 30/minute; play 30/hour each.",
    ),
    quota_versions: int = typer.Option(
        20, "--quota-versions", help="Versions an account's bots may store in 24 hours."
    ),
    quota_bytes: str = typer.Option(
        "50MiB",
        "--quota-bytes",
        help="Bytes (unpacked) an account's versions not withdrawn may hold, e.g. 50MiB.",
    ),
    access_log: bool = typer.Option(
        False,
        "--access-log",
        help="Print a line per request on stderr (address, path, status; never a token).",
    ),
    per_address: int = typer.Option(
        64,
        "--connections-per-address",
        help="Connections one address other than loopback may keep open at once (a browser "
        "opens about 6); raise it behind a reverse proxy on another host, whose address every "
        "client then has.",
    ),
) -> None:
    """Serve the report's pages live from the database: a running tournament's or ladder's
    pages update themselves as matches are stored. The pages only read the database; the play
    page (loopback only) stores the matches played on it."""
    from mallows.server import run

    from mallows.cli.bots import MAX_CHECK_GAMES
    from mallows.runner.executor import check_executor_options

    check_executor_options(workers, address)
    if ladder is None and (workers is not None or address is not None):
        raise MallowsError(
            "--workers and --address are the hosted ladder's: give --ladder NAME too (the "
            "ladder of --db this server plays)"
        )

    if not 1 <= check_workers <= MAX_CHECK_WORKERS:
        raise MallowsError(f"--check-workers {check_workers}: give 1 to {MAX_CHECK_WORKERS}")
    if not 1 <= check_games <= MAX_CHECK_GAMES:
        raise MallowsError(f"--check-games {check_games}: give 1 to {MAX_CHECK_GAMES}")
    if not 0 <= refresh <= MAX_REFRESH:  # 0 updates every second, as 1 does
        raise MallowsError(
            f"--refresh {refresh}: give the seconds between checks for new results of a "
            f"running tournament's pages, 1 to {MAX_REFRESH} (default 5)"
        )
    from mallows.server.connections import MAX_PER_ADDRESS
    from mallows.server.throttle import Limits, parse_rate_limits, parse_size

    if not 1 <= per_address <= MAX_PER_ADDRESS:
        raise MallowsError(
            f"--connections-per-address {per_address}: give 1 to {MAX_PER_ADDRESS} (default 64)"
        )

    if not 1 <= quota_versions <= MAX_QUOTA_VERSIONS:
        raise MallowsError(f"--quota-versions {quota_versions}: give 1 to {MAX_QUOTA_VERSIONS}")
    limits = Limits(parse_rate_limits(rate_limit), quota_versions, parse_size(quota_bytes))
    run(
        db,
        host,
        port,
        public,
        refresh,
        echo=typer.echo,
        public_name=public_name,
        ladder=ladder,
        check_workers=check_workers,
        check_games=check_games,
        limits=limits,
        access_log=access_log,
        workers=workers,
        address=address,
        per_address=per_address,
    )
