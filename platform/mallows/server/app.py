"""The ``mallows serve`` web application: Starlette routes over the report's pages, the play
page and the event streams, behind the guards of ``server.guard`` (trusted hosts, own origin
and CSRF token on every post, security headers).

Owns ``make_app(Config)``: which address goes where (``/events``: the database's changes;
``/live/*.js``: the server's own scripts; ``/play...``: ``server.play``; everything else a
report page rendered off the event loop by ``server.pages``), how a request body is read (size
limit, time limit: a short body holds nothing but its own connection), and how answers are
made (no page is cached by the browser).
"""

from __future__ import annotations

import contextlib
import urllib.parse
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from mallows.server.guard import (
    COOKIE,
    SecurityHeaders,
    Sessions,
    WriteRefused,
    trusted_hosts,
)
from mallows.server.api import PlayGate, SignIn, api_routes
from mallows.server.body import BodyError, read_body
from mallows.server.submissions import Queue
from mallows.server.events import DatabaseWatch, event, event_stream
from mallows.server.hosted import HostedLadder, ladder_workers
from mallows.server.pages import Pages
from mallows.server.play import PlayRoutes
from mallows.server.throttle import Limits, Throttle

TEXT = "text/plain; charset=utf-8"
CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json; charset=utf-8",
}
SCRIPTS = ("live.js", "to_replay.js", "author.js")


@dataclass
class Config:
    db: Path
    host: str
    refresh: int = 5
    #: The name the server is reached by beyond this machine (``--public-name``).
    public_name: str | None = None
    #: The ladder a bot submitted over HTTP enters once it passed its check (``--ladder``).
    ladder: str | None = None
    #: Checks of submitted bots run at once, and their matches per game.
    check_workers: int = 1
    check_games: int = 5
    #: Served beyond this machine (``--public``): every write needs an account's token.
    public: bool = False
    #: Rate limits and quotas (``server.throttle``).
    limits: Limits = field(default_factory=Limits)
    #: The hosted ladder's executor, as ``mallows ladder run`` takes it (``server.hosted``).
    workers: int | None = None
    address: str | None = None


def answer(status: int, kind: str, data: bytes | str) -> Response:
    if status == 303:  # ``kind`` is where to
        return RedirectResponse(kind, status_code=303, headers={"Cache-Control": "no-store"})
    return Response(
        data, status_code=status, media_type=kind, headers={"Cache-Control": "no-store"}
    )


def make_app(config: Config) -> Starlette:
    """The server of ``config.db``; its ``state.close()`` ends the play page's matches."""
    pages = Pages(config.db, config.refresh)
    play = PlayRoutes(config.db, config.host)
    watch: dict[str, DatabaseWatch] = {}
    sessions = Sessions()
    queue = Queue(config.db, config.ladder, config.check_workers, config.check_games)
    sign_in = SignIn(config.db, Throttle(config.limits))
    play_gate = PlayGate(sign_in, config.public)
    hosted = None
    if config.ladder is not None:
        shares = ladder_workers(config.workers, config.address, config.check_workers)
        hosted = HostedLadder(config.db, config.ladder, shares, config.address)

    def client(request: Request) -> str:
        return request.client.host if request.client else ""

    async def page(request: Request) -> Response:
        path = request.url.path
        try:
            body = await pages.render(path)
        except Exception as exc:  # noqa: BLE001 - a page that fails says so; the server stays up
            return answer(500, TEXT, f"error: {type(exc).__name__}: {exc}")
        if body is None:
            return answer(404, TEXT, f"no page {path}: start at /index.html")
        return answer(200, CONTENT_TYPES.get(Path(path).suffix, CONTENT_TYPES[".html"]), body)

    async def changes(request: Request) -> Response:
        if "db" not in watch:
            watch["db"] = DatabaseWatch(config.db, interval=float(max(1, config.refresh)))
        return event_stream(watch["db"].changes())

    async def script(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in SCRIPTS:
            return answer(404, TEXT, f"no page {request.url.path}")
        js = resources.files("mallows.server").joinpath("static").joinpath(name).read_bytes()
        return answer(200, CONTENT_TYPES[".js"], js)

    async def author(request: Request) -> Response:
        html = resources.files("mallows.server").joinpath("static").joinpath("author.html")
        return answer(200, CONTENT_TYPES[".html"], html.read_bytes())

    async def play_get(request: Request) -> Response:
        path = request.url.path
        sid, new = sessions.session(request)
        response = answer(
            *await run_in_threadpool(
                play.get, path, request.url.query, client(request), sessions.token(sid)
            )
        )
        if new:
            response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/")
        return response

    async def play_events(request: Request) -> Response:
        refused = play.refuse(client(request))
        session = play.room.get(request.path_params["sid"]) if refused is None else None
        if refused is not None:
            return answer(*refused)
        if session is None:
            return answer(404, TEXT, "no such match: start one at /play.html")

        async def states() -> AsyncIterator[str]:
            async for state in play.events(session):
                yield event("state", state)

        play.room.opened(session)  # closing the page closes the stream: the match ends
        return event_stream(states(), on_close=lambda: play.room.closed(session))

    async def play_post(request: Request) -> Response:
        try:
            body = await read_body(request)
        except BodyError as exc:
            return answer(exc.status, TEXT, exc.text)
        except ClientDisconnect:
            return answer(400, TEXT, "the request ended early")
        kind = request.headers.get("content-type") or ""
        fields = urllib.parse.parse_qsl(body.decode(errors="replace")) if "json" not in kind else []
        try:
            sessions.check_write(request, fields)
        except WriteRefused as exc:
            return JSONResponse({"error": str(exc)}, status_code=403)
        stop = await play_gate.check(request)  # public: a token; a match: the play limit
        if stop is not None:
            return stop
        sid, _ = sessions.session(request)
        return answer(
            *await run_in_threadpool(
                play.post,
                request.url.path,
                body,
                kind,
                client(request),
                request.headers.get("origin"),
                sessions.token(sid),
            )
        )

    async def other_post(request: Request) -> Response:
        return answer(405, TEXT, "only the play page and /api/bots take posts")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        queue.start()  # the uploads a previous run left queued are checked
        if hosted is not None:
            hosted.start()
        try:
            yield
        finally:
            play.close()
            pages.close()
            queue.close()
            if hosted is not None:
                await hosted.stop()

    routes = [
        *api_routes(config.db, queue, sign_in),
        Route("/events", changes, methods=["GET"]),
        Route("/author.html", author, methods=["GET"]),
        Route("/live/{name}", script, methods=["GET"]),
        Route("/play/{sid}/events", play_events, methods=["GET"]),
        Route("/play.html", play_get, methods=["GET"]),
        Route("/play/{rest:path}", play_get, methods=["GET"]),
        Route("/play/{rest:path}", play_post, methods=["POST"]),
        Route("/{rest:path}", page, methods=["GET"]),
        Route("/{rest:path}", other_post, methods=["POST"]),
    ]
    hosts = trusted_hosts(config.host, config.public_name)
    middleware = [
        Middleware(SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False),
    ]
    app = Starlette(routes=routes, middleware=middleware, lifespan=lifespan)
    app.state.play = play
    app.state.pages = pages
    app.state.hosted = hosted
    return app
