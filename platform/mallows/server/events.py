"""Server-sent events for ``mallows serve``: pages update themselves when the database changes,
instead of reloading on a timer.

Owns ``stamp`` (the database's version, from its files), ``DatabaseWatch`` (one task per
server notices a change of the database's files, the database and its write-ahead log, by
their size and time: no SQL, nothing read) and
``event_stream``: a ``text/event-stream`` answer that says ``hello`` at once, ``change`` after
every change, and a comment every ``HEARTBEAT_SECONDS`` so a closed page is noticed. The page's
script (``report/static/live.js``) fetches its own address again on ``change`` and swaps the
page's ``<main>``.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

from starlette.responses import StreamingResponse

#: A comment line this often keeps a quiet stream open and finds closed pages.
HEARTBEAT_SECONDS = 15.0
HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


def event(name: str, data: Any) -> str:
    """One event in the ``text/event-stream`` format (the data as one JSON line)."""
    return f"event: {name}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


def event_stream(events: AsyncIterator[str], on_close: Callable[[], None] | None = None) -> Any:
    """The answer streaming ``events``; ``on_close`` runs when the stream ends, the page closed
    included."""

    async def body() -> AsyncIterator[str]:
        try:
            async for text in events:
                yield text
        finally:
            if on_close is not None:
                on_close()

    return StreamingResponse(body(), media_type="text/event-stream", headers=HEADERS)


def stamp(db: Path) -> tuple:
    """The database's version as its files show it: the size and time of the database and of
    its write-ahead log (two ``stat`` calls, no SQL: a store's write changes one of them)."""
    out: list[tuple[int, int] | None] = []
    for path in (db, db.with_name(db.name + "-wal")):
        try:
            st = os.stat(path)
            out.append((st.st_size, st.st_mtime_ns))
        except OSError:
            out.append(None)
    return tuple(out)


class DatabaseWatch:
    """Notices changes of database ``db`` every ``interval`` seconds while a stream listens."""

    def __init__(self, db: Path, interval: float):
        self.db = Path(db)
        self.interval = interval
        self.version = 0
        self._seen = self._stamp()
        self._changed = asyncio.Event()
        self._task: asyncio.Task | None = None
        self.listeners = 0

    def _stamp(self) -> tuple:
        return stamp(self.db)

    async def _run(self) -> None:
        while self.listeners:
            await asyncio.sleep(self.interval)
            now = self._stamp()
            if now != self._seen:
                self._seen = now
                self.version += 1
                self._changed.set()
                self._changed = asyncio.Event()
        self._task = None

    async def changes(self) -> AsyncIterator[str]:
        """``hello``, then a ``change`` per change of the database, heartbeats between."""
        self.listeners += 1
        if self._task is None:
            self._seen = self._stamp()
            self._task = asyncio.get_running_loop().create_task(self._run())
        try:
            yield event("hello", {"version": self.version})
            while True:
                changed = self._changed
                try:
                    await asyncio.wait_for(changed.wait(), HEARTBEAT_SECONDS)
                except TimeoutError:
                    yield ": still here\n\n"
                    continue
                yield event("change", {"version": self.version})
        finally:
            self.listeners -= 1
