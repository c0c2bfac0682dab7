"""``mallows serve`` hardened (issue 26, item 5): ports checked; a host beyond loopback only
with ``--public`` and a warning; ``--host ::1`` serves (or says IPv6 is off); big tournaments'
pages paginated and cheap (a big board is computed in the background and a partial board
shown meanwhile); a slow page holds up no other; while a run writes, no request fails.

The sizes and times on a 150,000-match database are measured by benchmarks/bench_serve.py."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import MALLOWS, REPO
from mallows.cli import app
from mallows.report import site as site_module
from mallows.report.data import slug
from mallows.report.live import LiveBoards, PartialBoard
from mallows.report.site import Site
from mallows.results.store import Store

TOML = (
    'name = "{name}"\ngame = "take4"\nplayers = 2\ndeals = {deals}\nseed = 4\n'
    'bots = ["random", "greedy", "denial"]\n'
)


def get(url: str, timeout: float = 30) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


_PLAYED: dict[tuple[str, int], Path] = {}


def played(tmp_path: Path, name: str = "live", deals: int = 3) -> Path:
    """A database with tournament ``name`` played (each kind once per session, then copied)."""
    import shutil

    key = (name, deals)
    if key not in _PLAYED or not _PLAYED[key].exists():
        _PLAYED[key] = _play(tmp_path / "cache", name, deals)
    (tmp_path / "own").mkdir(exist_ok=True)
    return Path(shutil.copy(_PLAYED[key], tmp_path / "own" / "r.db"))


def _play(tmp_path: Path, name: str, deals: int) -> Path:
    tmp_path.mkdir(exist_ok=True)
    toml = tmp_path / f"{name}.toml"
    toml.write_text(TOML.format(name=name, deals=deals))
    db = tmp_path / "r.db"
    subprocess.run(
        [MALLOWS, "tournament", "run", str(toml), "--db", str(db), "--workers", "1", "--quiet"],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    return db


def serve(db: Path, *args: str) -> tuple[subprocess.Popen, str, str]:
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    line = proc.stdout.readline()
    m = re.search(r"(http://\S+?):(\d+)/index\.html", line)
    if not m:
        proc.kill()
        raise AssertionError(f"serve said {line!r} {proc.stderr.read()}")
    return proc, f"{m.group(1)}:{m.group(2)}", line


def stop(proc: subprocess.Popen) -> str:
    os.killpg(proc.pid, signal.SIGTERM)
    _, err = proc.communicate(timeout=10)
    return err


# -- ports and hosts ----------------------------------------------------------------------------


@pytest.mark.parametrize("port", ["70000", "-1", "65536", "99999999999999999999"])
def test_a_port_out_of_range_is_a_message(tmp_path, port):
    db = tmp_path / "x.db"
    Store(db).close()
    result = CliRunner().invoke(app, ["serve", "--db", str(db), "--port", port])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    text = " ".join(result.output.split())
    assert "from 1 to 65535, or 0 for any free port" in text or "Invalid value" in text, text
    assert "OverflowError" not in text


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.0.2.1", "example.com"])
def test_a_host_beyond_loopback_needs_public(tmp_path, host):
    db = tmp_path / "x.db"
    Store(db).close()
    result = CliRunner().invoke(app, ["serve", "--db", str(db), "--host", host, "--port", "0"])
    text = " ".join(result.output.split())
    assert result.exit_code == 2 and "carry no authentication" in text and "--public" in text


def test_public_serves_with_a_warning(tmp_path):
    db = played(tmp_path, deals=10)
    proc, base, _ = serve(db, "--host", "0.0.0.0", "--public")
    try:
        port = base.rsplit(":", 1)[1]
        assert get(f"http://127.0.0.1:{port}/index.html")[0] == 200
    finally:
        err = stop(proc)
    assert "warning: serving on 0.0.0.0" in err and "no authentication" in err


def test_ipv6_loopback_serves_or_says_ipv6_is_off(tmp_path):
    db = played(tmp_path, deals=10)
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        has_ipv6 = True
    except OSError:
        has_ipv6 = False
    if has_ipv6:
        proc, base, line = serve(db, "--host", "::1")
        try:
            assert "http://[::1]:" in line
            assert get(base + "/index.html")[0] == 200
        finally:
            stop(proc)
    else:
        result = subprocess.run(
            [MALLOWS, "serve", "--db", str(db), "--host", "::1"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert result.returncode == 2 and "IPv6 may be off" in result.stderr
        assert "choose another --port" not in result.stderr


# -- big tournaments: paginated, cheap ---------------------------------------------------------


def test_the_match_list_is_paginated(tmp_path, monkeypatch):
    db = played(tmp_path, deals=10)  # 60 matches
    monkeypatch.setattr(site_module, "MATCHES_PER_PAGE", 25)
    site = Site(Store(db, readonly=True))
    first = site.resolve(f"t/{slug('live')}.html")()
    assert "matches 1–25 of 60" in first and first.count('href="../m/') == 25
    assert f'href="../t/{slug("live")}/2.html"' in first
    second = site.resolve(f"t/{slug('live')}/1.html")()
    assert "matches 26–50 of 60" in second and "live/49</a>" in second
    assert site.resolve(f"t/{slug('live')}/3.html")() is None  # 3 pages: 0, 1, 2
    assert f"t/{slug('live')}/2.html" in set(site.paths())
    out = tmp_path / "site"
    site.write(out)
    assert (out / "t" / slug("live") / "2.html").is_file()


def test_a_big_board_is_computed_in_the_background_and_a_partial_one_shown(tmp_path):
    db = played(tmp_path, deals=10)
    boards = LiveBoards(lambda: Store(db, readonly=True), sync_matches=10)
    site = Site(Store(db, readonly=True), live=True, boards=boards)
    t0 = time.perf_counter()
    page = site.resolve(f"t/{slug('live')}.html")()
    assert "are being computed" in page  # at once, from the stored leaderboard
    assert isinstance(site.board("tournament", "live"), PartialBoard) or boards.wait(0)
    rows = Store(db, readonly=True).ratings("tournament", "live")
    assert all(r["bot"] in page for r in rows)
    assert boards.wait(60)
    page = site.resolve(f"t/{slug('live')}.html")()
    assert "are being computed" not in page and "Head to head" in page
    assert time.perf_counter() - t0 < 60


def test_a_slow_page_blocks_no_other(tmp_path, monkeypatch):
    """A page that takes long (here a replay made to sleep 12 s, as a big computation would)
    holds one page thread; the index is served meanwhile (within 8 s: a loaded machine takes
    seconds for a page, a blocked one could not answer before the slow page's 12)."""
    db = played(tmp_path, deals=10)
    script = tmp_path / "slow_serve.py"
    script.write_text(
        "import sys, time\n"
        "from mallows.report import site\n"
        "original = site.Site.replay_page\n"
        "def slow(self, *a, **k):\n"
        "    time.sleep(12)\n"
        "    return original(self, *a, **k)\n"
        "site.Site.replay_page = slow\n"
        "from mallows.cli import app\n"
        "sys.argv = ['mallows', 'serve', '--db', sys.argv[1], '--port', '0']\n"
        "app()\n"
    )
    import sys

    proc = subprocess.Popen(
        [sys.executable, str(script), str(db)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline()
        base = re.search(r"(http://\S+?:\d+)/", line).group(1)
        slow = threading.Thread(target=get, args=(f"{base}/m/{slug('live')}/1.html",))
        slow.start()
        time.sleep(0.5)
        t0 = time.perf_counter()
        assert get(f"{base}/index.html")[0] == 200
        assert time.perf_counter() - t0 < 8  # not after the slow page
        slow.join()
    finally:
        stop(proc)


def test_requests_never_fail_while_a_run_writes(tmp_path):
    db = played(tmp_path, name="done", deals=2)
    toml = tmp_path / "w.toml"
    toml.write_text(TOML.format(name="writing", deals=2000))
    writer = subprocess.Popen(
        [MALLOWS, "tournament", "run", str(toml), "--db", str(db), "--workers", "1", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    proc, base, _ = serve(db)
    try:
        time.sleep(1)
        paths = [
            "/index.html",
            f"/t/{slug('done')}.html",
            f"/t/{slug('writing')}.html",
            f"/m/{slug('done')}/1.html",
            f"/b/{slug('greedy')}.html",
        ]
        with ThreadPoolExecutor(8) as pool:
            results = list(
                pool.map(
                    lambda p: get(base + p, timeout=60)[0],
                    [paths[i % len(paths)] for i in range(80)],
                )
            )
        assert writer.poll() is None, "the run ended before the requests did"
        assert results.count(200) == len(results), results
    finally:
        os.killpg(writer.pid, signal.SIGKILL)
        writer.wait(30)
        stop(proc)
