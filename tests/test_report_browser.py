"""The report in a real browser: headless Chromium (the distribution's ``chromium``) driven by
Playwright, on the written site (file://) and on ``mallows serve`` (a loopback port). Follows
links from the index to a leaderboard, a bot page and replays, steps with the keyboard, checks
the drawn table against the record, and fails on any JavaScript error. Screenshots go to
``$MALLOWS_TEST_ARTIFACTS`` (default: ``test-artifacts/`` in the project).

Without Chromium these tests skip, saying how to install it; ``.ci/run`` installs it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest

import chromium
from conftest import MALLOWS, REPO
from report_helpers import cli_json, make_db, stored_record

chromium.require()
ARTIFACTS = Path(os.environ.get("MALLOWS_TEST_ARTIFACTS", REPO / "test-artifacts"))


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return make_db(tmp_path_factory.mktemp("browser"))


@pytest.fixture
def page(browser):
    with chromium.page(browser, height=860, timeout=15000) as pg:
        yield pg


def shot(pg, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def go(pg, link_text: str) -> None:
    pg.get_by_role("link", name=link_text, exact=True).first.click()
    pg.wait_for_load_state("load")
    drawn(pg)


def drawn(pg, match_id: str | None = None) -> None:
    """Wait until a tournament's replay page has drawn its match (``match_id``: that one;
    a match's own page draws at once)."""
    # locators, not wait_for_function: serve's CSP allows no eval of a string
    if pg.locator("#replay").count():
        shown = "#replay:not([hidden])" + (f"[data-match='{match_id}']" if match_id else "")
        pg.locator(f"{shown}, #problem:not([hidden])").first.wait_for(state="attached")
    problem = pg.locator("#problem")
    assert not problem.count() or problem.is_hidden(), problem.inner_text()


def step_to(pg, target: int) -> None:
    """Press → / ← until the page shows step ``target``."""
    current = int(pg.locator("#table").get_attribute("data-step"))
    key = "ArrowRight" if target > current else "ArrowLeft"
    for _ in range(abs(target - current)):
        pg.keyboard.press(key)
    assert int(pg.locator("#table").get_attribute("data-step")) == target


def check_arschmallows(pg, record: dict, prefix: str) -> None:
    events = record["events"]
    n, t = len(record["players"]), record["options"]["table_cards"]
    assert pg.locator("#step").inner_text() == f"step 0 / {len(events) - 1}"
    deck = events[0]["deck"]
    # the deal, all-seeing: every card's value as dealt, face down; the discard's top
    for s in range(n):
        values = pg.locator(f'.seat[data-seat="{s}"] .card').evaluate_all(
            "cards => cards.map(c => parseInt(c.dataset.value, 10))"
        )
        assert values == deck[s * t : (s + 1) * t]
    assert int(pg.locator("#discard").get_attribute("data-value")) == deck[n * t]
    assert "draw pile" in pg.locator("#table").inner_text()
    assert str(len(deck) - n * t - 1) == pg.locator("#draw-pile").inner_text()
    # seat 1's view: nothing of anyone's row known before the peeks
    pg.select_option("#view", "1")
    assert pg.locator(".seat .card.hidden").count() == n * t
    peek = next(
        i
        for i, e in enumerate(events)
        if e["type"] == "action" and e["seat"] == 1 and e["action"]["type"] == "peek"
    )
    pg.locator("#slider").focus()
    step_to(pg, peek)
    slots = events[peek]["action"]["slots"]
    known = pg.locator('.seat[data-seat="1"] .card.known').evaluate_all(
        "cards => cards.map(c => [parseInt(c.parentNode.querySelector('.card').dataset.slot, 10),"
        " parseInt(c.dataset.value, 10)])"
    )
    assert sorted(known) == sorted([sl, deck[t + sl]] for sl in slots)
    assert pg.locator('.seat[data-seat="0"] .card.known').count() == 0
    shot(pg, f"{prefix}-replay-seat-view")
    pg.select_option("#view", "all")
    # a draw: the held card is the drawn value, said in words
    draw = next(
        i for i, e in enumerate(events) if e["type"] == "action" and e["action"]["type"] == "draw"
    )
    step_to(pg, draw)
    held = pg.locator("#held").get_attribute("data-value")
    assert f"draws {held}" in pg.locator("#text").inner_text()
    shot(pg, f"{prefix}-replay")
    # the first round's end: its scores, doubling said in words
    end = next(i for i, e in enumerate(events) if e["type"] == "round_end")
    step_to(pg, end)
    text = pg.locator("#text").inner_text()
    assert all(str(v) in text for v in events[end]["scores"])
    if events[end]["caller"] is not None:
        assert "caller" in text
    assert pg.locator("#log li").count() == len(events)
    shot(pg, f"{prefix}-replay-round-end")


def check_take4(pg, record: dict, prefix: str) -> None:
    events = record["events"]
    deck = events[0]["deck"]
    names = pg.locator(".position .card").evaluate_all("cs => cs.map(c => c.dataset.value)")
    assert names == deck[:4]
    pg.keyboard.press("ArrowRight")
    picks = events[1]
    assert picks["type"] == "picks"
    text = pg.locator("#text").inner_text()
    for _seat, p in enumerate(picks["picks"]):
        assert deck[p - 1] in text
    pg.keyboard.press("End")
    final = record["result"]["collections"]
    for s, held in enumerate(final):
        have = pg.locator(f'.seat[data-seat="{s}"] .card[data-count]').evaluate_all(
            "cs => cs.map(c => [c.dataset.value, parseInt(c.dataset.count, 10)])"
        )
        assert {k: v for k, v in have if v} == {c: held.count(c) for c in set(held)}
    shot(pg, f"{prefix}-replay-take4")


def walk(pg, start_url: str, db: Path, prefix: str) -> None:
    pg.goto(start_url)
    assert pg.title().startswith("results")
    shot(pg, f"{prefix}-index")
    go(pg, "arsch-small")
    rows = pg.locator("table.board tbody tr")
    board = cli_json("ratings", "--db", str(db), "--tournament", "arsch-small", "--format", "json")
    assert rows.count() == len(board)
    assert [rows.nth(i).locator("td").nth(1).inner_text() for i in range(rows.count())] == [
        r["bot"] for r in board
    ]
    # sort by clicking a header: matches, then mu (descending on the first click)
    pg.locator("table.board th", has_text="mu").first.click()
    mus = [float(x) for x in pg.locator("table.board tbody td:nth-child(3)").all_inner_texts()]
    assert mus == sorted(mus, reverse=True)
    assert pg.locator(".plot svg").count() == 2
    shot(pg, f"{prefix}-leaderboard")
    go(pg, board[0]["bot"])
    assert pg.locator("h1").inner_text() == board[0]["bot"]
    # the two headings of each leaderboard the bot is on (the top bot of arsch-small may also
    # play take4-small, by the deal); other text on the page may say "by seat" too, e.g. a hint
    boards = pg.locator("section .two").count()
    assert boards >= 1
    assert pg.get_by_role("heading", name="By seat", exact=True).count() == boards
    assert pg.get_by_role("heading", name="By opponent", exact=True).count() == boards
    shot(pg, f"{prefix}-bot")
    pg.go_back()
    pg.locator("details").first.evaluate("d => { d.open = true; }")
    go(pg, "arsch-small/0")
    record = cli_json("replay", "arsch-small/0", "--db", str(db), "--json")
    check_arschmallows(pg, record, prefix)
    pg.goto(start_url)
    go(pg, "take4-small")
    go(pg, "take4-small/2")
    check_take4(pg, cli_json("replay", "take4-small/2", "--db", str(db), "--json"), prefix)


@pytest.mark.slow
def test_static_report_in_chromium(db, page, tmp_path):
    out = tmp_path / "site"
    subprocess.run(
        [MALLOWS, "report", "--db", str(db), "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    walk(page, (out / "index.html").as_uri(), db, "static")


@pytest.mark.slow
def test_serve_in_chromium(db, page):
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/index\.html", line)
        assert url, line
        walk(page, url.group(0), db, "serve")
        # a written report's replay address lands on the match's own page here
        from mallows.report.data import slug

        base = url.group(0).rsplit("/", 1)[0]
        page.goto(f"{base}/m/{slug('take4-small')}.html#2")
        page.wait_for_url(f"{base}/m/{slug('take4-small')}/2.html")
        drawn(page)
        check_take4(page, stored_record(db, "take4-small/2"), "serve-address")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def site(db, tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "site"
    subprocess.run(
        [MALLOWS, "report", "--db", str(db), "-o", str(out)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    return out


@pytest.mark.slow
@pytest.mark.parametrize("match_id", ["take4-small/2", "arsch-small/0"])
def test_replay_result_cells_as_the_game_describes_them(site, db, page, match_id):
    """Issue 22 item 1: the result table shows every cell as ``mallows play`` prints it (the
    bot-name shortener turned Take4's ``Food 4/4`` into ``4``); only bot names given by path
    are shortened, and the record's players are already."""
    from mallows.games import get_game
    from mallows.report.data import short_bot

    record = cli_json("replay", match_id, "--db", str(db), "--json")
    shown = dict(record, players=[short_bot(p) for p in record["players"]])
    headers, rows, _ = get_game(record["game"]).summary(shown)
    from mallows.report.data import slug

    name, idx = match_id.split("/")
    page.goto((site / "m" / f"{slug(name)}.html").as_uri() + f"#{idx}")
    drawn(page, match_id)
    table = page.locator("table").first
    assert table.locator("thead th").all_inner_texts() == headers
    cells = [r.locator("td").all_inner_texts() for r in table.locator("tbody tr").all()]
    assert cells == [[str(c) for c in r] for r in rows]
    if record["game"] == "take4":
        assert any("/4" in c for r in cells for c in r)  # a best squad as "Food 4/4"


@pytest.mark.slow
def test_a_replay_from_the_data_file(site, db, page):
    """The static report's one replay page of a tournament (opened from the file system)
    draws the match named in its address from the tournament's compressed data file: the
    moves shown are the record's; "next match" draws the next one without a page load; a
    match that is not there is said so."""
    from mallows.report.data import short_bot, slug

    url = (site / "m" / f"{slug('take4-small')}.html").as_uri()
    assert not (site / "m" / slug("take4-small")).exists()  # no page per match
    page.goto(f"{url}#2")
    drawn(page, "take4-small/2")
    assert page.locator("h1").inner_text().startswith("Match take4-small/2")
    record = stored_record(db, "take4-small/2")
    check_take4(page, record, "data")
    # every round's picks in words, in order: the log is the record's moves
    log = page.locator("#log li").all_inner_texts()
    assert len(log) == len(record["events"])
    picks = [(i, e) for i, e in enumerate(record["events"]) if e["type"] == "picks"]
    assert picks
    names = [short_bot(p) for p in record["players"]]
    for i, e in picks:  # seat by seat: "NAME picks CARD (SQUAD, position P...)"
        said = log[i].split(". Nobody picks", 1)[0]
        assert said.startswith(f"round {e['round'] + 1}: ")
        parts = said.split(": ", 1)[1].split("; ")
        assert len(parts) == len(e["picks"])
        for seat, (part, position) in enumerate(zip(parts, e["picks"])):
            assert part.startswith(f"{names[seat]} picks ") and f"position {position}" in part
    page.evaluate("() => { window.stayed = true; }")
    page.get_by_role("link", name="next match ›").click()
    drawn(page, "take4-small/3")
    assert page.evaluate("() => window.stayed === true")  # the same page, another match
    nxt = stored_record(db, "take4-small/3")
    shown = page.locator(".position .card").evaluate_all("cs => cs.map(c => c.dataset.value)")
    assert shown == nxt["events"][0]["deck"][:4]
    assert page.locator("#log li").count() == len(nxt["events"])
    page.goto(f"{url}#99")
    page.wait_for_selector("#problem", state="visible")
    assert page.locator("#replay").is_hidden()
    assert page.locator("#problem").inner_text() == "no match take4-small/99 in this report"
    page.goto((site / "m" / f"{slug('arsch-small')}.html").as_uri() + "#1")
    drawn(page, "arsch-small/1")
    arsch = stored_record(db, "arsch-small/1")
    check_arschmallows(page, arsch, "data")


@pytest.mark.slow
def test_a_replay_in_a_later_data_file(db, page, tmp_path, monkeypatch):
    """A tournament in several data files (5 matches each here): the page loads only the file
    that holds the match asked for, and each match shown is its record's deal."""
    from mallows.report import replay_data
    from mallows.report.data import slug
    from mallows.report.site import Site
    from mallows.results.store import Store

    monkeypatch.setattr(replay_data, "CHUNK_MATCHES", 5)
    out = tmp_path / "site"
    with Store(db, readonly=True) as store:
        Site(store, tournament="take4-small", replay_data=True).write(out)
    assert len(list((out / "d" / slug("take4-small")).glob("*.js"))) == 3  # 12 matches
    url = (out / "m" / f"{slug('take4-small')}.html").as_uri()
    loaded = (
        "() => [...document.scripts].map(s => s.src).filter(s => s.includes('/d/'))"
        ".map(s => s.split('/').pop())"
    )
    for idx, files in ((11, ["2.js"]), (4, ["2.js", "0.js"]), (7, ["2.js", "0.js", "1.js"])):
        page.goto(f"{url}#{idx}")
        drawn(page, f"take4-small/{idx}")
        record = stored_record(db, f"take4-small/{idx}")
        shown = page.locator(".position .card").evaluate_all("cs => cs.map(c => c.dataset.value)")
        assert shown == record["events"][0]["deck"][:4]
        assert page.evaluate(loaded) == files
    assert page.locator("#next-match").is_visible()
    page.goto(f"{url}#11")
    drawn(page, "take4-small/11")
    assert page.locator("#next-match").is_hidden()  # the last match


@pytest.mark.slow
def test_a_record_that_does_not_replay_shows_its_events_in_words(db, page, tmp_path):
    """A damaged record in the data file: the replay page says why it draws no table and
    lists the events in words; the next match draws its table again."""
    import shutil
    import sqlite3

    from mallows.report.data import slug
    from mallows.results.store import Store

    copy = tmp_path / "damaged.db"
    shutil.copy(db, copy)
    with Store(copy, readonly=True) as store:
        record = json.loads(store.record("arsch-small/1"))
    record["events"] = record["events"][:-5]  # cut short
    con = sqlite3.connect(copy)
    with con:  # stored back as plain text (codec NULL), a form the store still reads
        con.execute(
            "UPDATE matches SET record = ?, record_z = NULL, codec = NULL "
            "WHERE id = 'arsch-small/1'",
            [json.dumps(record)],
        )
    con.close()
    out = tmp_path / "site"
    subprocess.run(
        [MALLOWS, "report", "--db", str(copy), "-o", str(out), "--tournament", "arsch-small"],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    page.goto((out / "m" / f"{slug('arsch-small')}.html").as_uri() + "#1")
    drawn(page, "arsch-small/1")
    assert page.locator("#error").inner_text().startswith("No card table for this match: ")
    assert page.locator("#drawn").is_hidden()
    assert page.locator("#lines li").count() >= len(record["events"])
    assert "does not match its digest" in page.locator("#notes").inner_text()
    page.get_by_role("link", name="next match ›").click()
    drawn(page, "arsch-small/2")
    assert page.locator("#no-table").is_hidden() and page.locator("#table .seat").count() == 3


class _StaticHost:
    """The written site on a loopback web server that answers a missing address with the
    site's 404.html, as static hosts do."""

    def __init__(self, folder: Path):
        import functools
        import http.server
        import threading

        class Handler(http.server.SimpleHTTPRequestHandler):
            def send_error(self, code, message=None, explain=None):
                if code != 404:
                    return super().send_error(code, message, explain)
                body = (folder / "404.html").read_bytes()
                self.send_response(404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder))
        )
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.mark.slow
def test_the_report_on_a_web_server_and_an_older_reports_links(site, db, page):
    """The same site put on a web server: the replay loads its data there too, and an older
    report's address of a match (a page per match, m/<slug>/<index>.html) lands on that
    match's replay."""
    from mallows.report.data import slug

    host = _StaticHost(site)
    try:
        page.goto(f"{host.base}/m/{slug('take4-small')}/2.html")
        drawn(page, "take4-small/2")
        assert page.url.endswith(f"/m/{slug('take4-small')}.html#2")
        check_take4(page, stored_record(db, "take4-small/2"), "http")
        # the old address itself answers 404 (the browser says so on its console): only that
        assert [e for e in page.errors if "status of 404" in e] == page.errors[:1]
        del page.errors[:1]
    finally:
        host.server.shutdown()
        host.server.server_close()


@pytest.fixture(scope="module")
def compared(tmp_path_factory):
    """Two comparisons in one database: one decided (greedy better than random, H1) and one
    stopped undecided by --max-matches; with what ``mallows compare`` printed for each."""
    folder = tmp_path_factory.mktemp("compare")
    db = folder / "c.db"
    printed = {}
    for args, code in (
        (["greedy", "random"], 0),
        (["random", "random:call=0.5", "--max-matches", "6"], 3),
    ):
        out = subprocess.run(
            [MALLOWS, "compare", *args, "--game", "take4", "--workers", "1", "--db", str(db)],
            capture_output=True,
            text=True,
            cwd=REPO,
            timeout=600,
        )
        assert out.returncode == code, out.stdout + out.stderr
        name = re.search(r"stored as (\S+):", out.stdout).group(1)
        printed[name] = out.stdout
    site = folder / "site"
    subprocess.run(
        [MALLOWS, "report", "--db", str(db), "-o", str(site)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    return site, printed


@pytest.mark.slow
def test_compare_page_shows_the_verdict_the_terminal_printed(compared, page):
    """Issue 22 item 11: a comparison's page says what ``mallows compare`` decided: verdict
    (H1, H0 or none), LLR, bounds, pairs and the estimate, signed as the question is asked
    (A better by ...), the same figures the terminal printed."""
    from mallows.report.data import slug

    site, printed = compared
    verdicts = set()
    for name, text in printed.items():
        page.goto((site / "t" / f"{slug(name)}.html").as_uri())
        status = re.findall(
            r"Pairs: (\d+) \(\d+ matches\), Diff: ([+-]\d\.\d+) \+/- (\S+) "
            r"places/match, LLR: (-?\d+\.\d\d) \(\S+\) \((-?\d+\.\d\d), "
            r"(-?\d+\.\d\d)\)",
            text,
        )[-1]
        pairs, diff, half, llr, lower, upper = status
        verdict = "H1" if "H1 accepted" in text else "H0" if "H0 accepted" in text else "none"
        verdicts.add(verdict)
        assert page.locator("#verdict").get_attribute("data-verdict") == verdict
        assert page.locator("#compare-verdict").inner_text() == verdict
        assert page.locator("#compare-llr").inner_text() == llr
        assert (
            page.locator("#compare-bounds")
            .inner_text()
            .startswith(f"{lower} (accept H0), {upper} (accept H1)")
        )
        assert page.locator("#compare-pairs").inner_text().startswith(f"{pairs} (")
        estimate = page.locator("#compare-estimate").inner_text()
        assert estimate.startswith(f"A better by {diff} ± {half} places per match"), estimate
        assert "better than" in text and f"by {diff} +/- {half} places per match" in text
        assert page.locator("table.board tbody tr").count() == 2  # the leaderboard stays
        shot(page, f"compare-{verdict}")
    assert verdicts == {"H1", "none"}
