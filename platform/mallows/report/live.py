"""Boards for ``mallows serve``: cheap at any size, never blocking a page.

A leaderboard with its head-to-head, mean places and charts is computed from every stored
result (``data.board``, one fold): about 30,000 matches a second, so 5 s for a 150,000-match
tournament.
``LiveBoards`` keeps one computed board (with its two charts) per tournament or game, shared by
every page thread:

- a board of at most ``SYNC_MATCHES`` matches is computed when a page asks for it (well under a
  second), and again once more matches are stored;
- a bigger one is computed in a background thread. Until the first is ready, pages show a
  ``PartialBoard`` at once: the leaderboard the tournament run stores (its ``ratings`` table,
  kept current by the run), without the head-to-head, intervals and charts, saying they are
  being computed; afterwards the last computed board, recomputed in the background at most
  every ``REFRESH_SECONDS`` while matches are being added.

So no page waits for a big computation, and a slow page never holds up another: the pages are
rendered by several threads (``cli/report.py``), each with its own read-only connection.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from mallows.results.interface import ResultStore
from mallows.errors import StorageError

from mallows.report import data
from mallows.results.stats import PlaceStats

#: Boards of at most this many matches are computed on demand.
SYNC_MATCHES = 2000
#: A big board is recomputed at most this often (seconds) while its matches change.
REFRESH_SECONDS = 30.0


class PartialBoard(data.Board):
    """The stored leaderboard only (no head-to-head, intervals or progression) while the full
    board is being computed."""

    partial = True


def partial_board(store: ResultStore, scope: str, name: str, count: int) -> PartialBoard:
    """The board of ``name`` from the leaderboard the run stored, without reading a result."""
    if scope == "tournament":
        import json

        row = store.tournament(name)
        if row is None:  # the run registered it before its first match
            raise StorageError(f"{store.path} has no tournament {name!r}")
        definition, game, total = json.loads(row["definition"]), row["game"], row["total"]
    else:
        definition, game, total = {}, name, None
    rows = []
    for r in store.ratings(scope, name):
        mean = r.get("mean_place")
        # one "match" of the mean place: the mean shows, without an interval it cannot know
        place = PlaceStats(matches=1, total=float(mean)) if mean is not None else PlaceStats()
        rows.append(dict(r, matches=r.get("games", 0), place=place))
    return PartialBoard(scope, name, game, rows, {}, {}, count, total, {}, definition)


class LiveBoards:
    """Computed boards shared by the page threads; ``open_store()`` gives the background thread
    its own read-only store."""

    def __init__(
        self,
        open_store: Callable[[], Any],
        sync_matches: int = SYNC_MATCHES,
        refresh_seconds: float = REFRESH_SECONDS,
    ):
        self._open = open_store
        self.sync_matches = sync_matches
        self.refresh_seconds = refresh_seconds
        self._lock = threading.Lock()
        self._done: dict[tuple[str, str], tuple[int, float, data.Board, tuple]] = {}
        self._pending: set[tuple[str, str]] = set()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None

    def get(
        self,
        store: ResultStore,
        scope: str,
        name: str,
        count: int,
        charts: Callable[[data.Board], tuple],
    ) -> tuple[data.Board, tuple | None]:
        """The board of ``name`` (``count``: its stored matches now) and its charts (None for a
        ``PartialBoard``), computing it here only when it is small."""
        key = (scope, name)
        with self._lock:
            cached = self._done.get(key)
        if cached is not None and cached[0] == count:
            return cached[2], cached[3]
        if count <= self.sync_matches:
            board = data.board(store, scope, name)
            made = charts(board)
            with self._lock:
                self._done[key] = (board.matches, time.monotonic(), board, made)
            return board, made
        if cached is None or time.monotonic() - cached[1] >= self.refresh_seconds:
            self._schedule(key, charts)
        if cached is not None:
            return cached[2], cached[3]
        return partial_board(store, scope, name, count), None

    def _schedule(self, key: tuple[str, str], charts: Callable[[data.Board], tuple]) -> None:
        with self._lock:
            if key in self._pending:
                return
            self._pending.add(key)
            self._charts = charts
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._work, name="mallows-boards", daemon=True
                )
                self._thread.start()
            self._wake.notify()

    def _work(self) -> None:
        store = self._open()
        while True:
            with self._lock:
                while not self._pending:
                    self._wake.wait()
                key = next(iter(self._pending))
                charts = self._charts
            try:
                board = data.board(store, *key)
                made = charts(board)
                with self._lock:
                    self._done[key] = (board.matches, time.monotonic(), board, made)
            except Exception:  # noqa: BLE001, S110 (a damaged database: its page says so)
                pass
            finally:
                with self._lock:
                    self._pending.discard(key)

    def wait(self, timeout: float = 120.0) -> bool:
        """Until no board is being computed (for tests and benchmarks); False on timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if not self._pending:
                    return True
            time.sleep(0.05)
        return False
