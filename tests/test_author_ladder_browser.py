"""An author's bot joining the ladder the server hosts, in headless Chromium (issue 31, item 7):
the author signs in with a token, uploads a bot, watches its check until it is stored, then
sees it join the ladder ``serve --ladder`` plays and its first matches arrive on the ladder's
page without reloading it (the page's event stream). Fails on any JavaScript error."""

from __future__ import annotations

import os
import signal
import time

import pytest

import chromium
from conftest import invoke
from mallows.report.data import slug
from mallows.results.store import Store
from mallows.tournaments.ladder.run import prepare_ladder
from mallows.tournaments.ladder.spec import load_ladder
from test_server_ladder import LADDER, serve
from test_server_submissions import bot_files, tar_gz
from test_author_browser import sign_in

chromium.require()


@pytest.mark.slow
def test_an_authors_bot_joins_the_hosted_ladder_and_its_matches_arrive_live(tmp_path, browser):
    (tmp_path / "live.toml").write_text(LADDER)
    db = tmp_path / "r.db"
    token = invoke("users", "add", "ann", "--db", db).output.strip().splitlines()[-1]
    with Store(db) as store:
        prepare_ladder(load_ladder(tmp_path / "live.toml"), store)
    archive = tmp_path / "webbot.tar.gz"
    archive.write_bytes(tar_gz(bot_files("webbot")))
    proc, port = serve(db)
    base = f"http://127.0.0.1:{port}"
    try:
        with chromium.page(browser, timeout=240000) as pg:
            sign_in(pg, base, token)
            pg.fill("#bot-name", "webbot")
            pg.set_input_files("#archive", str(archive))
            pg.click("#upload-button")
            pg.locator("#upload-state[data-state='passed']").wait_for()
            assert "stored as webbot@1" in pg.locator("#upload-state").inner_text()
            pg.goto(f"{base}/l/{slug('live')}.html")
            pg.evaluate("window.stayed = true")
            cell = pg.locator("#ladder-standings tr[data-bot='webbot@1'] td:nth-child(8)")

            def shown() -> int:
                text = cell.inner_text() if cell.count() else ""
                return int(text) if text.strip().isdigit() else 0

            first, deadline = shown(), time.monotonic() + 240
            while shown() <= first:  # more of its matches, as the page updates itself
                assert time.monotonic() < deadline, "its matches did not arrive on the page"
                time.sleep(0.5)
            assert pg.locator("#ladder-standings tr[data-bot='webbot@1']").count() == 1
            assert pg.evaluate("window.stayed === true")  # no reload
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
