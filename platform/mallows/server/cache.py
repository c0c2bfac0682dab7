"""The rendered pages of ``mallows serve``, kept by the database's version (stale while
revalidate), so a page costs its SQLite work once per change, not once per request.

Owns ``PageCache``: a page rendered once is kept with the version of the database it was
rendered from (``events.stamp``: the sizes and times of the database's files, no SQL). A request
for a page whose database has not changed gets the kept copy. Once the database changed:

- a page asked for steadily (again within ``max_age`` seconds, the server's ``--refresh``) gets
  the last copy at once, and the first request after the copy is ``max_age`` old starts the
  page's one recomputation in the background; every request meanwhile gets the last copy. So
  under a steady writer a page costs one rendering per ``max_age`` however many ask, and is at
  most ``max_age`` plus one rendering stale;
- a page asked for after a quiet spell (no request for ``max_age``) is rendered again and
  waited for: it shows what was stored since.

Bounded: at most ``MAX_PAGES`` copies and ``MAX_BYTES`` bytes (the least recently asked for go
first), and at most ``MAX_REFRESHES`` background recomputations at once (more wait for a later
request). A page that failed is not kept: its error reaches the requests that waited for it.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass
from typing import Any

#: Copies kept at most, and their bytes in all.
MAX_PAGES = 512
MAX_BYTES = 64 * 1024 * 1024
#: Recomputations of copies still young enough to serve, at once.
MAX_REFRESHES = 2


@dataclass
class Copy:
    value: Any
    version: Hashable
    made: float  # the clock when its rendering started
    size: int
    asked: float = 0.0  # the clock at its last request


def _size(value: Any) -> int:
    return len(value) if isinstance(value, (str, bytes)) else 0


class PageCache:
    """Pages by key; ``version()``: the database's version now."""

    def __init__(
        self,
        version: Callable[[], Hashable],
        max_age: float,
        max_pages: int = MAX_PAGES,
        max_bytes: int = MAX_BYTES,
        max_refreshes: int = MAX_REFRESHES,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.version, self.clock = version, clock
        self.max_age = max_age
        self.max_pages, self.max_bytes, self.max_refreshes = max_pages, max_bytes, max_refreshes
        self.copies: OrderedDict[str, Copy] = OrderedDict()
        self.bytes = 0
        self.renders = 0  # recomputations started (tests, benchmarks)
        self._running: dict[str, asyncio.Task] = {}

    def put(self, key: str, value: Any, version: Hashable, made: float) -> None:
        """Keep ``value`` as the copy of ``key`` (the oldest copies leave past the bounds)."""
        old = self.copies.pop(key, None)
        if old is not None:
            self.bytes -= old.size
        copy = Copy(value, version, made, _size(value), asked=made)
        if copy.size > self.max_bytes:
            return
        self.copies[key] = copy
        self.bytes += copy.size
        while len(self.copies) > self.max_pages or self.bytes > self.max_bytes:
            _, gone = self.copies.popitem(last=False)
            self.bytes -= gone.size

    async def get(self, key: str, render: Callable[[], Awaitable[Any]]) -> Any:
        """The page ``key``: its kept copy, or what ``render()`` makes (see the module)."""
        copy = self.copies.get(key)
        running = self._running.get(key)
        if copy is None:
            return await asyncio.shield(running or self._start(key, render))
        self.copies.move_to_end(key)
        now = self.clock()
        steady, copy.asked = now - copy.asked < self.max_age, now
        if copy.version == self.version() or running is not None:
            return copy.value
        if not steady:  # after a quiet spell: what was stored since
            return await asyncio.shield(self._start(key, render))
        if now - copy.made >= self.max_age and len(self._running) < self.max_refreshes:
            self._start(key, render)
        return copy.value

    def _start(self, key: str, render: Callable[[], Awaitable[Any]]) -> asyncio.Task:
        version, made = self.version(), self.clock()  # before: a later write renders again
        self.renders += 1

        async def run() -> Any:
            try:
                value = await render()
                self.put(key, value, version, made)
                return value
            finally:
                self._running.pop(key, None)

        task = asyncio.get_running_loop().create_task(run())
        task.add_done_callback(_retrieved)
        self._running[key] = task
        return task


def _retrieved(task: asyncio.Task) -> None:
    """A recomputation nobody waited for: its error is not "never retrieved" (the page's next
    request renders it again and gets the error)."""
    if not task.cancelled():
        task.exception()
