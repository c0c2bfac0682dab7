"""``mallows report`` (a static HTML site) and ``mallows serve`` (the same pages, live).

Only arguments and printing here: the pages are ``mallows.report.site``.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Optional

import typer

from mallows.cli.common import db_option, user_errors
from mallows.errors import MallowsError

#: Threads rendering ``serve``'s pages, each with its own read-only connection.
PAGE_THREADS = 4


def register(app: typer.Typer) -> None:
    app.command("report")(report)
    app.command("serve")(serve)


def _store(db: Path):
    from mallows.results.integrity import check_db_path
    from mallows.results.store import Store

    check_db_path(db)  # a folder or a FIFO is named as such, not "no database"
    if not Path(db).is_file():
        raise MallowsError(
            f"no database at {db}: run a tournament first (mallows tournament "
            f"run tournaments/demo.toml) or pass --db PATH"
        )
    return Store(db, readonly=True)


def _ladder_view():
    """How the report shows a standing ladder (``tournaments.ladder.status``: the report may
    not read a ladder's state itself). Served pages reload every few seconds: a view is
    computed again only when the ladder stored a match, planned an epoch or recorded an event
    since (the whole-history fit is the costly part)."""
    from mallows.tournaments.ladder.status import ladder_view

    cache: dict = {}
    lock = threading.Lock()

    def view(store, name: str) -> dict:
        events = store.ladders.events(name)
        key = (
            str(store.path),
            name,
            store.count_matches(name),
            len(store.ladders.epochs(name)),
            events[-1]["seq"] if events else 0,
        )
        with lock:
            if key in cache:
                return cache[key]
        made = ladder_view(store, name)
        with lock:
            if len(cache) > 16:
                cache.clear()
            cache[key] = made
        return made

    return view


def check_out_folder(out: Path) -> None:
    """Refuse an ``-o`` the site cannot be written to, before any page is rendered: a path
    under a file, a place where no folder can be made or written (a read-only or system file
    system, no permission). Makes the missing parent folders; ``out`` itself is left to the
    writer."""
    import tempfile

    out = Path(out)
    if out.exists() and not out.is_dir():
        raise MallowsError(f"-o {out} is a file: give a folder for the site (e.g. -o report)")
    existing = next((p for p in (out, *out.parents) if p.exists()), Path("."))
    if not existing.is_dir():
        raise MallowsError(
            f"-o {out}: {existing} is a file, not a folder: give a folder for "
            f"the site (e.g. -o report)"
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        os.rmdir(tempfile.mkdtemp(prefix=".mallows-probe-", dir=out.parent))
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
    from mallows.report.site import Site
    from mallows.tournaments.compare.run import stored_test

    t0 = time.perf_counter()
    site = Site(
        _store(db),
        tournament=tournament,
        game=game,
        replay_data=not replay_pages,
        ladders=_ladder_view(),
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
        "(e.g. 0.0.0.0): the pages carry no authentication.",
    ),
    refresh: int = typer.Option(
        5, "--refresh", help="Seconds between reloads of a running tournament's pages."
    ),
) -> None:
    """Serve the report's pages live from the database (read only): a running tournament's
    pages show its progress and reload themselves."""
    from mallows.report.live import LiveBoards
    from mallows.report.serving import (
        check_host,
        check_port,
        exposure_warning,
        make_server,
        url_host,
    )
    from mallows.report.site import CONTENT_TYPES, Site
    from mallows.tournaments.compare.run import stored_test

    check_port(port)
    host = check_host(host, public)
    _store(db).close()  # a database that cannot be read is refused now, not at the first page
    # Each connection has a thread of its own (a client that sends nothing blocks nobody and is
    # dropped after ``timeout``); the pages are rendered by PAGE_THREADS threads, each with its
    # own database connection (SQLite's connections stay in the thread that opened them), so a
    # slow page holds up no other; big leaderboards are computed in the background and shared
    # (``report.live``).
    local = threading.local()
    boards = LiveBoards(lambda: _store(db))
    ladders = _ladder_view()  # one cache of ladder views, shared by the page threads

    def open_site() -> None:
        local.site = Site(
            _store(db),
            live=True,
            refresh=max(1, refresh),
            boards=boards,
            ladders=ladders,
            comparisons=stored_test,
        )

    renderer = ThreadPoolExecutor(
        max_workers=PAGE_THREADS, thread_name_prefix="mallows-pages", initializer=open_site
    )

    def page(path: str):
        render = local.site.resolve(path)
        return render() if render is not None else None

    from mallows.cli.play_web import PlayRoutes

    play = PlayRoutes(db, host)  # the play page: its own routes, loopback only

    class Handler(BaseHTTPRequestHandler):
        timeout = 30  # seconds a connection may stay silent

        def _answer(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            if status == 303:
                self.send_header("Location", kind)
                kind = "text/plain; charset=utf-8"
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self):  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0]
            if not play.handles(path):
                self._answer(405, "text/plain; charset=utf-8", b"only the play page takes posts")
                return
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if not 0 <= length <= 65536:
                self._answer(413, "text/plain; charset=utf-8", b"request too large")
                return
            body = self.rfile.read(length)
            self._answer(
                *play.post(
                    path,
                    body,
                    self.headers.get("Content-Type") or "",
                    self.client_address[0],
                    self.headers.get("Origin"),
                )
            )

        def do_GET(self):  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0].split("#", 1)[0]
            if play.handles(path):
                query = self.path.split("?", 1)[1] if "?" in self.path else ""
                self._answer(*play.get(path, query.split("#", 1)[0], self.client_address[0]))
                return
            try:
                body = renderer.submit(page, path).result()
                status = 200
            except Exception as exc:  # a page that fails says so; the server stays up
                body, status = f"error: {type(exc).__name__}: {exc}", 500
            if body is None:
                body, status = f"no page {path}: start at /index.html", 404
            data = body if isinstance(body, bytes) else body.encode()
            kind = (
                CONTENT_TYPES.get(Path(path).suffix, "text/html; charset=utf-8")
                if status == 200
                else "text/plain; charset=utf-8"
            )
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, fmt, *args):  # one quiet line per request on stderr
            sys.stderr.write(f"{self.address_string()} {fmt % args}\n")

    server = make_server(host, port, Handler)
    url = f"http://{url_host(host)}:{server.server_address[1]}/index.html"
    warning = exposure_warning(host)
    if warning:
        typer.echo(warning, err=True)
    typer.echo(f"serving {db} at {url} (Ctrl-C to stop)", err=False)
    sys.stdout.flush()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        play.close()
        server.server_close()
        renderer.shutdown(wait=False, cancel_futures=True)
