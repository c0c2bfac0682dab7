"""The ladder ``mallows serve --ladder NAME`` hosts, played by the server (issue 31, item 6):
the real console script serves and plays it with the CLI's executor (``--workers``: here the
ladder's share is 1, a process of its own); a bot submitted over HTTP is checked in the queue
and joins it. ``kill -9`` of the server mid-ladder and mid-check ends its ladder and its check
with it (the parent-death signal); a restart resumes both: the killed check and the upload
still queued are checked, each bot stored once, the ladder goes on with every match stored
once and none missing."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows.results.store import Store
from mallows.tournaments.ladder.run import prepare_ladder
from mallows.tournaments.ladder.spec import load_ladder
from test_server_submissions import CRASH, bot_files, call, tar_gz, until_done

LADDER = (
    'name = "live"\ngame = "take4"\nplayers = 3\nseed = 2\nmax_matches = 100000\n'
    'bots = ["random", "greedy", "denial", "random:call=0.9"]\n[limits]\nsandbox = "off"\n'
    '[[questions]]\ntype = "order"\ncertainty = 0.9999\n'
)


def serve(db: Path) -> tuple[subprocess.Popen, int]:
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0", "--ladder", "live"]
        + ["--workers", "2", "--check-workers", "1", "--check-games", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    m = re.search(r"http://127\.0\.0\.1:(\d+)", proc.stdout.readline())
    assert m, "the server did not start"
    return proc, int(m.group(1))


def matches(db: Path) -> list[tuple[int, list[str]]]:
    with Store(db, readonly=True) as store:
        rows = store.db.query("SELECT idx, players FROM matches WHERE tournament = 'live'")
        return sorted((r["idx"], r["players"]) for r in rows)


def until(what, seconds: float = 120.0) -> None:
    deadline = time.monotonic() + seconds
    while not what():
        assert time.monotonic() < deadline, "waited too long"
        time.sleep(0.1)


def gone(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow
def test_the_server_plays_its_ladder_and_a_kill_9_loses_and_repeats_nothing(tmp_path):
    (tmp_path / "live.toml").write_text(LADDER)
    db = tmp_path / "r.db"
    token = invoke("users", "add", "alice", "--db", db).output.strip().splitlines()[-1]
    with Store(db) as store:  # the ladder stored, none of it played: the server plays it
        prepare_ladder(load_ladder(tmp_path / "live.toml"), store)
    proc, port = serve(db)
    try:
        until(lambda: len(matches(db)) >= 3)  # the server plays the ladder it hosts
        status, good = call(
            port, "POST", "/api/bots?name=newbie", token, tar_gz(bot_files("newbie"))
        )
        assert status == 202, good
        status, bad = call(
            port, "POST", "/api/bots?name=crashy", token, tar_gz(bot_files("crashy", CRASH))
        )
        assert status == 202 and bad["state"] == "queued", bad  # one check at a time
        until(lambda: call(port, "GET", good["status"], token)[1]["state"] == "checking")
        played = len(matches(db))
        os.kill(proc.pid, signal.SIGKILL)  # mid-check, mid-ladder
        proc.wait(timeout=30)
        until(lambda: gone(proc.pid), 60)  # its ladder and its check ended with it
        killed = matches(db)
        assert len(killed) >= played
        assert [i for i, _ in killed] == list(range(len(killed)))

        proc, port = serve(db)
        assert until_done(port, token, good["id"])["bot"] == "newbie@1"
        failed = until_done(port, token, bad["id"])
        assert failed["state"] == "failed" and "give up" in failed["output"]
        until(lambda: any("newbie@1" in p for _, p in matches(db)), 180)  # it joined, it plays
        assert len(matches(db)) > len(killed)  # the ladder resumed
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    until(lambda: gone(proc.pid), 60)
    after = matches(db)
    assert [i for i, _ in after] == list(range(len(after)))  # each match once, none missing
    assert after[: len(killed)] == killed  # what was stored before the kill stays as it was
    with Store(db, readonly=True) as store:
        assert [r["version"] for r in store.submissions("newbie")] == [1]  # stored once
        assert store.submissions("crashy") == []
        joins = [e for e in store.ladders.events("live") if e["kind"] == "join"]
        assert [e["bot"] for e in joins] == ["newbie@1"]  # joined once


def test_resume_and_serve_refuse_what_they_cannot_host(tmp_path):
    db = tmp_path / "r.db"
    invoke("users", "add", "alice", "--db", db)
    missing = invoke("ladder", "resume", "nope", "--db", db)
    assert missing.exit_code == 2 and "no ladder 'nope'" in missing.output
    assert "mallows ladder run FILE" in missing.output
    alone = invoke("serve", "--db", db, "--port", "0", "--workers", "2")
    assert alone.exit_code == 2 and "give --ladder NAME too" in alone.output
    hosted = invoke("serve", "--db", db, "--port", "0", "--ladder", "nope")
    assert hosted.exit_code == 2 and "no ladder 'nope'" in hosted.output
