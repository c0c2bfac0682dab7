"""The rendered pages of ``mallows serve``, kept by the database's version (stale while
revalidate), so a page costs its SQLite work once per change, not once per request.

Owns ``PageCache``: a page rendered once is kept with the version of the database it was
rendered from (``events.stamp``: the sizes and times of the database's files, no SQL). A request
for a page whose database has not changed gets the kept copy. Once the database changed, the
first request starts the page's one recomputation; meanwhile every other request gets the last
copy at once. The request that starts it gets the last copy too while that copy is younger
than ``max_age`` seconds (the server's ``--refresh``: a page under a steady writer is at most
that stale, plus one rendering); a copy older than that is waited for, so a page asked for
after a quiet spell shows what was stored since. Bounded: at most ``MAX_PAGES`` copies and
``MAX_BYTES`` bytes (the least recently asked for go first), and at most ``MAX_REFRESHES``
recomputations of young copies at once (more are left for a later request). A page that
failed is not kept: its error reaches the requests that waited for it.
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
    made: float  # time.monotonic() when its rendering started
    size: int


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
    ) -> None:
        self.version = version
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
        copy = Copy(value, version, made, _size(value))
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
        if copy.version == self.version() or running is not None:
            return copy.value
        young = time.monotonic() - copy.made < self.max_age
        if young:
            if len(self._running) < self.max_refreshes:
                self._start(key, render)
            return copy.value
        return await asyncio.shield(self._start(key, render))

    def _start(self, key: str, render: Callable[[], Awaitable[Any]]) -> asyncio.Task:
        version, made = self.version(), time.monotonic()  # before: a later write renders again
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
