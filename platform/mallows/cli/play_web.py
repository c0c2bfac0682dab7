"""The play page's routes for ``mallows serve`` (loopback only): ``/play.html`` (the form),
``POST /play/new``, ``/play/<id>`` (the match page), ``/play/<id>/state`` (the person's view,
long-polled) and ``POST /play/<id>/act``; ``/play/static/play.js``.

Only requests and answers here: matches are ``mallows.runner.human_play``, pages
``mallows.report.play_page``.
"""

from __future__ import annotations

import ipaddress
import json
import urllib.parse
from importlib import resources
from pathlib import Path
from typing import Any

from mallows.errors import MallowsError

JSON = "application/json; charset=utf-8"
HTML = "text/html; charset=utf-8"
Answer = tuple[int, str, bytes]


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def _json(value: Any, status: int = 200) -> Answer:
    return status, JSON, json.dumps(value).encode()


class PlayRoutes:
    """The play page on database ``db`` (finished matches are stored there)."""

    def __init__(self, db: Path, host: str):
        self.db = db
        self.enabled = is_loopback(host)
        self._room: Any = None

    @property
    def room(self) -> Any:
        if self._room is None:
            from mallows.runner.human_play import PlayRoom

            self._room = PlayRoom(self.db)
        return self._room

    def handles(self, path: str) -> bool:
        return path == "/play.html" or path.startswith("/play/")

    def _refuse(self, client: str) -> Answer | None:
        if not self.enabled or not is_loopback(client):
            return (
                403,
                "text/plain; charset=utf-8",
                (
                    b"the play page is served on loopback only: run mallows serve without "
                    b"--host (127.0.0.1) and open it on this machine"
                ),
            )
        return None

    def get(self, path: str, query: str, client: str) -> Answer:
        refused = self._refuse(client)
        if refused is not None:
            return refused
        from mallows.report import play_page

        if path == "/play.html":
            return 200, HTML, play_page.form_page().encode()
        if path == "/play/static/play.js":
            js = resources.files("mallows.report").joinpath("static").joinpath("play.js")
            return 200, "text/javascript; charset=utf-8", js.read_bytes()
        parts = path.strip("/").split("/")
        session = self.room.get(parts[1]) if len(parts) >= 2 else None
        if session is None:
            return 404, "text/plain; charset=utf-8", b"no such match: start one at /play.html"
        session.touch()
        if len(parts) == 2:
            options = dict(self._options(session))
            return (
                200,
                HTML,
                play_page.match_page(
                    session.id, session.game, session.names, session.seat, options
                ).encode(),
            )
        if len(parts) == 3 and parts[2] == "state":
            after = urllib.parse.parse_qs(query).get("after", ["-1"])[0]
            try:
                after_n = int(after)
            except ValueError:
                after_n = -1
            return _json(self._state(session, after_n))
        return 404, "text/plain; charset=utf-8", b"no such page"

    def _options(self, session: Any) -> dict:
        from mallows.games import get_game

        return get_game(session.game).make_options(None, {})

    def _state(self, session: Any, after: int) -> dict:
        from mallows.report import play_page

        web = session.web
        web.wait_for_turn(after, timeout=5.0)
        obs = web.observation
        if session.error is not None:
            return {"error": session.error, "over": True}
        if session.over and obs is None:
            result = session.record["result"]
            rank = result["ranks"][session.seat]
            text = f"you placed {rank + 1} of {len(result['ranks'])}"
            if result.get("forfeits", [None] * 9)[session.seat]:
                text += f" (forfeited: {result['forfeits'][session.seat]})"
            replay = None
            if session.stored_as:
                from mallows.report.data import slug

                name, idx = session.stored_as.rsplit("/", 1)
                replay = f"/m/{slug(name)}/{idx}.html"
            return {
                "over": True,
                "result": text + f"; stored as {session.stored_as}",
                "replay": replay,
                "decision": web.decisions,
            }
        if obs is None:
            return {"over": False, "view": None, "decision": web.decisions}
        return {"over": False, "view": play_page.view(obs), "decision": web.decisions}

    def post(
        self, path: str, body: bytes, kind: str, client: str, origin: str | None = None
    ) -> Answer:
        refused = self._refuse(client)
        if refused is not None:
            return refused
        if origin and not is_loopback(urllib.parse.urlsplit(origin).hostname or ""):
            # another site's page posting to this machine's server: never start a match
            return _json(
                {"error": f"posts from {origin} are refused: use the play page itself"}, 403
            )
        if len(body) > 65536:
            return _json({"error": "request too large"}, 413)
        try:
            if "json" in kind:
                data = json.loads(body or b"{}")
            else:
                data = {k: v[0] for k, v in urllib.parse.parse_qs(body.decode()).items()}
            if not isinstance(data, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError) as exc:
            return _json({"error": f"the request is not a JSON object or a form: {exc}"}, 400)
        if path == "/play/new":
            return self._new(data, form="json" not in kind)
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[2] == "act":
            session = self.room.get(parts[1])
            if session is None:
                return _json({"error": "no such match"}, 404)
            session.touch()
            return _json(self._act(session, data))
        return _json({"error": "no such route"}, 404)

    def _new(self, data: dict, form: bool) -> Answer:
        from mallows.report import play_page

        try:
            game = str(data.get("game") or "")
            opponents = [
                o.strip() for o in str(data.get("opponents") or "").split(",") if o.strip()
            ]
            seat_text = str(data.get("seat", "0")).strip() or "0"
            if not seat_text.lstrip("-").isdigit():
                raise MallowsError(f"seat {seat_text!r}: give a seat number, e.g. 0")
            seed_text = str(data.get("seed") or "").strip()
            if seed_text and not seed_text.isdigit():
                raise MallowsError(
                    f"seed {seed_text!r}: give a whole number, or leave it empty for a random deal"
                )
            session = self.room.new(
                game,
                opponents,
                int(seat_text),
                int(seed_text) if seed_text else None,
                str(data.get("rules") or "").strip() or None,
            )
        except MallowsError as exc:
            if form:
                return 400, HTML, play_page.form_page(str(exc)).encode()
            return _json({"error": str(exc)}, 400)
        if form:  # the form's post: go to the match page
            return 303, f"/play/{session.id}", b""
        return _json({"id": session.id, "url": f"/play/{session.id}"})

    def _act(self, session: Any, data: dict) -> dict:
        obs = session.web.observation
        if obs is None:
            return {"error": "it is not your turn"}
        index = data.get("index")
        legal = obs["legal_actions"]
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(legal):
            return {"error": f"index must be 0 to {len(legal) - 1}"}
        action = dict(legal[index])
        if action["type"] == "get_rid":
            action = {"type": "get_rid", "slots": data.get("slots")}
        why = session.web.answer(action)
        return {"error": why} if why else {"ok": True}

    def close(self) -> None:
        if self._room is not None:
            self._room.close()
