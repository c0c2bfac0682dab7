"""Everything checked before anything runs (issue 11, item 3): bot parameters with the file and
nothing registered until every check passes, one spelling per bot, every number finite and in
range, negative seeds, names, deep TOML, ``--record`` targets. Each refusal is exit 2 with a
message, never a traceback."""

from __future__ import annotations

import json
import math
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows.agents.checks import canonical_name
from mallows.results.ratings import PARAM_RANGES, leaderboard

FILE = """name = "{name}"
game = "take4"
players = 2
deals = 1
seed = 1
bots = [{bots}]
"""


def write(tmp_path, bots, extra="", name="c"):
    path = tmp_path / f"{name}.toml"
    path.write_text(FILE.format(name=name, bots=", ".join(json.dumps(b) for b in bots)) + extra)
    return path


def run(path, db):
    return invoke("tournament", "run", path, "--db", db, "--workers", "1", "--quiet")


def registered(db: Path) -> int:
    if not db.exists():
        return 0
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM tournaments").fetchone()[0]


@pytest.mark.parametrize(
    "bot,needle",
    [
        ("random:call=abc", "call must be a number"),
        ("random:nosuch=1", "nosuch"),
        ("ismcts:budget=-1", "budget=-1 is out of range"),
        ("random:call=0.1:call=0.2", "call must be a number"),
        ("random:call=2", "out of range 0..1"),
        ("random:call=-1", "out of range 0..1"),
        ("random:call=nan", "out of range 0..1"),
        ("random:call=1e999", "out of range 0..1"),
        ("greedy:margin=inf", "out of range"),
    ],
)
def test_bad_bot_parameters_are_refused_with_the_file_before_registering(
    in_repo, tmp_path, bot, needle
):
    db = tmp_path / "m.db"
    result = run(write(tmp_path, ["greedy", bot] if "greedy" not in bot else ["random", bot]), db)
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output
    assert registered(db) == 0  # nothing stored
    fixed = run(write(tmp_path, ["greedy", "random:call=0.2"]), db)  # same name, fixed
    assert fixed.exit_code == 0, fixed.output


def test_isolated_bot_parameters_are_checked_through_its_hello(in_repo, tmp_path):
    bot = tmp_path / "picky.py"  # a bot from a path: isolated, its own process
    bot.write_text(
        "class Bot:\n    games = ('take4',)\n\n    def __init__(self, depth='1'):\n"
        "        if not str(depth).isdigit():\n"
        "            raise ValueError(f'picky: depth must be a whole number')\n\n"
        "    def act(self, o):\n        return o['legal_actions'][0]\n"
    )
    db = tmp_path / "m.db"
    result = run(write(tmp_path, ["random", f"{bot}:depth=x"]), db)
    assert result.exit_code == 2, result.output
    assert "depth must be a whole number" in " ".join(result.output.split())
    assert registered(db) == 0
    assert run(write(tmp_path, ["random", f"{bot}:depth=3"]), db).exit_code == 0


@pytest.mark.parametrize(
    "a,b",
    [
        ("greedy", "greedy "),
        ("random", "bots/random.py"),
        ("random:call=0.1", "random:call=0.10"),
        ("random", "random:"),
        ("random:call=1", "random:call=1.0"),
        ("ismcts:budget=0.1,iterations=5", "ismcts: iterations=5 , budget=.1"),
    ],
)
def test_two_names_for_one_bot_are_refused(in_repo, tmp_path, a, b):
    assert canonical_name(a) == canonical_name(b)
    result = run(
        write(tmp_path, [a, b, "greedy" if "greedy" not in a else "random"]), tmp_path / "m.db"
    )
    assert result.exit_code == 2, result.output
    assert "twice" in result.output and "list each bot once" in result.output


def test_names_are_stored_in_their_one_spelling(in_repo, tmp_path):
    db = tmp_path / "m.db"
    result = run(write(tmp_path, [" greedy", str(REPO / "bots" / "random.py") + ":call=0.50"]), db)
    assert result.exit_code == 0, result.output
    players = {
        p
        for (row,) in sqlite3.connect(db).execute("SELECT players FROM matches")
        for p in json.loads(row)
    }
    assert players == {"greedy", "random:call=0.5"}
    assert canonical_name("random:call=0.5") != canonical_name("random:call=0.05")


@pytest.mark.parametrize(
    "extra,needle",
    [
        ("[ratings]\nsigma = 1e300\n", "`ratings.sigma` must be"),
        ("[ratings]\nsigma = 1e-300\n", "`ratings.sigma` must be"),
        ("[ratings]\nbeta = 1e300\n", "`ratings.beta` must be"),
        ("[ratings]\ntau = 1e300\n", "`ratings.tau` must be"),
        ("[ratings]\nmu = 1e308\n", "`ratings.mu` must be"),
        ("[ratings]\nmu = nan\n", "`ratings.mu` must be"),
        ("[ratings]\ndraw_probability = inf\n", "`ratings.draw_probability`"),
        ("[limits]\ndecision_seconds = 1e-9\n", "below the floor"),
        ("[limits]\ndecision_seconds = nan\n", "limit decision_seconds = nan must be"),
        ("[limits]\nmatch_seconds = 1e300\n", "limit match_seconds = 1e+300 must be"),
        ("[limits]\nmemory_mb = -3\n", "limit memory_mb = -3 must be"),
    ],
)
def test_numbers_out_of_range_are_refused(in_repo, tmp_path, extra, needle):
    db = tmp_path / "m.db"
    result = run(write(tmp_path, ["random", "greedy"], extra), db)
    assert result.exit_code == 2, result.output
    assert needle in " ".join(result.output.split())
    assert not db.exists()


def test_ratings_stay_finite_and_move_at_every_corner_of_the_ranges():
    import itertools
    import random

    rng = random.Random(5)
    bots = [f"b{i}" for i in range(6)]
    results = [
        (rng.sample(bots, n), [rng.randrange(n) for _ in range(n)])
        for n in (2, 3, 6)
        for _ in range(10)
    ]
    keys = list(PARAM_RANGES)
    for corner in itertools.product(*(PARAM_RANGES[k] for k in keys)):
        params = dict(zip(keys, corner))
        rows = leaderboard(results, params, bots=bots)
        assert all(math.isfinite(r.mu) and math.isfinite(r.sigma) and r.sigma > 0 for r in rows)
        assert len({r.mu for r in rows}) > 1, params  # the ratings moved


@pytest.mark.parametrize(
    "args,needle",
    [
        (["play", "take4", "--bot", "random", "--bot", "random", "--seed", "-1"], "never negative"),
        (["bots", "check", "random", "--seed", "-1"], "never negative"),
        (
            ["play", "take4", "--bot", "random", "--bot", "random", "--decision-seconds", "0"],
            "below the floor",
        ),
        (
            ["play", "take4", "--bot", "random", "--bot", "random", "--decision-seconds", "-1"],
            "below the floor",
        ),
        (
            ["play", "take4", "--bot", "random", "--bot", "random", "--decision-seconds", "nan"],
            "limit decision_seconds = nan must be",
        ),
        (["bots", "check", "random", "--match-seconds", "inf"], "limit match_seconds = inf must"),
        (
            ["play", "take4", "--bot", "heuristic", "--bot", "random"],
            "'heuristic' plays arschmallows, not take4",
        ),
        (["play", "take4", "--bot", "random:call=2", "--bot", "random"], "out of range 0..1"),
        (["play", "take4", "--bot", "random:call=nan", "--bot", "random"], "out of range 0..1"),
        (["play", "take4", "--bot", "x" * 300, "--bot", "random"], "longer than 255"),
        (["play", "take4", "--bot", "random", "--bot", "random", "--record", "."], "is a folder"),
    ],
)
def test_command_line_refusals(in_repo, args, needle):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output


def test_file_seed_name_and_long_bot_name(in_repo, tmp_path):
    db = tmp_path / "m.db"
    path = write(tmp_path, ["random", "greedy"])
    path.write_text(path.read_text().replace("seed = 1", "seed = -1"))
    assert "never negative" in run(path, db).output
    path = write(tmp_path, ["random", "greedy"], name="nl\\n")
    result = run(path, db)
    assert result.exit_code == 2 and "`name` must be" in result.output
    result = run(write(tmp_path, ["random", "b" * 300]), db)
    assert result.exit_code == 2 and "longer than 255" in result.output
    assert not db.exists()


def test_toml_nested_5000_deep(in_repo, tmp_path):
    path = tmp_path / "deep.toml"
    path.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    result = run(path, tmp_path / "m.db")
    assert result.exit_code == 2 and "nested too deeply" in result.output


def test_record_into_a_missing_folder_and_to_a_full_device(in_repo, tmp_path):
    target = tmp_path / "new" / "folder" / "m.json"
    result = invoke("play", "take4", "--bot", "random", "--bot", "greedy", "--record", target)
    assert result.exit_code == 0 and json.loads(target.read_text())["game"] == "take4"
    if not Path("/dev/full").exists():
        pytest.skip("no /dev/full here")
    proc = subprocess.run(
        [MALLOWS, "play", "take4", "--bot", "random", "--bot", "greedy", "--record", "/dev/full"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
    )
    # a device is no record file (issue 33: regular files only): refused before the match
    assert proc.returncode == 2
    assert "is a character device, not a file" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""  # nothing was played


def test_a_file_corrected_before_any_match_was_played_is_accepted(in_repo, tmp_path):
    """A tournament registered with no match stored (e.g. every match failed) takes the
    corrected definition; once a match is stored, a changed file is refused as before."""
    from mallows.results.store import Store
    from mallows.tournaments.run import register
    from mallows.tournaments.roundrobin.spec import load_tournament

    db = tmp_path / "m.db"
    store = Store(db)
    register(store, load_tournament(write(tmp_path, ["random", "greedy"])))
    fixed = run(write(tmp_path, ["random", "greedy", "denial"]), db)
    assert fixed.exit_code == 0, fixed.output
    changed = run(write(tmp_path, ["random", "greedy"]), db)
    assert changed.exit_code == 2 and "different definition" in changed.output
