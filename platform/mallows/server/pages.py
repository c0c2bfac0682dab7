"""The report's pages for ``mallows serve``, rendered off the event loop.

Owns ``Pages``: the live ``report.site.Site`` rendered by ``PAGE_THREADS`` threads, each page
on a read-only connection of its own, so a slow page holds up no other and no page blocks the
event loop; each rendered page kept until the database changes (``server.cache``: one
rendering per page at a time, everyone else served the last copy), the main pages rendered
before the first request (``warm``); big leaderboards are computed in the background and
shared (``report.live``), and so are the views of standing ladders (``ladder_views``).
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
#: The store's questions each page asks (some several times), answered once per version of the
#: database: the tournaments with their counts, a tournament's or a game's matches counted.
COUNTED = ("tournaments", "count_matches", "count_game_matches")
#: Pages rendered before the first request, at most, and the seconds that may take.
WARM_PAGES = 64
WARM_SECONDS = 60.0


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
        from mallows.server.cache import PageCache
        from mallows.server.events import stamp

        self.db = Path(db)
        self.cache = PageCache(lambda: stamp(self.db), max_age=float(max(1, refresh)))
        self.refresh = max(1, refresh)
        self._boards = LiveBoards(lambda: open_store(self.db))
        self._ladders = ladder_views()  # one cache of ladder views, shared by the threads
        self.threads = threads
        self._pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mallows-pages")
        self._local = threading.local()  # a page thread's Site: its templates compiled once
        self._lock = threading.Lock()
        self._version: Any = None
        self._counts: dict[tuple, Any] = {}  # COUNTED answers at ``_version``

    def _site(self) -> Any:
        """The page thread's site, reading a connection of its own for this page."""
        from mallows.report.site import Site
        from mallows.server.authors import private_bot
        from mallows.tournaments.compare.run import stored_test

        store = open_store(self.db)
        for method in COUNTED:  # what every page asks for, some several times
            setattr(store, method, self._counted(store, method))
        site = getattr(self._local, "site", None)
        if site is None:
            site = self._local.site = Site(
                store,
                live=True,
                refresh=self.refresh,
                boards=self._boards,
                ladders=self._ladders,
                comparisons=stored_test,
                private=private_bot,  # what an account's bot sent: its owner's alone
            )
        site.store = store
        return site

    def _counted(self, store: ResultStore, method: str) -> Callable[..., Any]:
        """``store.method`` asked once per version of the database and arguments, by every
        page thread together (a count over a million matches costs a good part of a second)."""
        from mallows.server.events import stamp

        real = getattr(type(store), method)

        def call(*args: Any) -> Any:
            version, key = stamp(self.db), (method, args)
            with self._lock:
                if self._version != version:
                    self._version, self._counts = version, {}
                if key in self._counts:
                    return _copied(self._counts[key])
            value = real(store, *args)
            with self._lock:
                if self._version == version:
                    self._counts[key] = value
            return _copied(value)

        return call

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

    def warm(self, pages: int = WARM_PAGES, seconds: float = WARM_SECONDS) -> int:
        """Start every page thread with its connection, import what the pages draw with, and
        render the index and the pages it links to (tournaments, games, ladders, bots: at most
        ``pages`` of them, for at most ``seconds``) into the cache, before the first request:
        a cold page costs seconds on a big database or a loaded machine. Returns the pages
        rendered."""
        import time

        import mallows.report.plots  # noqa: F401 (matplotlib: the costliest import)
        from mallows.server.events import stamp

        barrier = threading.Barrier(self.threads)
        list(self._pool.map(lambda _: barrier.wait(timeout=60), range(self.threads)))
        site = self._site()  # the templates compiled
        try:
            paths = ["/" + p for p in _linked(site.paths(), pages)]
        finally:
            site.store.close()
        version, made, deadline = stamp(self.db), time.monotonic(), time.monotonic() + seconds
        futures = {path: self._pool.submit(self._render, path) for path in paths}
        done = 0
        for path, future in futures.items():
            try:
                value = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except Exception:  # noqa: BLE001 - too slow or failed: rendered at its first request
                future.cancel()
                continue
            self.cache.put(path, value, version, made)
            done += 1
        served = time.monotonic()  # asked for now: the first requests get them at once
        for copy in self.cache.copies.values():
            copy.asked = served
        return done

    async def render(self, path: str) -> str | bytes | None:
        """The page at ``path`` (None: no such page): its kept copy, or rendered in a page
        thread (``server.cache``)."""
        loop = asyncio.get_running_loop()
        return await self.cache.get(
            path, lambda: loop.run_in_executor(self._pool, self._render, path)
        )

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _linked(paths: Any, most: int) -> list[str]:
    """The first ``most`` of the site's ``paths`` that the index links to: the index, then its
    tournaments, games, ladders and bots, which ``Site.paths`` yields first (read no further:
    match lists and replays follow, a path per stored match)."""
    out: list[str] = []
    for path in paths:
        linked = path == "index.html" or (
            path.count("/") == 1 and path[:2] in ("t/", "g/", "l/", "b/")
        )
        if not linked or len(out) >= most:
            break
        out.append(path)
    return out


def _copied(value: Any) -> Any:
    """A kept answer as its own copy (a page may change the list it got)."""
    return [dict(row) for row in value] if isinstance(value, list) else value
