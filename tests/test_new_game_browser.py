"""The toy game of the test tree (``toy_highcard``) registered by its one ``GAMES`` line, in
headless Chromium: the report's replay draws its matches with the game's own table script
(every seat's card, step by step), and the play page of ``mallows serve`` (the real server, in
a process whose registry has that one line) plays a whole match by clicking, showing the
person only its own card. Fails on any JavaScript error."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys

import pytest

import chromium
from conftest import REPO, invoke

chromium.require()

TESTS = REPO / "tests"
#: ``mallows serve`` in a process whose game registry has the toy's one line
SERVE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from mallows.games import GAMES\n"
    "GAMES['highcard'] = 'toy_highcard'\n"
    "from mallows.cli import main\n"
    "sys.argv = ['mallows', 'serve', '--db', sys.argv[2], '--port', '0']\n"
    "main()\n"
)


@pytest.fixture
def page(browser):
    with chromium.page(browser, height=900, timeout=20000) as pg:
        yield pg


def _tournament(monkeypatch, tmp_path):
    """The toy registered by its one line, and a small tournament of it in a new database."""
    from mallows.games import GAMES

    monkeypatch.setitem(GAMES, "highcard", "toy_highcard")  # the one line
    toml = tmp_path / "hc.toml"
    toml.write_text(
        'name = "hc"\ngame = "highcard"\nplayers = 3\ndeals = 1\nseed = 9\n'
        'bots = ["random", "random:call=0.5", "random:call=0.9"]\n'
    )
    db = tmp_path / "r.db"
    assert invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet").exit_code == 0
    return db


@pytest.mark.slow
def test_the_report_replays_the_toy_in_chromium(monkeypatch, in_repo, tmp_path, page):
    from mallows.report.data import slug

    db = _tournament(monkeypatch, tmp_path)
    site = tmp_path / "site"
    assert invoke("report", "--db", db, "-o", site).exit_code == 0
    page.goto((site / "m" / f"{slug('hc')}.html").as_uri() + "#0")
    page.wait_for_selector("#table .seat")
    assert page.locator("#table .seat").count() == 3
    assert "round 1: the ten cards are shuffled" in page.locator("#text").inner_text()
    dealt = page.locator("#table .card").all_text_contents()
    assert len(dealt) == 3 and all(v.isdigit() for v in dealt)  # every seat's card, drawn
    page.keyboard.press("End")
    assert "wins the round" in page.locator("#text").inner_text()
    assert page.locator("#table .seat.winner").count() == 1
    steps = page.evaluate("window.mallowsReplay.frames.length")
    assert steps == page.locator("#log li").count() and steps >= 3 * (1 + 3 + 1)


@pytest.fixture
def served(monkeypatch, in_repo, tmp_path):
    db = _tournament(monkeypatch, tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", SERVE, str(TESTS), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert url, line
        yield url.group(0)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


@pytest.mark.slow
def test_the_play_page_plays_the_toy_in_chromium(served, page):
    page.goto(f"{served}/play.html")
    page.select_option("#game", "highcard")
    page.fill("#opponents", "random")
    page.fill("#seat", "0")
    page.fill("#seed", "3")
    page.click("#start")
    page.wait_for_url(re.compile(r"/play/[0-9a-f]+$"))
    clicks = 0
    for _ in range(20):
        # locator waits, not wait_for_function: the server's CSP forbids eval
        page.locator('#status[data-over="1"], #legal button:not([disabled])').first.wait_for()
        if page.locator("#status").get_attribute("data-over") == "1":
            break
        cards = page.locator("#table .card").all_text_contents()
        assert len(cards) == 2 and cards[0].isdigit() and cards[1] == "?"  # its own card only
        decision = page.locator("#status").get_attribute("data-decision")
        page.locator("#legal button").nth(clicks % 2).click()
        clicks += 1
        page.locator(
            f'#status[data-over="1"], #status:not([data-decision="{decision}"])'
        ).first.wait_for()
    assert clicks == 3  # one decision a round, three rounds
    assert "you placed" in page.locator("#result").inner_text()
    page.click("#replay-link")  # the stored match, replayed with the game's table script
    page.wait_for_selector("#table .seat")
    assert page.locator("#table .seat").count() == 2
