"""``mallows serve``: the report's pages live from the database, on loopback, read-only; a
tournament still running shows its progress and reloads itself."""

from __future__ import annotations

import os
import re
import signal
import socket
import sqlite3
import subprocess
import time
import urllib.error
import urllib.request

import pytest

from conftest import MALLOWS, REPO
from mallows.report.data import slug

TOML = (
    'name = "live"\ngame = "take4"\nplayers = 2\ndeals = 3\nseed = 4\n'
    'bots = ["random", "greedy", "denial"]\n'
)  # 3 tables x 2 rotations x 3 deals = 18


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


@pytest.fixture
def served(tmp_path):
    (tmp_path / "t.toml").write_text(TOML)
    db = tmp_path / "r.db"
    subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(tmp_path / "t.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    # as if killed mid-run: the last 8 matches are not stored yet
    con = sqlite3.connect(db)
    with con:
        con.execute("DELETE FROM matches WHERE idx >= 10")
    con.close()
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0", "--refresh", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://(127\.0\.0\.1):(\d+)/index\.html", line)
        assert m, f"serve said {line!r}"
        yield tmp_path, db, f"http://127.0.0.1:{m.group(2)}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


def fresh(url: str, text: str, within: float = 30.0) -> tuple[int, str]:
    """The page at ``url`` once it shows ``text``: a page asked for again within ``--refresh``
    of its last request may be served from the page cache for up to ``--refresh`` seconds
    (plus one rendering) after the database changed (``server.cache``), as a live page's own
    reload would ask again. The last answer after ``within`` seconds, for the assertion."""
    deadline = time.monotonic() + within
    while True:
        status, page = get(url)
        if text in page or time.monotonic() > deadline:
            return status, page
        time.sleep(0.5)


def test_running_tournament_shows_progress_and_refreshes(served):
    folder, db, base = served
    before = db.read_bytes()
    status, page = get(f"{base}/t/{slug('live')}.html")
    assert get(f"{base}/b/{slug('greedy')}.html")[0] == 200
    assert get(f"{base}/m/{slug('live')}/3.html")[0] == 200
    assert db.read_bytes() == before  # serving reads, never writes (not even the ratings)
    assert status == 200
    assert "10/18 matches" in page
    assert '<meta http-equiv="refresh" content="2">' in page
    assert "incomplete" in page
    # the tournament resumes; the same URL now shows it finished, without the reload
    subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(folder / "t.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    status, page = fresh(f"{base}/t/{slug('live')}.html", "18/18 matches")
    assert status == 200 and "18/18 matches" in page
    assert 'http-equiv="refresh"' not in page
    status, page = get(f"{base}/m/{slug('live')}/17.html")
    assert status == 200 and 'id="frames"' in page
    # a tournament started after the server shows up too
    (folder / "u.toml").write_text(TOML.replace('"live"', '"later"'))
    subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(folder / "u.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    assert f"t/{slug('later')}.html" in fresh(f"{base}/index.html", f"t/{slug('later')}.html")[1]
    assert get(f"{base}/t/{slug('later')}.html")[0] == 200


def test_a_client_that_sends_nothing_blocks_no_one(served):
    """Each connection has its own thread: a silent client (or one that never reads) does not
    hold up the pages of the others."""
    _, _, url = served
    port = int(url.rsplit(":", 1)[1])
    silent = [socket.create_connection(("127.0.0.1", port)) for _ in range(3)]
    half = socket.create_connection(("127.0.0.1", port))
    half.sendall(b"GET /index.html HTTP/1.1\r\nHost: x\r\n")  # never finishes its request
    try:
        for _ in range(3):
            status, text = get(url + "/index.html")
            assert status == 200 and "live" in text
    finally:
        for s in [*silent, half]:
            s.close()


def test_unknown_pages_are_404_and_the_server_stays_up(served):
    _, _, base = served
    for path in (
        "/nope.html",
        "/t/nope.html",
        "/m/x/1.html",
        "/../../etc/passwd",
        "/static/../site.py",
        "/m/" + slug("live") + "/999.html",
    ):
        status, body = get(base + path)
        assert status == 404, path
    assert get(base + "/index.html")[0] == 200
    assert get(base + "/")[0] == 200


def test_serve_refuses_a_missing_database_and_a_busy_port(tmp_path):
    proc = subprocess.run(
        [MALLOWS, "serve", "--db", str(tmp_path / "none.db")],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert proc.returncode == 2 and "no database" in proc.stderr
    assert not (tmp_path / "none.db").exists()
    (tmp_path / "t.toml").write_text(TOML)
    db = tmp_path / "r.db"
    subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(tmp_path / "t.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        ],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        proc = subprocess.run(
            [MALLOWS, "serve", "--db", str(db), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    assert proc.returncode == 2 and "cannot listen on 127.0.0.1" in proc.stderr
    assert "Traceback" not in proc.stderr


def read_events(response, count: int) -> list[str]:
    """The names of the next ``count`` events of a server-sent stream (comments skipped)."""
    names: list[str] = []
    while len(names) < count:
        line = response.readline().decode()
        assert line, "the stream ended"
        if line.startswith("event: "):
            names.append(line[7:].strip())
    return names


def test_a_running_tournament_streams_its_changes(served):
    """Pages update from server-sent events instead of reloading: ``/events`` says hello at
    once and ``change`` when the database changed (a run stored matches)."""
    import http.client

    folder, db, base = served
    status, page = get(f"{base}/t/{slug('live')}.html")
    assert 'src="/live/live.js" data-events="/events"' in page
    assert get(f"{base}/live/live.js")[0] == 200
    port = int(base.rsplit(":", 1)[1])
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/events")
    response = conn.getresponse()
    assert response.status == 200
    assert response.getheader("Content-Type").startswith("text/event-stream")
    assert read_events(response, 1) == ["hello"]
    subprocess.run(
        [MALLOWS, "tournament", "run", str(folder / "t.toml"), "--db", str(db)]
        + ["--workers", "1", "--quiet"],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    assert read_events(response, 1) == ["change"]
    conn.close()
    # a finished tournament's page has no stream
    assert "data-events" not in get(f"{base}/t/{slug('live')}.html")[1]
