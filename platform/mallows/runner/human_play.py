"""Matches with a person at one seat, played from the browser (``mallows serve``'s play
page), each stored when it ends in the game's play tournament.

Owns ``PlayRoom``: sessions, each one match run by the ordinary runner
(``runner.match.play_match``) in a thread of its own, the person's seat a
``mallows.agents.human.WebSeat`` that waits for the page's answers, the other seats bots
resolved like ``mallows play``'s. A finished match is stored in the tournament
``play-<game>`` (created on first use; its definition says ``"human": true``), so it is kept,
replays, and stays off the bots' game leaderboards (``store.results(game=...)`` leaves out
matches with a human seat unless asked).

An abandoned match (its page asked nothing for ``IDLE_SECONDS`` while no stream of it was
open, or its last stream closed ``GRACE_SECONDS`` ago: the page was closed) ends at once: the
bots' processes are killed, every seat is played by the random policy to the end in a moment,
and the match is not stored (it was not played). ``MAX_SESSIONS`` matches at once, at most
``MAX_PER_ADDRESS`` from one address.
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
MAX_PER_ADDRESS = 4  # of them, started from one address
IDLE_SECONDS = 120.0  # a match whose page asked nothing for this long is abandoned
GRACE_SECONDS = 2.0  # a match whose last stream closed this long ago is abandoned (a reload
# opens a new stream well within it)
REAP_SECONDS = 1.0  # how often abandoned matches are looked for
HUMAN = "human"
LEFT = "the person left the play page"


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
    client: str = ""  # the address that started it
    handles: list[Any] = field(default_factory=list)  # the bots' handles
    streams: int = 0  # the page's open event streams
    left: float | None = None  # when its last stream closed
    abandoned: bool = False

    def touch(self) -> None:
        self.seen = time.monotonic()

    @property
    def over(self) -> bool:
        return self.record is not None or self.error is not None

    @property
    def live(self) -> bool:
        return not self.over and not self.abandoned


class Leaving:
    """A bot's handle that fails every decision once its match is abandoned (so the random
    policy plays its seat to the end at once); otherwise the handle itself."""

    def __init__(self, handle: Any, session: Session):
        self._handle, self._session = handle, session

    def __getattr__(self, name: str) -> Any:
        return getattr(self._handle, name)

    def act(self, *args: Any) -> Any:
        if self._session.abandoned:
            from mallows.agents.protocol import BotFailure

            raise BotFailure(LEFT, kind="exit")
        return self._handle.act(*args)


class PlayRoom:
    """The play page's matches on one database (``db``: where finished matches are stored)."""

    def __init__(self, db: Path, sandbox: str = "on"):
        self.db = Path(db)
        self.sandbox = sandbox
        self.sessions: dict[str, Session] = {}
        self._lock = threading.Lock()
        self._store_lock = threading.Lock()
        self._reaper: threading.Thread | None = None
        self._closed = threading.Event()

    def new(
        self,
        game: str,
        opponents: list[str],
        seat: int,
        seed: int | None = None,
        rules: str | None = None,
        client: str = "",
    ) -> Session:
        """Start a match: ``opponents`` fill the other seats in order, the person sits at
        ``seat``; ``client``: the address asking. Bad input is a ``MallowsError`` saying what to
        change."""
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
        self.reap()
        with self._lock:
            live = [s for s in self.sessions.values() if s.live]
            if len(live) >= MAX_SESSIONS:
                raise MallowsError(
                    f"{MAX_SESSIONS} matches are being played already: finish one first"
                )
            if sum(s.client == client for s in live) >= MAX_PER_ADDRESS:
                raise MallowsError(
                    f"{MAX_PER_ADDRESS} matches are open from your address already: finish "
                    f"one first (or close its page: it ends then)"
                )
            # the deal and the bots' seeds keyed (seeding.Chance): a bot cannot compute the
            # person's cards; a given seed repeats on this machine (this user's key)
            key = (seeding.local_key() if seed is not None else None) or seeding.fresh_key()
            chance = seeding.Chance(seeding.KEYED, key)
            seed = secrets.randbelow(2**31) if seed is None else int(seed)
            names = [s.name for s in specs]
            names.insert(seat, HUMAN)
            session = Session(
                secrets.token_hex(8), game, seat, names, seed, WebSeat(), client=client
            )
            self.sessions[session.id] = session
        session.handles = [s.handle(limits) for s in specs]
        handles: list[Any] = [Leaving(h, session) for h in session.handles]
        handles.insert(seat, session.web)
        self._start_reaper()

        def run() -> None:
            record = None
            try:
                record = play_match(
                    game, options, chance.play_seed(seed), handles, names=names, chance=chance
                )
                if session.abandoned:
                    session.error = f"abandoned: {LEFT}; the match was not stored"
                    return
                # stored first: the session is ``over`` once its record is set, and the page
                # then shows where the match was stored (it would read None before this)
                session.stored_as = self._store(record)
                session.record = record
            except Exception as exc:  # noqa: BLE001 - shown on the page, never lost silently
                session.error = f"{type(exc).__name__}: {exc}"
                if record is not None and session.record is None:
                    session.record = record  # played but not stored: the page shows both
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

    def abandon(self, session: Session) -> None:
        """End ``session``'s match now: the person's seat and the bots' stop deciding (the
        random policy finishes the match in a moment, unstored), the bots' processes are
        killed."""
        if not session.live:
            return
        session.abandoned = True
        session.web.abandon()
        for handle in session.handles:
            stop = getattr(handle, "stop", None)
            if stop is not None:
                stop(LEFT)

    def opened(self, session: Session) -> None:
        """The page opened an event stream of ``session``."""
        with self._lock:
            session.streams += 1
            session.left = None
        session.touch()

    def closed(self, session: Session) -> None:
        """A stream of ``session`` closed (its page was closed, or reloaded)."""
        with self._lock:
            session.streams -= 1
            if session.streams <= 0:
                session.left = time.monotonic()

    def reap(self, now: float | None = None) -> list[Session]:
        """Abandon the matches whose pages are gone; returns them."""
        now = time.monotonic() if now is None else now
        with self._lock:
            gone = [
                s
                for s in self.sessions.values()
                if s.live
                and (
                    (s.streams <= 0 and s.left is not None and now - s.left >= GRACE_SECONDS)
                    or (s.streams <= 0 and now - s.seen >= IDLE_SECONDS)
                )
            ]
            for s in [s for s in self.sessions.values() if s.over and now - s.seen > 3600]:
                del self.sessions[s.id]  # an ended match's page is kept an hour
        for s in gone:
            self.abandon(s)
        return gone

    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None:
                return

            def work() -> None:
                while not self._closed.wait(REAP_SECONDS):
                    self.reap()

            self._reaper = threading.Thread(target=work, name="play-reaper", daemon=True)
            self._reaper.start()

    def close(self) -> None:
        self._closed.set()
        for session in list(self.sessions.values()):
            self.abandon(session)
