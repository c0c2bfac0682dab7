"""``mallows report`` puts a site in place whole (issue 26, item 6): it writes into a folder
beside the target and moves it into place when complete, so a report killed at any moment
(25 real kill -9s at seeded random moments) leaves the old site intact, or, in the instant
between two renames, the old site aside, which the next report clears; pages of tournaments
no longer in the database are gone; a folder that is not a report is never replaced."""

from __future__ import annotations

import hashlib
import random
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import MALLOWS, REPO
from killing import Forked
from mallows.cli import app
from mallows.report.data import slug
from mallows.report.publish import MARKER
from report_helpers import make_db


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return make_db(tmp_path_factory.mktemp("publish"))


def tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.blake2b(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def report(db: Path, out: Path, *extra: str):
    result = CliRunner().invoke(app, ["report", "--db", str(db), "-o", str(out), *extra])
    return result


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    folder = tmp_path_factory.mktemp("small")
    (folder / "t.toml").write_text(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\n'
        'seed = 1\nbots = ["random", "greedy", "denial"]\n'
    )
    db = folder / "small.db"
    result = CliRunner().invoke(
        app,
        ["tournament", "run", str(folder / "t.toml"), "--db", str(db), "--workers", "1", "--quiet"],
    )
    assert result.exit_code == 0, result.output
    return db


@pytest.mark.slow
def test_a_killed_report_leaves_the_old_site(small, tmp_path):
    db = small
    out = tmp_path / "site"
    assert report(db, out).exit_code == 0
    old = tree(out)
    assert MARKER in old and "index.html" in old
    durations = []
    for _ in range(3):  # how long a whole report takes here now (the shortest of three)
        probe = Forked(["report", "--db", str(db), "-o", str(out)])
        assert probe.wait() == 0
        durations.append(__import__("time").monotonic() - probe.started)
    full = min(durations)
    rng = random.Random(26)
    outcomes = {"killed": 0, "aside": 0, "finished": 0}
    while outcomes["killed"] < 25:
        assert outcomes["finished"] < 25, outcomes  # the moments fall inside the report
        child = Forked(["report", "--db", str(db), "-o", str(out)])
        if child.kill_at(rng.uniform(0.0, full * 0.9)):
            outcomes["killed"] += 1
        else:
            outcomes["finished"] += 1
        if not out.exists():  # killed between the two renames: the old site is aside
            aside = list(tmp_path.glob(".site.old-*"))
            assert len(aside) == 1, list(tmp_path.iterdir())
            outcomes["aside"] += 1
            aside[0].rename(out)
        assert tree(out) == old  # never a half-written site
    assert report(db, out).exit_code == 0  # and the next report clears what the kills left
    assert [p.name for p in tmp_path.iterdir()] == ["site"]
    assert tree(out) == old


def test_what_a_killed_report_left_beside_the_site_is_cleared_by_the_next(small, tmp_path):
    """A report killed between making and removing the folder that probes ``-o``'s parent (a
    moment the random kills above hit now and then), or while writing, or between its two
    renames, leaves a folder named by its pid beside the site; the next report to the same
    folder removes each one whose process is gone, and leaves a living report's alone."""
    import os

    from mallows.report.publish import beside

    out = tmp_path / "site"
    assert report(small, out).exit_code == 0
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    assert beside(out, "probe").name == f".site.probe-{os.getpid()}"
    for kind in ("probe", "partial", "old"):
        (tmp_path / f".site.{kind}-{gone.pid}").mkdir()
    alive = tmp_path / f".site.partial-{os.getppid()}"  # its process lives: not ours to clear
    alive.mkdir()
    assert report(small, out).exit_code == 0
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(["site", alive.name]), names


def test_pages_that_no_longer_exist_are_removed(db, tmp_path):
    mine = tmp_path / "r.db"
    shutil.copy(db, mine)
    out = tmp_path / "site"
    assert report(mine, out).exit_code == 0
    assert (out / "t" / f"{slug('arsch-small')}.html").exists()
    subprocess.run(
        [MALLOWS, "tournament", "delete", "arsch-small", "--yes", "--db", str(mine)],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    assert report(mine, out).exit_code == 0
    assert not (out / "t" / f"{slug('arsch-small')}.html").exists()
    assert not (out / "m" / slug("arsch-small")).exists()
    assert not (out / "m" / f"{slug('arsch-small')}.html").exists()  # its replay page
    assert not (out / "d" / slug("arsch-small")).exists()  # and its replay data
    assert (out / "t" / f"{slug('take4-small')}.html").exists()
    assert (out / "d" / slug("take4-small")).is_dir()


def test_a_folder_that_is_not_a_report_is_not_replaced(db, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "thesis.tex").write_text("years of work")
    result = report(db, out)
    assert result.exit_code == 2
    assert "holds files that are not a mallows report" in " ".join(result.output.split())
    assert (out / "thesis.tex").read_text() == "years of work"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert report(db, empty).exit_code == 0 and (empty / "index.html").is_file()
