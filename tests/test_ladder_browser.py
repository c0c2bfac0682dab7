"""A running ladder seen live in a real browser: headless Chromium (the distribution's
``chromium``) driven by Playwright on ``mallows serve``, while ``mallows ladder run`` plays it in
another process. The index links the ladder; its page shows the standings with intervals, the
recent matches with why each was scheduled, and refreshes itself as matches are stored.

Without Chromium these tests skip, saying how to install it; ``.ci/run`` installs it.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows.results.store import Store

CHROMIUM = os.environ.get("MALLOWS_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = Path(os.environ.get("MALLOWS_TEST_ARTIFACTS", REPO / "test-artifacts"))

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is missing: pip install -e '.[test]'"
)
if not Path(CHROMIUM).exists():
    pytest.skip(
        f"no Chromium at {CHROMIUM}: install it (Debian/Ubuntu: apt-get install "
        f"chromium) or point MALLOWS_CHROMIUM at one",
        allow_module_level=True,
    )


def stored(db: Path) -> int:
    if not db.exists():
        return 0
    with Store(db, readonly=True) as store:
        return store.count_matches("live") if store.tournament("live") else 0


@pytest.mark.slow
def test_serve_shows_a_running_ladder_refreshing_as_it_plays(tmp_path):
    path = tmp_path / "live.toml"
    path.write_text(
        'name = "live"\ngame = "take4"\nplayers = 3\nseed = 2\n'
        'max_matches = 100000\nbots = ["random", "greedy", "denial", '
        '"random:call=0.9"]\n[limits]\nsandbox = "off"\n'
        '[[questions]]\ntype = "order"\ncertainty = 0.999\n'
    )
    db = tmp_path / "live.db"
    run = subprocess.Popen(
        [MALLOWS, "ladder", "run", str(path), "--db", str(db), "--workers", "1", "--quiet"],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    serve = None
    try:
        deadline = time.monotonic() + 60
        while stored(db) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stored(db) >= 3
        bot = tmp_path / "newbie"  # a version submitted while the ladder runs
        shutil.copytree(REPO / "bots" / "example_python", bot)
        entered = invoke(
            "bots",
            "submit",
            bot,
            "--name",
            "newbie",
            "--games",
            "1",
            "--sandbox",
            "off",
            "--db",
            db,
            "--ladder",
            "live",
        )
        assert entered.exit_code == 0, entered.output
        serve = subprocess.Popen(
            [MALLOWS, "serve", "--db", str(db), "--port", "0", "--refresh", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            start_new_session=True,
        )
        url = re.search(r"http://127\.0\.0\.1:\d+/index\.html", serve.stdout.readline())
        assert url
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            page = browser.new_page(viewport={"width": 1100, "height": 900})
            page.set_default_timeout(15000)
            errors: list[str] = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            page.goto(url.group(0))
            page.locator("ul.ladders a", has_text="live").click()
            page.wait_for_load_state("load")
            assert page.locator("#ladder-state").get_attribute("data-finished") == "no"
            rows = page.locator("#ladder-standings tbody tr")
            assert rows.count() in (4, 5)  # the four of the file (and the newcomer, once in)
            assert re.search(r"\[[+-]\d\.\d\d, [+-]\d\.\d\d\]", rows.first.inner_text())
            first = int(page.locator("#ladder-progress").inner_text())
            page.evaluate("window.loadedOnce = true")  # gone if the page reloads
            reasons = page.locator("#ladder-recent tbody tr td:nth-child(3)").all_inner_texts()
            assert reasons and all(
                r == "base" or r.startswith(("extra:", "newcomer:newbie@1")) for r in reasons
            )
            assert "order at 99.9%" in page.locator("#ladder-questions").inner_text()
            later = first
            deadline = time.monotonic() + 30
            while later <= first and time.monotonic() < deadline:  # the page reloads itself
                time.sleep(0.5)
                try:
                    later = int(page.locator("#ladder-progress").inner_text(timeout=2000))
                except playwright_api.Error:
                    continue  # caught between two loads
            assert later > first, "the ladder page did not refresh while the ladder ran"
            # updated in place from the server's events, not reloaded
            assert page.evaluate("window.loadedOnce === true && document.body.dataset.live")
            # the version submitted while it ran joins at its next epoch, shown as a newcomer
            seen = ""
            deadline = time.monotonic() + 40
            while "newbie@1" not in seen and time.monotonic() < deadline:
                time.sleep(0.5)
                try:
                    seen = page.locator("#ladder-newcomers").inner_text(timeout=2000)
                except playwright_api.Error:
                    continue
            assert "newbie@1" in seen and "joined at epoch" in seen
            row = page.locator('#ladder-standings tr[data-bot="newbie@1"]')
            assert row.count() == 1
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "ladder-live.png"))
            browser.close()
            assert errors == []
    finally:
        invoke("ladder", "stop", "live", "--db", db)
        try:
            run.wait(timeout=30)
        finally:
            if run.poll() is None:
                os.killpg(run.pid, signal.SIGKILL)
            if serve is not None:
                os.killpg(serve.pid, signal.SIGTERM)
                serve.wait(timeout=10)
