"""Ratings off the receiving path: a thread that rates results in schedule order while the
coordinator keeps storing what arrives.

``LiveRatings`` owns a ``ratings.Rater`` and a thread. The coordinator commits each arriving
batch, then hands its results to ``add`` (a bounded queue: if rating ever fell far behind, the
coordinator would wait here, never lose a result: everything handed over is already stored).
The coordinator's side takes no lock a ``KeyboardInterrupt`` could leave held (an interrupt
lands wherever the coordinator is, and ``finish`` must still work after it): the queue is a
``queue.SimpleQueue``, whose ``put`` is one C call, bounded by polling its size. The thread
first rates the matches stored before this run, read in index order through its own
``Store`` connection, then what arrives; ``Rater.add`` ignores an index it has already seen, so
the two feeds may overlap. ``leader()``, ``rows()`` and ``rated`` read a consistent state for a
progress display; ``played`` and ``rate`` count matches as they arrive (a rate measured over
the last ``RATE_WINDOW`` seconds).
"""

from __future__ import annotations

import collections
import queue
import threading
import time
from typing import Callable, Iterable

from mallows.results.ratings import Rater, Row

QUEUE_BATCHES = 4096  # arriving batches waiting to be rated, at most
RATE_WINDOW = 10.0  # seconds over which ``rate`` is measured


class LiveRatings:
    def __init__(self, rater: Rater, stored: Callable[[], Iterable] | None = None):
        self.rater = rater
        self.lock = threading.Lock()
        self.seconds = 0.0  # time spent rating, in the thread
        self.played = 0  # matches arrived in this run
        self.error: BaseException | None = None
        self._arrivals: collections.deque = collections.deque()  # (time, count)
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._stored = stored
        self._thread = threading.Thread(target=self._work, name="mallows-ratings", daemon=True)
        self._thread.start()

    # -- the coordinator's side ---------------------------------------------------------------
    def add(self, results: list) -> None:
        """Rate ``results`` = [(index, players, ranks) or (index, None, None) for a failed
        match] in the thread. Counts them as arrived now."""
        now = time.monotonic()
        self.played += sum(1 for r in results if r[1] is not None)
        self._arrivals.append((now, len(results)))
        while self._arrivals and now - self._arrivals[0][0] > RATE_WINDOW:
            self._arrivals.popleft()
        self._check()
        while self._queue.qsize() >= QUEUE_BATCHES and self._thread.is_alive():
            time.sleep(0.01)  # rating has fallen far behind: wait, never drop a result
        self._queue.put(results)

    @property
    def rate(self) -> float:
        """Matches per second arriving, over the last ``RATE_WINDOW`` seconds."""
        if len(self._arrivals) < 2:
            return 0.0
        span = self._arrivals[-1][0] - self._arrivals[0][0]
        count = sum(n for _, n in self._arrivals) - self._arrivals[0][1]
        return count / span if span > 0 else 0.0

    def finish(self) -> Rater:
        """Wait until everything handed over is rated; the rater, complete."""
        self._queue.put(None)
        self._thread.join()
        self._check()
        return self.rater

    def _check(self) -> None:
        if self.error is not None:
            raise self.error

    # -- a progress display's view ------------------------------------------------------------
    @property
    def rated(self) -> int:
        return self.rater.rated

    def leader(self) -> tuple[str, float] | None:
        with self.lock:
            return self.rater.leader()

    def rows(self) -> list[Row]:
        with self.lock:
            return self.rater.rows()

    # -- the thread ---------------------------------------------------------------------------
    def _work(self) -> None:
        try:
            if self._stored is not None:
                chunk: list = []
                for item in self._stored():
                    chunk.append(item)
                    if len(chunk) >= 1000:
                        self._rate(chunk)
                        chunk = []
                self._rate(chunk)
            while True:
                results = self._queue.get()
                if results is None:
                    return
                self._rate(results)
        except BaseException as exc:  # reported to the coordinator on its next call
            self.error = exc
            while self._queue.get() is not None:  # unblock the coordinator, then stop
                pass

    def _rate(self, results: list) -> None:
        t0 = time.perf_counter()
        with self.lock:
            for index, players, ranks in results:
                if players is None:
                    self.rater.skip(index)
                else:
                    self.rater.add(index, players, ranks)
        self.seconds += time.perf_counter() - t0
