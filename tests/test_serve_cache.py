"""``mallows serve``'s page cache (issue 31, item 7's load target): a page is rendered once per
change of the database, not once per request; while it is rendered again everyone else gets
the last copy at once; a copy too old is waited for (a page asked after a quiet spell shows
what was stored since); bounded in pages and bytes; the main pages rendered before the first
request. The figures on a 10^6-match database are printed by benchmarks/bench_serve_load.py."""

from __future__ import annotations

import asyncio

from mallows.report.data import slug
from mallows.server.cache import PageCache
from mallows.server.pages import Pages, _linked
from test_serve_scale import played


class Renders:
    """What a page would show at each database version, rendered with a delay that can be
    held open (``gate``) to see what others get meanwhile; ``now``: the cache's clock."""

    def __init__(self) -> None:
        self.version = 1
        self.calls = 0
        self.now = 0.0
        self.gate: asyncio.Event | None = None

    async def __call__(self) -> str:
        self.calls += 1
        seen = self.version
        if self.gate is not None:
            await self.gate.wait()
        return f"page at {seen}"

    def cache(self, **bounds: int) -> PageCache:
        return PageCache(lambda: self.version, max_age=5, clock=lambda: self.now, **bounds)


def run(coro) -> object:
    return asyncio.run(coro)


def test_one_rendering_per_change_however_many_ask() -> None:
    async def go() -> None:
        r = Renders()
        cache = r.cache()
        r.now, r.gate = 100.0, asyncio.Event()
        waiting = [asyncio.ensure_future(cache.get("/index.html", r)) for _ in range(20)]
        await asyncio.sleep(0.01)
        r.gate.set()
        assert await asyncio.gather(*waiting) == ["page at 1"] * 20
        assert r.calls == 1  # the cold page: rendered once for all twenty
        assert await cache.get("/index.html", r) == "page at 1" and r.calls == 1  # unchanged
        # asked steadily, the database changes: within max_age the copy is served as it is
        r.version = 2
        for _ in range(4):
            r.now += 1
            assert await cache.get("/index.html", r) == "page at 1"
        await asyncio.sleep(0.01)
        assert r.calls == 1
        # max_age old: everyone gets the last copy at once while one rendering runs
        r.now, r.gate = r.now + 1, asyncio.Event()  # 5 s old, asked a second ago
        got = await asyncio.gather(*(cache.get("/index.html", r) for _ in range(20)))
        await asyncio.sleep(0.01)
        assert got == ["page at 1"] * 20 and r.calls == 2
        r.gate.set()
        await asyncio.sleep(0.01)
        assert await cache.get("/index.html", r) == "page at 2" and r.calls == 2

    run(go())


def test_a_page_asked_after_a_quiet_spell_is_rendered_again_and_waited_for() -> None:
    async def go() -> None:
        r = Renders()
        cache = r.cache()
        assert await cache.get("/t/x.html", r) == "page at 1"
        r.now = 60.0
        assert await cache.get("/t/x.html", r) == "page at 1"  # unchanged: kept however old
        r.now, r.version = 120.0, 2
        assert await cache.get("/t/x.html", r) == "page at 2"  # changed, quiet: the fresh one
        assert r.calls == 2

    run(go())


def test_background_renderings_are_bounded_and_errors_are_not_kept() -> None:
    async def go() -> None:
        r = Renders()
        cache = r.cache(max_refreshes=2)
        for k in range(5):
            await cache.get(f"/b/{k}.html", r)
        r.now, r.version, r.gate = 4.0, 2, asyncio.Event()
        for k in range(5):
            await cache.get(f"/b/{k}.html", r)
        r.now = 8.0
        for k in range(5):
            assert await cache.get(f"/b/{k}.html", r) == "page at 1"
        await asyncio.sleep(0.01)
        assert r.calls == 5 + 2  # two at once; the others wait for a later request
        r.gate.set()
        await asyncio.sleep(0.01)

        async def broken() -> str:
            raise RuntimeError("the page failed")

        for _ in range(2):
            try:
                await cache.get("/broken.html", broken)
            except RuntimeError as exc:
                assert "failed" in str(exc)
            else:
                raise AssertionError("a failed page was kept")
        assert "/broken.html" not in cache.copies

    run(go())


def test_the_cache_is_bounded_in_pages_and_bytes() -> None:
    cache = PageCache(lambda: 1, max_age=1, max_pages=3, max_bytes=100)
    for k in range(5):
        cache.put(f"/m/{k}.html", "x" * 10, 1, 0.0)
    assert list(cache.copies) == ["/m/2.html", "/m/3.html", "/m/4.html"]
    cache.put("/big.html", "y" * 90, 1, 0.0)
    assert list(cache.copies) == ["/m/4.html", "/big.html"] and cache.bytes == 100
    cache.put("/huge.html", "z" * 101, 1, 0.0)
    assert "/huge.html" not in cache.copies and cache.bytes <= 100


def test_warm_renders_the_index_and_what_it_links_to_before_any_request(tmp_path) -> None:
    paths = ["index.html", "t/a.html", "g/take4.html", "b/x.html", "t/a/1.html", "m/a/0.html"]
    assert _linked(iter(paths), 64) == paths[:4]  # read no further than the linked pages
    assert _linked(iter(paths), 2) == paths[:2]
    db = played(tmp_path)
    pages = Pages(db, refresh=5)
    try:
        assert pages.warm(pages=2) == 2
        assert set(pages.cache.copies) == {"/index.html", f"/t/{slug('live')}.html"}
        renders = pages.cache.renders

        async def index() -> object:
            return await pages.render("/index.html")

        assert "live" in str(asyncio.run(index()))
        assert pages.cache.renders == renders  # served from the warm copy
    finally:
        pages.close()
