"""``mallows compare``: real comparisons through the CLI and the console script. A stronger bot
is found better in a few hundred matches; bots of equal strength never are; a killed comparison
resumes to the same verdict; the schedule pairs the deals as documented; bad input exits 2."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from mallows.tournaments.compare.spec import CompareError, make_comparison
from mallows.results.store import Store

from conftest import MALLOWS, REPO, compare_args, invoke as run_app


# Plays exactly like `random` (uniform over the legal actions), from its own random stream: a
# bot of equal strength that does not play the same moves.
RANDOM_COPY = """
import random
from mallows.agents.policy import random_action

class Bot:
    name = "randomcopy"
    games = ("arschmallows", "take4")

    def __init__(self):
        self.rng = random.Random(0)

    def match_start(self, info):
        self.rng = random.Random(info["seed"] ^ 0x5EED)

    def act(self, observation):
        return random_action(observation, self.rng)
"""


def invoke(*args):
    return run_app(*args, env={"COLUMNS": "250"})  # wide: the status lines unwrapped


def pairs_of(output: str) -> int:
    """The pair count of the final status line."""
    return int(re.findall(r"^Pairs: (\d+) \(", output, re.M)[-1])


def definition(db: Path, name: str) -> dict:
    with sqlite3.connect(db) as conn:
        row = conn.execute("SELECT definition FROM tournaments WHERE name = ?", [name]).fetchone()
    return json.loads(row[0])


def with_key(c):
    """``c`` with a secret key, as ``run_comparison`` gives it one (its deals are keyed)."""
    import dataclasses
    from mallows import seeding

    return dataclasses.replace(
        c, chance=seeding.Chance(seeding.KEYED, seeding.fresh_key(), secret_deals=True)
    )


def share_key(source: Path, target: Path) -> None:
    """Give ``target`` (a new database) the secret key of ``source``'s only comparison."""
    old = Store(source, readonly=True)
    (row,) = old.tournaments()
    key = old.chance_key(row["name"])
    old.close()
    new = Store(target)
    new.put_chance_key(row["name"], key)
    new.close()


def stored(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]


# -- the schedule -----------------------------------------------------------------------------


def test_pairs_share_the_deal_and_the_opponents(in_repo):
    c = with_key(
        make_comparison(
            "greedy",
            "random",
            game="take4",
            players=3,
            opponents=["denial", "random:call=0.2"],
            max_matches=100,
        )
    )
    seats_under_test = set()
    for p in range(12):
        m_a, m_b = c.pair(p)
        assert (m_a.index, m_b.index) == (2 * p, 2 * p + 1)
        assert m_a.seed == m_b.seed and m_a.deal == m_b.deal == p
        s = p % 3
        seats_under_test.add(s)
        assert m_a.seats[s] == "greedy" and m_b.seats[s] == "random"
        assert [x for i, x in enumerate(m_a.seats) if i != s] == [
            x for i, x in enumerate(m_b.seats) if i != s
        ]
        assert set(m_a.seats) - {"greedy"} <= {"denial", "random:call=0.2"}
    assert seats_under_test == {0, 1, 2}
    assert len({c.pair(p)[0].seed for p in range(50)}) == 50
    # B's place minus A's: A first (rank 0) and B third in the seat under test -> +2
    assert c.observation(1, [2, 0, 1], [1, 2, 0]) == 2.0
    two = with_key(make_comparison("greedy", "random", game="take4", players=2, max_matches=10))
    m_a, m_b = two.pair(0)
    assert m_a.seats == ("greedy", "random") and m_b.seats == ("random", "greedy")
    # A won one seating, the other was a tie: +0.5
    assert two.observation(0, [0, 1], [0, 0]) == 0.5


def test_default_opponents_are_the_reference_bots_other_than_a_and_b(in_repo):
    c = make_comparison("greedy", "random", game="arschmallows", players=4)
    assert c.opponents == ("heuristic",)
    c = make_comparison("random:call=0.2", "random", game="take4", players=3)
    assert c.opponents == ("greedy", "denial")


# -- real runs --------------------------------------------------------------------------------


def test_greedy_beats_random_in_a_few_hundred_matches_and_resumes(in_repo, tmp_path):
    db = tmp_path / "c.db"
    first = invoke(
        *compare_args("greedy", "random", "take4", players=3),
        "--db",
        db,
    )
    assert first.exit_code == 0, first.output
    assert "H1 accepted: greedy is better than random" in first.output
    pairs = pairs_of(first.output)
    assert 10 <= pairs <= 200, first.output
    name = re.search(r"stored as (\S+):", first.output).group(1)
    d = definition(db, name)
    assert d["kind"] == "compare" and d["a"] == "greedy" and d["b"] == "random"
    assert d["delta"] == 0.1 and d["players"] == 3
    assert stored(db) == 2 * pairs
    listing = invoke("tournament", "list", "--db", db)
    assert listing.exit_code == 0 and name[:20] in listing.output and "finished" in listing.output
    shown = invoke("tournament", "show", name, "--db", db)
    assert shown.exit_code == 0 and "H1 accepted: greedy is better than random" in shown.output
    assert f"over {pairs} pairs" in shown.output
    # the same command again: nothing to play, the same verdict
    again = invoke(
        *compare_args("greedy", "random", "take4", players=3),
        "--db",
        db,
    )
    assert again.exit_code == 0 and pairs_of(again.output) == pairs
    assert "played 0 (" in again.output and stored(db) == 2 * pairs
    # other settings under the same name are refused, the stored test is untouched
    other = invoke(
        "compare",
        "greedy",
        "random",
        "--game",
        "take4",
        "--players",
        "3",
        "--delta",
        "0.2",
        "--name",
        name,
        "--db",
        db,
    )
    assert other.exit_code == 2 and "delta: 0.1 -> 0.2" in other.output
    assert stored(db) == 2 * pairs


def test_a_capped_comparison_continues_with_a_larger_cap(in_repo, tmp_path):
    """Resumed past its cap, a comparison plays what one run under the larger cap plays: the
    reference run is the same comparison (its secret key) in a new database."""
    db, clean = tmp_path / "c.db", tmp_path / "clean.db"
    # a generous decision limit: on a loaded CI machine a decision stalled past the default
    # second would be a forfeit in one run and not in the other
    args = [
        *compare_args("heuristic", "greedy", "arschmallows", players=4),
        *("--decision-seconds", "60"),
    ]
    capped = invoke(*args, "--max-matches", "21", "--db", db)
    assert capped.exit_code == 3, capped.output
    assert "no verdict within 20 matches" in capped.output and stored(db) == 20
    share_key(db, clean)  # the same secret key (each new database draws its own): its deals
    resumed = invoke(*args, "--max-matches", "2000", "--db", db)
    fresh = invoke(*args, "--max-matches", "2000", "--db", clean)
    assert resumed.exit_code == fresh.exit_code == 0, resumed.output + fresh.output
    assert "20 already stored" in resumed.output and "0 already stored" in fresh.output
    assert pairs_of(resumed.output) == pairs_of(fresh.output)
    assert stored(db) == stored(clean)


def test_equal_bots_never_accept_h1(in_repo, tmp_path):
    """random against a copy of itself under another name, through the console script."""
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "randomcopy.py").write_text(RANDOM_COPY)
    # a fixed secret key: the same deals every run, as a fixed seed gave before keys (with a
    # fresh key each run the test would be wrong alpha = 5% of the time, by design)
    store = Store(tmp_path / "e.db")
    store.put_chance_key("eq", bytes(range(32)))
    store.close()
    proc = subprocess.run(
        [
            MALLOWS,
            "compare",
            str(bots / "randomcopy.py"),
            "random",
            "--game",
            "take4",
            "--players",
            "3",
            "--max-matches",
            "600",
            "--workers",
            "1",
            "--db",
            str(tmp_path / "e.db"),
            "--name",
            "eq",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode in (1, 3), proc.stdout + proc.stderr
    assert "H1 accepted" not in proc.stdout
    assert "Pairs:" in proc.stdout and "Traceback" not in proc.stderr


def test_identical_play_accepts_h0(in_repo, tmp_path):
    """``random:call=0.05`` is ``random`` under another name (0.05 is its default): every pair
    is played move for move the same, the difference is 0 every time."""
    result = invoke(
        *compare_args("random:call=0.05", "random", "arschmallows"),
        "--db",
        tmp_path / "i.db",
    )
    assert result.exit_code == 1, result.output
    assert "H0 accepted" in result.output
    assert "Diff: +0.000 +/- 0.000" in result.output
    assert pairs_of(result.output) < 100
    # issue 34 item 10: a zero spread is said to be none measured, not a certainty
    pairs = pairs_of(result.output)
    assert f"(all {pairs} pairs gave +0.000: no spread measured yet)" in result.output


def test_a_bot_given_by_path_is_named_by_its_base_name(in_repo, tmp_path):
    """Issue 34 item 7: ``compare /path/to/mybelief random`` is stored and shown as
    ``mybelief``, never the path."""
    bot = tmp_path / "deep" / "folder" / "mybelief"
    shutil.copytree(REPO / "bots" / "example_python", bot)
    db = tmp_path / "p.db"
    ran = invoke(
        *compare_args(str(bot), "random", "take4"),
        "--db",
        db,
        "--max-matches",
        "40",
    )
    assert ran.exit_code in (0, 1, 3), ran.output
    [name] = [t["name"] for t in Store(db).tournaments()]
    assert name.startswith("compare-mybelief-vs-random-take4-2p-"), name
    shown = invoke("tournament", "show", name, "--db", db)
    assert shown.exit_code == 0, shown.output
    said = shown.output.replace(str(db), "DB")  # the database is named as given
    assert str(bot) not in said and "mybelief" in said, said
    assert "H1 accepted" not in said or "H1 accepted: mybelief is better" in said


def _cut_slug(name: str) -> str:
    """A bot's part of a default name as earlier versions made it: cut at 24 characters."""
    return re.sub(r"[^A-Za-z0-9.]+", "_", name).strip("_.")[:24] or "bot"


@pytest.mark.parametrize(
    "bot, slug",
    [
        ("belief:iterations=20", "belief_iterations_20"),  # short enough: whole
        ("jointpick:iterations=3000,race=2", "jointpick_iterations.."),  # never "_300"
        ("x_" + "1" * 40, "x.."),  # no late word boundary: never inside the number
        ("a" * 30, "a" * 22 + ".."),
    ],
)
def test_a_long_bot_name_is_cut_at_a_word_and_says_so(bot, slug):
    from mallows.tournaments.compare.spec import SLUG_CHARS, _slug

    assert _slug(bot) == slug and len(slug) <= SLUG_CHARS


def test_a_comparison_stored_under_the_old_cut_name_is_resumed_by_the_same_command(
    in_repo, tmp_path
):
    """Names were cut at 24 characters wherever that fell; the same command finds a
    comparison stored so and goes on with it (no second comparison, no match played twice)."""
    a = "greedy:margin=6.0000000000001"  # long enough to be cut
    args = [*compare_args(a, "random", "arschmallows", players=3)]
    probe = invoke(*args, "--max-matches", "2", "--db", tmp_path / "probe.db")
    assert probe.exit_code in (0, 1, 3), probe.output
    [new_name] = [t["name"] for t in Store(tmp_path / "probe.db").tournaments()]
    assert new_name.startswith("compare-greedy_margin..-vs-random-"), new_name
    old_name = new_name.replace("greedy_margin..", _cut_slug(a))
    db = tmp_path / "old.db"
    first = invoke(*args, "--max-matches", "12", "--db", db, "--name", old_name)  # as stored
    assert first.exit_code in (0, 1, 3), first.output
    again = invoke(*args, "--max-matches", "20", "--db", db)
    assert again.exit_code in (0, 1, 3), again.output
    assert [t["name"] for t in Store(db).tournaments()] == [old_name]
    assert "(12 already stored)" in again.output, again.output


def test_a_comparison_stored_under_the_old_path_name_is_resumed_by_the_same_command(
    in_repo, tmp_path
):
    """Before issue 34 a bot given by path named its comparison by the whole path; the same
    command finds a comparison stored so and goes on with it."""
    bot = tmp_path / "deep" / "mybelief"
    shutil.copytree(REPO / "bots" / "example_python", bot)
    args = [*compare_args(str(bot), "random", "take4")]
    probe = invoke(*args, "--max-matches", "2", "--db", tmp_path / "probe.db")
    assert probe.exit_code in (0, 1, 3), probe.output
    [new_name] = [t["name"] for t in Store(tmp_path / "probe.db").tournaments()]
    old_name = new_name.replace("compare-mybelief-", f"compare-{_cut_slug(str(bot))}-")
    assert old_name != new_name
    db = tmp_path / "old.db"
    first = invoke(*args, "--max-matches", "6", "--db", db, "--name", old_name)
    assert first.exit_code in (0, 1, 3), first.output
    again = invoke(*args, "--max-matches", "10", "--db", db)
    assert again.exit_code in (0, 1, 3), again.output
    assert [t["name"] for t in Store(db).tournaments()] == [old_name]
    assert "(6 already stored)" in again.output, again.output


def test_kill_9_then_rerun_gives_the_uninterrupted_verdict(in_repo, tmp_path):
    killed, clean = tmp_path / "killed.db", tmp_path / "clean.db"
    args = [
        *compare_args("heuristic", "greedy", "arschmallows", players=4),
        "--delta",
        "0.05",
    ]
    proc = subprocess.Popen(
        [MALLOWS, *args, "--db", str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if stored(killed) >= 15:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = stored(killed)
    assert at_kill >= 15
    resumed = invoke(*args, "--db", killed)
    share_key(killed, clean)  # the same secret key: the uninterrupted run's same deals
    fresh = invoke(*args, "--db", clean)
    assert resumed.exit_code == fresh.exit_code == 0, resumed.output + fresh.output
    assert f"{at_kill} already stored" in resumed.output or at_kill == 0
    assert pairs_of(resumed.output) == pairs_of(fresh.output)
    line = lambda out: [ln for ln in out.splitlines() if ln.startswith("Pairs:")][-1]
    assert line(resumed.output) == line(fresh.output)


def test_an_old_database_takes_a_comparison(in_repo, tmp_path):
    db = tmp_path / "old.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    before = stored(db)
    result = invoke(
        *compare_args("greedy", "random", "take4", players=3),
        "--db",
        db,
        "--name",
        "cmp",
    )
    assert result.exit_code == 0, result.output
    assert stored(db) == before + 2 * pairs_of(result.output)
    store = Store(db)
    assert store.tournament("cmp")["finished"] is not None
    assert len(store.tournaments()) > 1  # the old ones are still there


# -- bad input --------------------------------------------------------------------------------

BAD = [
    (["greedy", "greedy", "--game", "take4"], "both 'greedy'"),
    (["greedy", "nosuchbot", "--game", "take4"], "cannot load 'nosuchbot'"),
    (["greedy", "random", "--game", "take4", "--opponents", "denial"], "--players 3 or more"),
    (
        ["greedy", "random", "--game", "take4", "--players", "3", "--opponents", "greedy"],
        "being compared",
    ),
    (["greedy", "random", "--game", "take4", "--delta", "1"], "--delta must be above 0"),
    (["greedy", "random", "--game", "take4", "--delta", "-0.1"], "--delta must be above 0"),
    (["greedy", "random", "--game", "take4", "--alpha", "0"], "--alpha must be above 0"),
    (["greedy", "random", "--game", "take4", "--max-matches", "1"], "--max-matches"),
    (["greedy", "random", "--game", "take4", "--players", "9"], "--players must be"),
    (["greedy", "random", "--game", "chess"], "unknown game"),
    (["greedy", "random"], "give --game"),
    (["heuristic", "random", "--game", "take4"], "not take4"),
    (["greedy", "random", "--game", "take4", "--name", "a b"], "--name"),
    (["greedy", "random", "--game", "take4", "--option", "nope=1"], "nope"),
    (["greedy", "random", "--game", "take4", "--workers", "0"], "--workers must be 1"),
]


@pytest.mark.parametrize("args,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_input_exits_2_with_a_message(in_repo, tmp_path, args, needle):
    workers = [] if "--workers" in args else ["--workers", "1"]
    result = invoke("compare", *args, *workers, "--db", tmp_path / "b.db")
    assert result.exit_code == 2, result.output
    assert needle in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "b.db").exists()  # nothing written for a command that cannot run


def test_a_tournament_name_is_not_taken_over(in_repo, tmp_path, write_toml):
    path = write_toml(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    db = tmp_path / "t.db"
    assert invoke("tournament", "run", path, "--db", db, "--workers", "1").exit_code == 0
    result = invoke(
        "compare",
        "greedy",
        "random",
        "--game",
        "take4",
        "--name",
        "t",
        "--workers",
        "1",
        "--db",
        db,
    )
    assert result.exit_code == 2 and "not a comparison" in result.output


def test_make_comparison_errors_are_mallows_errors(in_repo):
    with pytest.raises(CompareError):
        make_comparison("a", "a", game="take4")


@pytest.mark.ray
@pytest.mark.slow
def test_on_local_ray_the_verdict_is_the_in_process_one(in_repo, tmp_path):
    args = ["compare", "greedy", "random", "--game", "take4", "--players", "3"]
    on_ray = subprocess.run(
        [MALLOWS, *args, "--workers", "2", "--db", str(tmp_path / "r.db")],
        capture_output=True,
        text=True,
        timeout=600,
        env=dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0"),
    )
    share_key(tmp_path / "r.db", tmp_path / "l.db")  # the same deals in process
    local = invoke(*args, "--workers", "1", "--db", tmp_path / "l.db")
    assert on_ray.returncode == 0, on_ray.stdout + on_ray.stderr
    assert "ray, 2 workers" in on_ray.stdout
    assert pairs_of(on_ray.stdout) == pairs_of(local.output)


CRASHY = """
import random
from mallows.agents.policy import random_action

class Bot:
    games = ("take4",)

    def __init__(self):
        self.rng, self.n = random.Random(0), 0

    def match_start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation):
        self.n += 1
        if self.n == 3:
            raise RuntimeError("boom")
        return random_action(observation, self.rng)
"""


def test_a_crashing_candidate_is_named_with_its_forfeits(in_repo, tmp_path):
    bot = tmp_path / "crashy.py"
    bot.write_text(CRASHY)
    result = invoke(
        *compare_args(bot, "random", "take4"),
        "--max-matches",
        "200",
        "--db",
        tmp_path / "f.db",
    )
    assert result.exit_code == 1, result.output
    # shown by its name, as every command shows a bot (issue 18); checked by its path
    assert (
        f"warning: crashy forfeited {2 * pairs_of(result.output)} of the matches" in result.output
    )
    assert f"mallows bots check {bot}" in result.output
    assert "RuntimeError: boom" in result.output


def test_the_report_shows_a_comparison(in_repo, tmp_path):
    db = tmp_path / "r.db"
    ran = invoke(
        *compare_args("greedy", "random", "take4", players=3),
        "--db",
        db,
        "--name",
        "cmp-report",
    )
    assert ran.exit_code == 0, ran.output
    site = tmp_path / "site"
    result = invoke("report", "-o", site, "--db", db)
    assert result.exit_code == 0, result.output
    assert "cmp-report" in (site / "index.html").read_text()


def test_sandbox_off_is_stored_with_the_comparison(in_repo, tmp_path):
    bots = tmp_path / "bots"
    bots.mkdir()
    (bots / "randomcopy.py").write_text(RANDOM_COPY)
    db = tmp_path / "s.db"
    result = invoke(
        "compare",
        bots / "randomcopy.py",
        "random",
        "--game",
        "take4",
        "--sandbox",
        "off",
        "--max-matches",
        "20",
        "--workers",
        "1",
        "--db",
        db,
        "--name",
        "s",
    )
    assert result.exit_code in (1, 3), result.output
    assert definition(db, "s")["limits"] == {"sandbox": "off"}
    bad = invoke(
        "compare",
        "greedy",
        "random",
        "--game",
        "take4",
        "--sandbox",
        "maybe",
        "--db",
        tmp_path / "bad.db",
    )
    assert bad.exit_code == 2 and "--sandbox" in bad.output
