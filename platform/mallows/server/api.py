"""The competition server's API: ``POST /api/bots`` (a bot archive, with an account's token in
``Authorization: Bearer``) and ``GET /api/submissions/<id>`` (its place in the queue, then its
check's table and ``NAME@N`` or its reason); ``GET /api/me`` (the account's bots,
``server.authors``: each version with its check, its forfeits with their reasons, its ladders'
standings and questions; and its submissions: what the author page shows) and
``POST /api/bots/<NAME@N>/withdraw``.

Owns ``api_routes(db, queue, sign_in)``: the token checked (``SignIn``,
``results.store.accounts``: a wrong or revoked one is 401), the body's length checked before it
is read (``archive.MAX_ARCHIVE``: an oversize archive is refused before anything is stored),
the name checked and claimed for the account (a name another account owns is 403), the archive
unpacked (``server.archive``: links, ``..``, absolute names, devices refused) and queued
(``server.submissions``). Only the owner and admins see a submission. ``server.throttle``
limits refused tokens (counted before their scrypt check), uploads and play matches, per
account and per address, and the versions and bytes an account keeps: 429 with
``Retry-After``. ``PlayGate``: a public server's play posts need a token too.
"""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mallows.errors import MallowsError, Throttled
from mallows.server.archive import MAX_ARCHIVE, unpack
from mallows.server.body import BodyError, read_body
from mallows.server.guard import WriteRefused, bearer, check_origin
from mallows.server.submissions import Queue
from mallows.server.throttle import Throttle, check_quota


def _error(status: int, text: str, retry_after: int | None = None) -> Response:
    headers = {"Cache-Control": "no-store"}
    if retry_after is not None:
        headers["Retry-After"] = str(retry_after)
    return JSONResponse({"error": text}, status_code=status, headers=headers)


def refused(exc: Throttled) -> Response:
    """The answer to a request over a limit: its status, text and ``Retry-After``."""
    return _error(exc.status, exc.text, exc.retry_after)


def client(request: Request) -> str:
    return request.client.host if request.client else ""


class SignIn:
    """Tokens checked for database ``db``: ``who(request)`` is the account of the request's
    ``Authorization: Bearer`` token, or the answer refusing it (401; 429 past the sign-in
    limit: a refused token counts for its address and the account it names)."""

    def __init__(self, db: Path, throttle: Throttle):
        self.db, self.throttle = db, throttle

    def account(self, token: str | None) -> dict:
        from mallows.results.store import Store

        if not token:
            raise MallowsError(
                "no token: send the account's token as 'Authorization: Bearer TOKEN' "
                "(mallows users add NAME makes one)"
            )
        with Store(self.db, readonly=True) as store:
            return store.accounts.verify(token)

    async def who(self, request: Request) -> dict | Response:
        token = bearer(request)
        ident = token.partition(".")[0] if token else None  # the account a token names
        try:
            self.throttle.check("sign-in", ident, client(request))  # before the scrypt work
            return await run_in_threadpool(self.account, token)
        except Throttled as exc:
            return refused(exc)
        except MallowsError as exc:
            if token:
                self.throttle.count("sign-in", ident, client(request))
            return _error(401, str(exc))


class PlayGate:
    """What a play page's post passes before ``server.play`` sees it: with ``public``, an
    account's token (every write of a public server needs one: a reverse proxy on this
    machine makes every client look local); a match started counts against the play limit
    of its address (and its account, when it has one)."""

    def __init__(self, sign_in: SignIn, public: bool):
        self.sign_in, self.public = sign_in, public

    async def check(self, request: Request) -> Response | None:
        """None: the post may go on; else the answer refusing it."""
        owner: dict | None = None
        if self.public:
            found = await self.sign_in.who(request)
            if isinstance(found, Response):
                return found
            owner = found
        if request.url.path == "/play/new":
            try:
                self.sign_in.throttle.hit("play", owner["name"] if owner else None, client(request))
            except Throttled as exc:
                return refused(exc)
        return None


def api_routes(db: Path, queue: Queue, sign_in: SignIn) -> list[Route]:
    from mallows.results.store import Store
    from mallows.server.authors import author_bots
    from mallows.server.pages import ladder_views

    throttle = sign_in.throttle
    who = sign_in.who
    views = ladder_views()

    def claim(name: str, owner: dict) -> None:
        from mallows.agents.registry import SHIPPED
        from mallows.agents.submissions import check_submission_name

        check_submission_name(name, SHIPPED)
        with Store(db) as store:
            store.accounts.claim(name, owner)

    async def writer(request: Request) -> dict | Response:
        """The account behind a state-changing request: the server's own Origin first, then
        its token (``who``); or the answer refusing it."""
        try:
            check_origin(request)
        except WriteRefused as exc:
            return _error(403, str(exc))
        return await who(request)

    async def submit(request: Request) -> Response:
        owner = await writer(request)
        if isinstance(owner, Response):
            return owner
        name = request.query_params.get("name", "")
        try:
            throttle.hit("submit", owner["name"], client(request))
        except Throttled as exc:
            return refused(exc)
        try:
            data = await read_body(request, limit=MAX_ARCHIVE)
        except BodyError as exc:
            return _error(exc.status, f"{exc.text}: the archive is refused, nothing was stored")
        except ClientDisconnect:
            return _error(400, "the upload ended early")
        try:
            await run_in_threadpool(claim, name, owner)
        except MallowsError as exc:
            status = 403 if "belongs to account" in str(exc) else 400
            return _error(status, str(exc))
        folder = queue.new_folder()  # beside the database: a restart finds it
        try:
            bot = await run_in_threadpool(unpack, data, folder)
            await run_in_threadpool(quota, owner, folder)
        except MallowsError as exc:
            queue.discard(folder)
            return _error(400, str(exc))
        except Throttled as exc:
            queue.discard(folder)
            return refused(exc)
        sub = queue.add(owner["name"], name, folder, bot)
        return JSONResponse(
            {**sub.view(queue.position(sub)), "status": f"/api/submissions/{sub.id}"},
            status_code=202,
        )

    async def status(request: Request) -> Response:
        owner = await who(request)
        if isinstance(owner, Response):
            return owner
        sub = queue.items.get(request.path_params["sid"])
        if sub is None or (sub.account != owner["name"] and not owner["admin"]):
            return _error(404, "no such submission of this account")
        return JSONResponse(sub.view(queue.position(sub)), headers={"Cache-Control": "no-store"})

    def quota(owner: dict, folder: Path) -> None:
        size = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())
        waiting = [s for s in queue.items.values() if s.account == owner["name"]]
        queued = sum(1 for s in waiting if s.state in ("queued", "checking"))
        with Store(db, readonly=True) as store:
            check_quota(store, owner["name"], throttle.limits, queued, size)

    def mine(owner: dict) -> list[dict]:
        with Store(db, readonly=True) as store:
            return author_bots(store, owner, views)

    async def me(request: Request) -> Response:
        owner = await who(request)
        if isinstance(owner, Response):
            return owner
        queued = [
            s.view(queue.position(s)) for s in queue.items.values() if s.account == owner["name"]
        ]
        return JSONResponse(
            {**owner, "bots": await run_in_threadpool(mine, owner), "submissions": queued},
            headers={"Cache-Control": "no-store"},
        )

    def withdraw(owner: dict, bot: str) -> str:
        from mallows.agents.submissions import parse_version

        parsed = parse_version(bot)
        if parsed is None:
            raise MallowsError(f"{bot!r}: name a version, e.g. mybot@1")
        name, version = parsed
        with Store(db) as store:
            if store.accounts.owner(name) != owner["name"] and not owner["admin"]:
                raise MallowsError(f"no bot {bot} of this account")
            if store.submission(name, version) is None:
                raise MallowsError(f"no bot {bot} of this account")
            store.withdraw(name, version)
        return f"{name}@{version}"

    async def withdrawn(request: Request) -> Response:
        owner = await writer(request)
        if isinstance(owner, Response):
            return owner
        try:
            bot = await run_in_threadpool(withdraw, owner, request.path_params["bot"])
        except MallowsError as exc:
            return _error(404, str(exc))
        return JSONResponse({"withdrawn": bot})

    return [
        Route("/api/bots", submit, methods=["POST"]),
        Route("/api/submissions/{sid}", status, methods=["GET"]),
        Route("/api/me", me, methods=["GET"]),
        Route("/api/bots/{bot}/withdraw", withdrawn, methods=["POST"]),
    ]
