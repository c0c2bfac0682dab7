"""The play page's abandoned matches end at once (issue 31, item 7): closing the page (its event
stream) or leaving it silent for ``IDLE_SECONDS`` ends the match, kills its bots' processes and
stores nothing; matches are limited per address and in total."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MALLOWS
from mallows.errors import MallowsError
from mallows.runner import human_play
from mallows.runner.human_play import PlayRoom


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (children, their children...) but the sandbox's one watcher
    of the server's bot cgroups (``agents.cgroup_reaper``: it lives as long as the server)."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            for k in map(int, kids):
                try:
                    if b"owner=$1" in Path(f"/proc/{k}/cmdline").read_bytes():
                        continue
                except OSError:
                    continue
                if k not in out:
                    out.add(k)
                    todo.append(k)
    return out


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("abandon")
    db = folder / "play.db"
    from mallows.results.store import Store

    Store(db).close()
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
        assert m
        yield proc, int(m.group(1)), db
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)


def request(port: int, method: str, path: str, headers: dict, body: bytes = b"") -> tuple:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        conn.request(method, path, body=body or None, headers=headers)
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read().decode()
    finally:
        conn.close()


def page_session(port: int) -> dict[str, str]:
    _, headers, text = request(port, "GET", "/play.html", {})
    cookie = headers["set-cookie"].split(";", 1)[0]
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', text).group(1)
    return {"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie, "X-CSRF-Token": token}


def start(port: int, headers: dict, opponents: str = "greedy") -> tuple[int, dict]:
    body = json.dumps({"game": "take4", "opponents": opponents, "seat": 0}).encode()
    status, _, text = request(
        port, "POST", "/play/new", {"Content-Type": "application/json", **headers}, body
    )
    return status, json.loads(text)


def wait_until(check, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.2)
    return check()


def test_closing_the_page_ends_the_match_and_frees_its_processes(served):
    proc, port, db = served
    headers = page_session(port)
    before = descendants(proc.pid)
    status, started = start(port, headers, "example_python,example_python")  # processes
    assert status == 200, started
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", f"/play/{started['id']}/events")
    stream = conn.getresponse()
    assert stream.status == 200
    while not stream.readline().startswith(b"data: "):  # the first state: the person's turn
        pass
    assert wait_until(lambda: len(descendants(proc.pid) - before) >= 2, 30), "no bot processes"
    conn.close()  # the page is closed
    assert wait_until(lambda: not (descendants(proc.pid) - before), 15), "bots still running"
    _, _, text = request(port, "GET", f"/play/{started['id']}/state", headers)
    assert "abandoned" in json.loads(text)["error"]
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        assert store.tournament("play-take4") is None  # nothing stored


def test_matches_are_limited_per_address(served):
    _, port, _ = served
    headers = page_session(port)
    opened = []
    for _ in range(human_play.MAX_PER_ADDRESS):
        status, started = start(port, headers, "random")
        assert status == 200, started
        opened.append(started["id"])
    status, refused = start(port, headers, "random")
    assert status == 400 and "open from your address already" in refused["error"]


def test_a_silent_page_is_abandoned_and_a_total_is_kept(tmp_path, monkeypatch):
    room = PlayRoom(tmp_path / "r.db")
    monkeypatch.setattr(human_play, "MAX_SESSIONS", 2)
    try:
        quiet = room.new("take4", ["random"], 0, client="10.0.0.1")
        watched = room.new("take4", ["random"], 0, client="10.0.0.2")
        room.opened(watched)  # its page is open: a stream is its sign of life
        with pytest.raises(MallowsError, match="2 matches are being played already"):
            room.new("take4", ["random"], 0, client="10.0.0.3")
        later = time.monotonic() + human_play.IDLE_SECONDS + 1
        assert room.reap(now=later) == [quiet]
        assert wait_until(lambda: quiet.error is not None, 15) and "abandoned" in quiet.error
        assert watched.live
        room.new("take4", ["random"], 0, client="10.0.0.3")  # the seat it held is free
        room.closed(watched)
        assert room.reap(now=time.monotonic() + human_play.GRACE_SECONDS + 0.1) == [watched]
    finally:
        room.close()
