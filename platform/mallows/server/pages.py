"""The report's pages for ``mallows serve``, rendered off the event loop.

Owns ``Pages``: the live ``report.site.Site`` rendered by ``PAGE_THREADS`` threads, each page
on a read-only connection of its own, so a slow page holds up no other and no page blocks the
event loop; big leaderboards are computed in
the background and shared (``report.live``), and so are the views of standing ladders
(``ladder_views``).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from mallows.results.interface import ResultStore


#: Threads rendering pages, each with its own read-only connection.
PAGE_THREADS = 4


def open_store(db: Path) -> Any:
    """The database read only, or a ``MallowsError`` naming what is there instead."""
    from mallows.results.integrity import existing_db
    from mallows.results.store import Store

    existing_db(  # a folder, a FIFO or an over-long name is named as such, not "no database"
        db,
        f"no database at {db}: run a tournament first (mallows tournament "
        f"run tournaments/demo.toml) or pass --db PATH",
    )
    return Store(db, readonly=True)


def ladder_views() -> Callable[[ResultStore, str], dict]:
    """How the report shows a standing ladder (``tournaments.ladder.status``: the report may
    not read a ladder's state itself). A view is computed again only when the ladder stored a
    match, planned an epoch or recorded an event since (the whole-history fit is the costly
    part)."""
    from mallows.tournaments.ladder.status import ladder_view

    cache: dict = {}
    lock = threading.Lock()

    def view(store: ResultStore, name: str) -> dict:
        events = store.ladders.events(name)
        key = (
            str(store.path),
            name,
            store.count_matches(name),
            len(store.ladders.epochs(name)),
            events[-1]["seq"] if events else 0,
        )
        with lock:
            if key in cache:
                return cache[key]
        made = ladder_view(store, name)
        with lock:
            if len(cache) > 16:
                cache.clear()
            cache[key] = made
        return made

    return view


class Pages:
    """The live site of database ``db``; ``refresh``: seconds between the updates of a running
    tournament's pages."""

    def __init__(self, db: Path, refresh: int, threads: int = PAGE_THREADS):
        from mallows.report.live import LiveBoards

        self.db = Path(db)
        self.refresh = max(1, refresh)
        self._boards = LiveBoards(lambda: open_store(self.db))
        self._ladders = ladder_views()  # one cache of ladder views, shared by the threads
        self.threads = threads
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mallows-pages")

    def _site(self) -> Any:
        from mallows.report.site import Site
        from mallows.server.authors import private_bot
        from mallows.tournaments.compare.run import stored_test

        return Site(
            open_store(self.db),
            live=True,
            refresh=self.refresh,
            boards=self._boards,
            ladders=self._ladders,
            comparisons=stored_test,
            private=private_bot,  # what an account's bot sent: its owner's alone
        )

    def _render(self, path: str) -> str | bytes | None:
        # a read connection per page, closed after it: an idle connection kept open can read a
        # stale or "malformed" database once a writer's last close checkpointed the log into
        # the main file and removed it
        site = self._site()
        try:
            render = site.resolve(path)
            return render() if render is not None else None
        finally:
            site.store.close()

    def warm(self) -> None:
        """Start every page thread with its connection, and import what the pages draw with,
        before the first request (a cold first page costs seconds on a loaded machine)."""
        import mallows.report.plots  # noqa: F401 (matplotlib: the costliest import)

        barrier = threading.Barrier(self.threads)
        list(self._pool.map(lambda _: barrier.wait(timeout=60), range(self.threads)))
        self._site().store.close()  # the templates compiled

    async def render(self, path: str) -> str | bytes | None:
        """The page at ``path`` (None: no such page), rendered in a page thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, self._render, path)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
