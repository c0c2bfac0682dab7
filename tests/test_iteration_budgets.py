"""Budgets that mean the same everywhere (issue 36): a search bot given ``iterations`` and no
``budget`` stops on its count alone, so a comparison of search bots plays the same records and
reaches the same verdict on an idle machine and beside a CPU hog; with a time budget it does
not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from conftest import MALLOWS, REPO

from mallows.agents.registry import load_bot
from mallows.results.store import Store


def _compare(
    db: Path, a: str, b: str, key_from: Path | None = None
) -> tuple[int, str, dict[str, str]]:
    """A small 3-seat comparison of two search bots through the console script: its exit
    status, its estimate line and its records by match id. ``key_from``: a database whose
    comparison's secret key this one gets first (the same key deals the same cards)."""
    if key_from is not None:
        with Store(key_from, readonly=True) as old:
            (name,) = [t["name"] for t in old.tournaments()]
            key = old.chance_key(name)
        with Store(db) as new:
            new.put_chance_key(name, key)
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    run = subprocess.run(
        [
            MALLOWS,
            "compare",
            a,
            b,
            "--game",
            "arschmallows",
            "--players",
            "3",
            "--opponents",
            "heuristic",
            "--option",
            "rounds=1",
            "--max-matches",
            "6",
            "--seed",
            "36",
            "--workers",
            "1",
            "--decision-seconds",
            "60",
            "--db",
            str(db),
            "--quiet",
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=env,
        check=False,
    )
    assert run.returncode in (0, 1, 3), run.stdout + run.stderr
    name = re.search(r"stored as (\S+):", run.stdout).group(1)
    estimate = next(line for line in run.stdout.splitlines() if line.startswith("estimate"))
    with Store(db, readonly=True) as store:
        records = dict(store.records(name))
    return run.returncode, estimate.split("; played")[0], records


def _hogs(n: int) -> list[subprocess.Popen]:
    return [
        subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
        for _ in range(n)
    ]


def _end(hogs: list[subprocess.Popen]) -> None:
    for h in hogs:
        h.kill()
        h.wait()


def test_a_compare_by_iterations_gives_the_same_records_and_verdict_under_a_cpu_hog(tmp_path):
    a, b = "belief:iterations=3", "ismcts:iterations=3"
    quiet = _compare(tmp_path / "quiet.db", a, b)
    hogs = _hogs(2 * (os.cpu_count() or 1))
    try:
        time.sleep(0.2)
        loaded = _compare(tmp_path / "loaded.db", a, b, key_from=tmp_path / "quiet.db")
    finally:
        _end(hogs)
    assert len(quiet[2]) == 6
    assert loaded == quiet  # exit status, estimate, and every record byte for byte


def test_iterations_alone_mean_no_clock():
    """``iterations`` without ``budget``: no deadline; with both, the first reached; neither:
    the documented default time budget."""
    for name in ("ismcts", "belief"):
        alone = load_bot(f"{name}:iterations=7").handle().bot
        both = load_bot(f"{name}:iterations=7,budget=0.5").handle().bot
        timed = load_bot(name).handle().bot
        assert alone.untimed and not both.untimed and not timed.untimed
        assert both.budget == 0.5 and timed.budget == alone.budget == 0.2
