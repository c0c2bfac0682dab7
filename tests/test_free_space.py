"""A run whose estimate exceeds the free space of its disk is refused before it plays a match:
exit 2, with the figures (it used to start: "about 72.5 GB more" with 70 GB free)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from conftest import MALLOWS, REPO
from mallows.results.codec import estimated_bytes

MAX_MATCHES = 1_000_000_000  # a tournament file's own limit (tournaments.roundrobin.spec)


def test_a_run_that_cannot_fit_on_its_disk_is_refused_with_the_figures(tmp_path):
    free = shutil.disk_usage(tmp_path).free
    per = estimated_bytes("take4", 2, 1_000_000) / 1_000_000
    matches = int(free / per * 1.5) + 2  # half as much again as the disk holds
    if matches > MAX_MATCHES:
        pytest.skip(f"{free / 1e9:.0f} GB free here: more than a tournament file may fill")
    deals = matches // 2 + 1  # two seatings of each deal
    tour = tmp_path / "big.toml"
    tour.write_text(
        f'name = "big"\ngame = "take4"\nplayers = 2\ndeals = {deals}\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    db = tmp_path / "big.db"
    run = subprocess.run(
        [MALLOWS, "tournament", "run", str(tour), "--db", str(db), "--workers", "1", "-q"],
        capture_output=True,
        text=True,
        timeout=300,  # the old code started the run: a time-out fails the test
        cwd=REPO,
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{2 * deals:,} matches to play need about" in run.stderr
    assert "GB free" in run.stderr and "Traceback" not in run.stderr
    import sqlite3  # the test reads the file as any SQLite client would

    with sqlite3.connect(db) as con:
        assert con.execute("select count(*) from matches").fetchone() == (0,)
