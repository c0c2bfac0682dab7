"""The author page of ``mallows serve`` in headless Chromium (issue 31, item 7): an author signs
in with a token, uploads a bot archive, watches its check in the queue until it is stored as
``NAME@N`` and listed, without reloading; a second author, signed in in another tab, does not
see it and cannot withdraw it. Fails on any JavaScript error (a CSP violation included)."""

from __future__ import annotations


import pytest

import chromium
from conftest import invoke, serving
from test_server_submissions import bot_files, tar_gz

chromium.require()


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("author")
    db = folder / "r.db"
    tokens = {
        name: invoke("users", "add", name, "--db", db).output.strip().splitlines()[-1]
        for name in ("ann", "ben")
    }
    with serving(["--db", db, "--check-games", "1"]) as base:
        yield base, tokens, folder


def sign_in(pg, base: str, token: str) -> None:
    pg.goto(f"{base}/author.html")
    pg.fill("#token", token)
    pg.click("#sign-in-button")
    pg.locator("#who[data-account]").wait_for()


@pytest.mark.slow
def test_an_author_uploads_watches_the_check_and_sees_the_version(served, browser):
    base, tokens, folder = served
    archive = folder / "webbot.tar.gz"
    archive.write_bytes(tar_gz(bot_files("webbot")))
    with chromium.page(browser, timeout=240000) as pg:
        sign_in(pg, base, tokens["ann"])
        assert pg.locator("#who").inner_text() == "signed in as ann"
        pg.evaluate("window.stayed = true")
        pg.fill("#bot-name", "webbot")
        pg.set_input_files("#archive", str(archive))
        pg.click("#upload-button")
        pg.locator("#upload-state[data-state='passed']").wait_for()
        assert "stored as webbot@1" in pg.locator("#upload-state").inner_text()
        pg.locator("#versions tr[data-bot='webbot@1']").wait_for()
        assert pg.evaluate("window.stayed === true")  # no reload
        assert "webbot" in pg.locator("#upload-output").inner_text()
    with chromium.page(browser) as other:
        sign_in(other, base, tokens["ben"])
        assert other.locator("#versions tr[data-bot='webbot@1']").count() == 0
    with chromium.page(browser) as pg:
        sign_in(pg, base, tokens["ann"])
        pg.locator("#versions tr[data-bot='webbot@1'] button.withdraw").click()
        pg.locator("#versions tr[data-bot='webbot@1'] td", has_text="withdrawn").wait_for()
