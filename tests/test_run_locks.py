"""One runner at a time, for every kind of run, and its options checked before it starts.

``compare`` takes the tournament lock of its comparison (two runs of one comparison split its
pairs and the second stopped on a count of its own: a wrong verdict); a second ``ladder run``
is refused in the words of a ladder; ``--workers`` and ``--address`` are checked before
anything starts, also when nothing is left to play."""

from __future__ import annotations

import subprocess

import pytest

from conftest import MALLOWS, invoke
from mallows.tournaments.lock import run_lock

COMPARE = ["compare", "random", "greedy", "--game", "take4", "--workers", "1", "--seed", "3"]


def test_a_second_run_of_one_comparison_is_refused_naming_the_holder(tmp_path):
    db = tmp_path / "c.db"
    args = [*COMPARE, "--max-matches", "4", "--name", "cmp", "--db", db]
    with run_lock(db, "cmp"):  # a real flock, as a first compare process holds it
        second = invoke(*args)
    assert second.exit_code == 2, second.output
    assert "comparison 'cmp' is being run" in second.output and "pid " in second.output
    from mallows.results.store import Store

    if db.exists():
        with Store(db, readonly=True) as store:
            assert store.count_matches("cmp") == 0  # it played nothing beside the first
    alone = invoke(*args)  # once the first is gone it runs (and resumes what is stored)
    assert alone.exit_code in (0, 1, 3), alone.output
    assert "stored as cmp" in alone.output


def test_a_second_ladder_runner_is_called_a_ladder(tmp_path):
    db = tmp_path / "l.db"
    ladder = tmp_path / "l.toml"
    ladder.write_text(
        'name = "lo"\ngame = "take4"\nplayers = 2\nseed = 1\nbots = ["random", "greedy"]\n'
        "max_matches = 2\n"
    )
    with run_lock(db, "lo"):
        second = invoke("ladder", "run", ladder, "--db", db, "--workers", "1")
    assert second.exit_code == 2, second.output
    assert "ladder 'lo' is being run" in second.output
    assert "mallows ladder status lo" in second.output and "tournament list" not in second.output


@pytest.mark.parametrize(
    "option, value, said",
    [
        ("--workers", "99999999999999999999999", "--workers must be 1 to"),
        ("--workers", "-1", "--workers must be 1 to"),
        ("--address", "not an address", "is not HOST:PORT"),
        ("--address", "", "is not HOST:PORT"),
        ("--address", "10.0.0.5:99999", "is not HOST:PORT"),
    ],
)
def test_workers_and_address_are_checked_before_anything_starts(tmp_path, option, value, said):
    """Exit 2, not 70 from a local Ray refusing 1e23 CPUs; and checked when a tournament is
    finished (nothing to play) too."""
    db = tmp_path / "c.db"
    run = invoke(*COMPARE, "--max-matches", "2", "--name", "c", "--db", db, option, value)
    assert run.exit_code == 2 and said in run.output, run.output
    tour = tmp_path / "t.toml"
    tour.write_text(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\nbots = ["random", "greedy"]\n'
    )
    assert invoke("tournament", "run", tour, "--db", db, "--workers", "1").exit_code == 0
    again = invoke("tournament", "run", tour, "--db", db, option, value)  # nothing left to play
    assert again.exit_code == 2 and said in again.output, again.output


def test_every_run_command_takes_q_for_quiet(tmp_path):
    tour = tmp_path / "t.toml"
    tour.write_text(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\nbots = ["random", "greedy"]\n'
    )
    run = invoke("tournament", "run", tour, "--db", tmp_path / "q.db", "--workers", "1", "-q")
    assert run.exit_code == 0, run.output
    args = [*COMPARE, "--max-matches", "2", "--db", tmp_path / "q.db", "-q"]
    assert invoke(*args).exit_code in (0, 1, 3)


@pytest.mark.parametrize("value", ["-1", "99999999999999999999"])
def test_serve_refuses_a_refresh_it_cannot_use_instead_of_serving(tmp_path, value):
    """Found by the bad-input sweep: these started a server (a hang for a script)."""
    tour = tmp_path / "t.toml"
    tour.write_text(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\nbots = ["random", "greedy"]\n'
    )
    db = tmp_path / "s.db"
    assert invoke("tournament", "run", tour, "--db", db, "--workers", "1", "-q").exit_code == 0
    served = subprocess.run(  # the console script under a limit: a server would never end
        [MALLOWS, "serve", "--db", str(db), "--port", "0", "--refresh", value],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert served.returncode == 2 and "--refresh" in served.stderr, served.stderr
