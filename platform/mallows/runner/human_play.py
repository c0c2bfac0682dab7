"""Matches with a person at one seat, played from the browser (``mallows serve``'s play
page), each stored when it ends in the game's play tournament.

Owns ``PlayRoom``: sessions, each one match run by the ordinary runner
(``runner.match.play_match``) in a thread of its own, the person's seat a
``mallows.agents.human.WebSeat`` that waits for the page's answers, the other seats bots
resolved like ``mallows play``'s. A finished match is stored in the tournament
``play-<game>`` (created on first use; its definition says ``"human": true``), so it is kept,
replays, and stays off the bots' game leaderboards (``store.results(game=...)`` leaves out
matches with a human seat unless asked).
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mallows.botname import BotName
from mallows import seeding
from mallows.agents.checks import canonical_name, ready
from mallows.agents.human import WebSeat
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot, require_sandbox
from mallows.errors import MallowsError
from mallows.games import get_game
from mallows.results.interface import MatchRow
from mallows.runner.match import forfeit_count, play_match

MAX_SESSIONS = 32  # matches open at once on one server
IDLE_SECONDS = 1800  # a match whose page asked nothing for this long is abandoned
HUMAN = "human"


def play_tournament(game: str) -> str:
    return f"play-{game}"


@dataclass
class Session:
    id: str
    game: str
    seat: int
    names: list[str]
    seed: int
    web: WebSeat
    thread: threading.Thread | None = None
    record: dict | None = None
    error: str | None = None
    stored_as: str | None = None
    started: float = field(default_factory=time.monotonic)
    seen: float = field(default_factory=time.monotonic)  # the page's last request

    def touch(self) -> None:
        self.seen = time.monotonic()

    @property
    def over(self) -> bool:
        return self.record is not None or self.error is not None


class PlayRoom:
    """The play page's matches on one database (``db``: where finished matches are stored)."""

    def __init__(self, db: Path, sandbox: str = "on"):
        self.db = Path(db)
        self.sandbox = sandbox
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()

    def new(
        self,
        game: str,
        opponents: list[str],
        seat: int,
        seed: int | None = None,
        rules: str | None = None,
    ) -> Session:
        """Start a match: ``opponents`` fill the other seats in order, the person sits at
        ``seat``. Bad input is a ``MallowsError`` saying what to change."""
        module = get_game(game)
        players = len(opponents) + 1
        if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
            raise MallowsError(
                f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} "
                f"players: choose {module.MIN_PLAYERS - 1} to "
                f"{module.MAX_PLAYERS - 1} opponents"
            )
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise MallowsError(f"seat {seat!r}: choose a seat from 0 to {players - 1}")
        options = module.make_options(rules or None, {})
        limits = Limits(sandbox=self.sandbox)
        specs = []
        for name in opponents:
            base = BotName.parse(name, strict=False).plain
            if base == HUMAN:
                raise MallowsError(
                    "one person per match on the play page: choose bots for the other seats"
                )
            if (
                "/" in base
                or "\\" in base
                or base.startswith(".")
                or base.endswith((".py", ".toml"))
            ):
                raise MallowsError(
                    f"opponent {name!r}: the play page takes bot names (mallows "
                    f"bots list), not paths"
                )
            spec = load_bot(canonical_name(name))
            ready(spec, game, sandbox=limits.sandbox)
            specs.append(spec)
        require_sandbox(specs, limits)
        with self._lock:
            now = time.monotonic()
            for old in self.sessions.values():  # a page closed long ago frees its seat
                if not old.over and now - old.seen > IDLE_SECONDS:
                    old.web.abandon()
            live = [s for s in self.sessions.values() if not s.over]
            if len(live) >= MAX_SESSIONS:
                raise MallowsError(
                    f"{MAX_SESSIONS} matches are being played already: finish one first"
                )
            # the deal and the bots' seeds keyed (seeding.Chance): a bot cannot compute the
            # person's cards; a given seed repeats on this machine (this user's key)
            key = (seeding.local_key() if seed is not None else None) or seeding.fresh_key()
            chance = seeding.Chance(seeding.KEYED, key)
            seed = secrets.randbelow(2**31) if seed is None else int(seed)
            names = [s.name for s in specs]
            names.insert(seat, HUMAN)
            session = Session(secrets.token_hex(8), game, seat, names, seed, WebSeat())
            self.sessions[session.id] = session
        handles: list[Any] = [s.handle(limits) for s in specs]
        handles.insert(seat, session.web)

        def run() -> None:
            try:
                session.record = play_match(
                    game, options, chance.play_seed(seed), handles, names=names, chance=chance
                )
                session.stored_as = self._store(session.record)
            except Exception as exc:  # noqa: BLE001 - shown on the page, never lost silently
                session.error = f"{type(exc).__name__}: {exc}"
            finally:
                session.web.end({})

        session.thread = threading.Thread(target=run, name=f"play-{session.id}", daemon=True)
        session.thread.start()
        return session

    def get(self, sid: str) -> Session | None:
        return self.sessions.get(sid)

    def _store(self, record: dict) -> str:
        from mallows.results.store import Store

        game = record["game"]
        name = play_tournament(game)
        text = json.dumps(record, separators=(",", ":"))
        with self._store_lock, Store(self.db) as store:
            row = store.tournament(name)
            if row is None:
                definition = json.dumps(
                    {
                        "name": name,
                        "game": game,
                        "human": True,
                        "kind": "play page: a person against bots",
                    },
                    sort_keys=True,
                )
                store.add_tournament(name, game, definition, "", "mallows serve", 0, {})
            idx = store.count_matches(name)
            store.add_match(
                MatchRow(
                    f"{name}/{idx}",
                    name,
                    idx,
                    game,
                    0,
                    0,
                    idx,
                    int(record["seed"]),
                    list(record["players"]),
                    list(record["result"]["ranks"]),
                    forfeit_count(record),
                    text,
                )
            )
            store.update_tournament(name, total=idx + 1)
        return f"{name}/{idx}"

    def close(self) -> None:
        for session in self.sessions.values():
            session.web.abandon()
