"""The competition server's API: ``POST /api/bots`` (a bot archive, with an account's token in
``Authorization: Bearer``) and ``GET /api/submissions/<id>`` (its place in the queue, then its
check's table and ``NAME@N`` or its reason); ``GET /api/me`` (the account's bots, each version
with its check, and its submissions: what the author page shows) and
``POST /api/bots/<NAME@N>/withdraw``.

Owns ``api_routes(db, queue)``: the token checked (``results.store.accounts``: a wrong or
revoked one is 401), the body's length checked before it is read (``archive.MAX_ARCHIVE``: an
oversize archive is refused before anything is stored), the name checked and claimed for the
account (a name another account owns is 403), the archive unpacked (``server.archive``: links,
``..``, absolute names, devices refused) and queued (``server.submissions``). Only the owner
and admins see a submission.
"""

from __future__ import annotations

from pathlib import Path

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mallows.errors import MallowsError
from mallows.server.archive import MAX_ARCHIVE, unpack
from mallows.server.body import BodyError, read_body
from mallows.server.guard import WriteRefused, bearer, check_origin
from mallows.server.submissions import Queue


def _error(status: int, text: str) -> Response:
    return JSONResponse({"error": text}, status_code=status, headers={"Cache-Control": "no-store"})


def api_routes(db: Path, queue: Queue) -> list[Route]:
    from mallows.results.store import Store

    def account(token: str | None) -> dict:
        if not token:
            raise MallowsError(
                "no token: send the account's token as 'Authorization: Bearer TOKEN' "
                "(mallows users add NAME makes one)"
            )
        with Store(db, readonly=True) as store:
            return store.accounts.verify(token)

    async def who(request: Request) -> dict | Response:
        try:
            return await run_in_threadpool(account, bearer(request))
        except MallowsError as exc:
            return _error(401, str(exc))

    def claim(name: str, owner: dict) -> None:
        from mallows.agents.registry import SHIPPED
        from mallows.agents.submissions import check_submission_name

        check_submission_name(name, SHIPPED)
        with Store(db) as store:
            store.accounts.claim(name, owner)

    async def submit(request: Request) -> Response:
        try:
            check_origin(request)
        except WriteRefused as exc:
            return _error(403, str(exc))
        owner = await who(request)
        if isinstance(owner, Response):
            return owner
        name = request.query_params.get("name", "")
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
        except MallowsError as exc:
            queue.discard(folder)
            return _error(400, str(exc))
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

    def mine(owner: dict) -> list[dict]:
        import json

        with Store(db, readonly=True) as store:
            out = []
            for name in store.accounts.bots(owner["name"]):
                versions = [
                    {
                        "version": f"{name}@{r['version']}",
                        "digest": r["digest"],
                        "created": r["created"],
                        "withdrawn": r["withdrawn"],
                        "check": json.loads(r["check"] or "{}"),
                    }
                    for r in store.submissions(name)
                ]
                out.append({"name": name, "versions": versions})
            return out

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
        try:
            check_origin(request)
        except WriteRefused as exc:
            return _error(403, str(exc))
        owner = await who(request)
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
