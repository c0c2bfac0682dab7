"""Tournament files and the tournament CLI: validation (exit 2, no traceback), resume,
kill -9 and rerun, refusals, leaderboards in every format, head-to-head, replay."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from mallows.results.store import Store
from mallows.tournaments.roundrobin.spec import (
    TournamentError,
    check_tournament_bots,
    load_tournament,
)

from conftest import MALLOWS, REPO, chance_key, invoke

GOOD = """
name = "t"
game = "take4"
players = 2
deals = 3
seed = 1
bots = ["random", "greedy"]
"""

ARSCH = """
name = "a"
game = "arschmallows"
players = 3
deals = 2
seed = 5
bots = ["random", "random:call=0.2", "random:call=0.01"]
"""


# -- validation -------------------------------------------------------------------------------

BAD = [
    (GOOD + "deal = 3\n", ["unknown key `deal`", "did you mean 'deals'"]),
    (GOOD.replace('"greedy"', '"nosuchbot"'), ["`bots`", "nosuchbot", "bots/"]),
    (GOOD + "[options]\nmax_rounds = -5\n", ["[options]", "max_rounds"]),
    (GOOD + "[options]\ntable_cards = 4\n", ["[options]", "table_cards"]),
    (
        GOOD.replace("players = 2", "players = 3"),
        ["`bots` has 2 bots but `players` = 3", "add bots or lower `players`"],
    ),
    (GOOD.replace("deals = 3\n", ""), ["missing key `deals`", "deals = 10"]),  # `seed`: optional
    (GOOD + "secret = 1\n", ["`secret` must be true or false"]),
    (GOOD.replace("players = 2", 'players = "two"'), ["`players` must be a whole number"]),
    (GOOD.replace("players = 2", "players = 9"), ["`players` must be from 2 to 4"]),
    (
        GOOD + "[ratings]\ndraw_probability = 0\n",
        ["ratings.draw_probability", "breaks down at exactly 0"],
    ),
    (GOOD + "[ratings]\nsigmma = 3\n", ["unknown key `ratings.sigmma`", "did you mean 'sigma'"]),
    (GOOD + "[limits]\ndecision = 1\n", ["unknown key `limits.decision`", "decision_seconds"]),
    (GOOD.replace('"greedy"', '"random"'), ["lists 'random' twice"]),
    (GOOD.replace('game = "take4"', 'game = "take5"'), ["`game` must be one of", "take4"]),
    (GOOD.replace('name = "t"', 'name = "a b/c"'), ["`name` must be"]),
    (GOOD + "rules = ", ["not valid TOML"]),
]


@pytest.mark.parametrize("text,needles", BAD, ids=[f"bad{i}" for i in range(len(BAD))])
def test_malformed_files_exit_2_with_a_message_naming_the_key(
    in_repo, write_toml, tmp_path, text, needles
):
    path = write_toml(text)
    with pytest.raises(TournamentError) as err:  # the file, then the plan's check of its bots
        check_tournament_bots(load_tournament(path))
    for needle in needles:
        assert needle in str(err.value)
    result = invoke("tournament", "run", path, "--db", tmp_path / "m.db", "--workers", "1")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and needles[0] in result.output
    assert not (tmp_path / "m.db").exists()  # refused before the database is touched


def test_a_bot_that_does_not_play_the_game_is_refused(in_repo, write_toml, tmp_path):
    bot = tmp_path / "t4only.py"
    bot.write_text(
        'class Bot:\n    games = ("take4",)\n\n    def act(self, o):\n'
        '        return o["legal_actions"][0]\n'
    )
    text = GOOD.replace('game = "take4"', 'game = "arschmallows"').replace('"greedy"', f'"{bot}"')
    result = invoke("tournament", "run", write_toml(text), "--db", tmp_path / "m.db")
    assert result.exit_code == 2 and "plays take4, not arschmallows" in result.output


def test_malformed_file_through_the_console_script(in_repo, write_toml, tmp_path):
    path = write_toml(GOOD + "colour = 3\n")
    proc = subprocess.run(
        [MALLOWS, "tournament", "run", str(path), "--db", str(tmp_path / "m.db"), "--workers", "1"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "unknown key `colour`" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout
    missing = subprocess.run(
        [MALLOWS, "tournament", "run", str(tmp_path / "nope.toml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert missing.returncode == 2 and "no tournament file" in missing.stderr


def test_shipped_tournament_files_are_valid(in_repo):
    files = sorted((REPO / "tournaments").glob("*.toml"))
    names = {p.stem for p in files}
    assert {"demo", "arschmallows-reference", "take4-reference"} <= names
    games = set()
    for path in files:
        t = check_tournament_bots(load_tournament(path))
        assert t.name == path.stem
        games.add(t.game)
    assert games == {"arschmallows", "take4"}


# -- running, resuming, refusing ----------------------------------------------------------------


def ratings_json(db: Path, *extra: str) -> list[dict]:
    result = invoke("ratings", "--db", db, "--format", "json", *extra)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_run_resume_and_changed_file(in_repo, write_toml, tmp_path):
    db = tmp_path / "m.db"
    path = write_toml(GOOD)
    first = invoke("tournament", "run", path, "--db", db, "--workers", "1")
    assert first.exit_code == 0, first.output
    assert "played 6 matches (0 already stored)" in first.output
    table = ratings_json(db, "--tournament", "t")
    assert [r["bot"] for r in table] and {r["matches"] for r in table} == {6}
    again = invoke("tournament", "run", path, "--db", db, "--workers", "1")
    assert again.exit_code == 0 and "played 0 matches (6 already stored)" in again.output
    assert ratings_json(db, "--tournament", "t") == table
    changed = write_toml(GOOD.replace("deals = 3", "deals = 4").replace("seed = 1", "seed = 2"))
    refused = invoke("tournament", "run", changed, "--db", db, "--workers", "1")
    assert refused.exit_code == 2 and "Traceback" not in refused.output
    assert "deals: 3 -> 4" in refused.output and "seed: 1 -> 2" in refused.output
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM matches").fetchone() == (6, 6)


@pytest.fixture(scope="module")
def two_games(tmp_path_factory):
    """A database with a finished Take4 tournament ``t`` and an Arschmallows one ``a``."""
    folder = tmp_path_factory.mktemp("two_games")
    db = folder / "m.db"
    with pytest.MonkeyPatch.context() as mp:  # as ``in_repo``: the project's bots/
        mp.chdir(REPO)
        mp.delenv("MALLOWS_BOTS_DIR", raising=False)
        mp.delenv("RAY_ADDRESS", raising=False)
        for text, name in ((GOOD, "t.toml"), (ARSCH, "a.toml")):
            (folder / name).write_text(text)
            result = invoke("tournament", "run", folder / name, "--db", db, "--workers", "1")
            assert result.exit_code == 0, result.output
    return db


def test_leaderboard_ranks_by_conservative_rating_across_games(two_games):
    db = two_games
    rows = ratings_json(db, "--game", "arschmallows")
    assert {"bot", "mu", "sigma", "matches"} <= set(rows[0])
    cons = [r["mu"] - 3 * r["sigma"] for r in rows]
    assert cons == sorted(cons, reverse=True) and [r["rank"] for r in rows] == [1, 2, 3]
    assert sum(r["matches"] for r in rows) == 3 * 3 * 2
    both = ratings_json(db)
    assert {r["game"] for r in both} == {"take4", "arschmallows"}


def test_leaderboard_formats_csv_markdown_and_a_bad_format(two_games):
    db = two_games
    csv_out = invoke("ratings", "--db", db, "--tournament", "t", "--format", "csv").output
    assert csv_out.splitlines()[0].startswith("scope,name,rank,bot,mu,sigma")
    assert len(csv_out.splitlines()) == 3
    md = invoke("ratings", "--db", db, "--format", "markdown", "--game", "take4").output
    assert "| rank | bot | mu |" in md and "| greedy |" in md
    bad = invoke("ratings", "--db", db, "--format", "xml")
    assert bad.exit_code == 2 and "--format" in bad.output


def test_tournament_show_and_list(two_games):
    db = two_games
    shown = invoke("tournament", "show", "a", "--db", db)
    assert shown.exit_code == 0 and "head-to-head" in shown.output
    assert "random:call=0.2" in shown.output and "mean place" in shown.output
    listed = invoke("tournament", "list", "--db", db)
    assert listed.output.count("6/6") == 2 and listed.output.count("finished") == 2


def test_replay_in_words_counts_rounds_from_1(two_games):
    db = two_games
    take4 = invoke("replay", "t/0", "--db", db)
    assert take4.exit_code == 0, take4.output
    # rounds counted from 1 in words (records count from 0)
    assert "round 1:" in take4.output and "picks" in take4.output and "place 1" in take4.output
    arsch = invoke("replay", "a/1", "--db", db)
    assert "-- round 1 --" in arsch.output and "looks at its slots" in arsch.output
    assert "round 1 ends" in arsch.output
    assert "round 0" not in take4.output + arsch.output  # as mallows play counts them


def test_replay_json_is_the_stored_record_and_a_missing_match_is_named(two_games):
    db = two_games
    record = json.loads(invoke("replay", "a/1", "--db", db, "--json").output)
    stored = Store(db).record("a/1")  # records are stored compressed: read through the store
    assert record == json.loads(stored) and record["players"][0] == "random:call=0.2"
    missing = invoke("replay", "a/99", "--db", db)
    assert missing.exit_code == 2 and "a/0" in missing.output


def test_read_only_commands_never_write_the_database(in_repo, write_toml, tmp_path):
    db = tmp_path / "m.db"
    assert (
        invoke("tournament", "run", write_toml(GOOD), "--db", db, "--workers", "1").exit_code == 0
    )
    expected = ratings_json(db, "--tournament", "t")
    con = sqlite3.connect(db)
    with con:  # make every stored leaderboard stale, as after a kill -9
        con.execute("DELETE FROM ratings")
        con.execute("DELETE FROM meta WHERE key LIKE 'ratings:%'")
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    before = db.read_bytes()
    shown = ratings_json(db, "--tournament", "t")  # computed in memory and shown
    assert [(r["bot"], r["mu"], r["matches"]) for r in shown] == [
        (r["bot"], r["mu"], r["matches"]) for r in expected
    ]
    for args in (
        ("tournament", "list"),
        ("tournament", "show", "t"),
        ("replay", "t/0"),
        ("ratings",),
    ):
        result = invoke(*args, "--db", db)
        assert result.exit_code == 0, result.output
    script = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert script.returncode == 0, script.stderr
    assert {r["bot"] for r in json.loads(script.stdout)} == {"random", "greedy"}
    assert db.read_bytes() == before
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM ratings").fetchone()[0] == 0


def test_a_database_written_before_the_move_reads_through_every_read_only_command(tmp_path):
    import shutil

    db = tmp_path / "old.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    before = db.read_bytes()
    listed = invoke("tournament", "list", "--db", db)
    assert listed.exit_code == 0 and "24/24" in listed.output and "3/3" in listed.output
    shown = invoke("tournament", "show", "v1-take4", "--db", db)
    assert shown.exit_code == 0 and "head-to-head" in shown.output
    rows = ratings_json(db, "--tournament", "v1-take4")
    replay = invoke("replay", "v1-arsch/0", "--db", db)
    assert replay.exit_code == 0 and "-- round 1 --" in replay.output  # rounds from 1 in words
    assert db.read_bytes() == before
    seats = sum(
        len(json.loads(p))
        for (p,) in sqlite3.connect(db).execute(
            "SELECT players FROM matches WHERE tournament = 'v1-take4'"
        )
    )
    assert len(rows) == 4 and sum(r["matches"] for r in rows) == seats


def test_duplicate_deals_across_rotations_in_stored_records(in_repo, write_toml, tmp_path):
    db = tmp_path / "m.db"
    assert (
        invoke("tournament", "run", write_toml(ARSCH), "--db", db, "--workers", "1").exit_code == 0
    )
    groups = {}
    for row in Store(db).export():
        tbl, deal, r = row["tbl"], row["deal"], json.loads(row["record"])
        first_deal = next(e["deck"] for e in r["events"] if e["type"] == "deal")
        groups.setdefault((tbl, deal), set()).add((r["seed"], tuple(first_deal)))
    assert len(groups) == 2 and all(len(g) == 1 for g in groups.values())


# -- kill -9 and rerun ------------------------------------------------------------------------

KILL = """
name = "k"
game = "arschmallows"
players = 4
deals = 12
seed = 3
bots = ["random", "random:call=0.01", "random:call=0.1", "random:call=0.2", "random:call=0.4"]
"""


def stored_records(db: Path) -> dict:
    """Match id -> record JSON text, decoded by the store (records are stored compressed)."""
    return {row["id"]: row["record"] for row in Store(db).export()}


def count(db: Path) -> int:
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_kill_9_then_rerun_gives_the_uninterrupted_table(in_repo, write_toml, tmp_path):
    path = write_toml(KILL)  # 5 tables x 4 rotations x 12 deals = 240 matches
    killed_db, clean_db = tmp_path / "killed.db", tmp_path / "clean.db"
    proc = subprocess.Popen(
        [
            MALLOWS,
            "tournament",
            "run",
            str(path),
            "--db",
            str(killed_db),
            "--workers",
            "1",
            "--quiet",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while count(killed_db) < 25 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    at_kill = count(killed_db)
    assert 25 <= at_kill < 240, f"killed with {at_kill} matches stored"
    resumed = invoke("tournament", "run", path, "--db", killed_db, "--workers", "1")
    assert resumed.exit_code == 0, resumed.output
    assert f"played {240 - at_kill} matches ({at_kill} already stored)" in resumed.output
    # the same secret key: the uninterrupted run plays the very same matches
    clean = invoke(
        "tournament",
        "run",
        path,
        "--db",
        clean_db,
        "--workers",
        "1",
        "--key",
        chance_key(killed_db),
    )
    assert clean.exit_code == 0, clean.output
    assert ratings_json(killed_db) == ratings_json(clean_db)
    a, _b = sqlite3.connect(killed_db), sqlite3.connect(clean_db)
    assert a.execute(
        "SELECT COUNT(*), COUNT(DISTINCT idx), MIN(idx), MAX(idx) FROM matches"
    ).fetchone() == (240, 240, 0, 239)
    assert stored_records(killed_db) == stored_records(clean_db)


# -- size: the limit, and the estimate before a large run --------------------------------------


def test_a_file_over_the_size_limit_names_its_size_and_database(write_toml):
    from mallows.tournaments.roundrobin.spec import MAX_MATCHES

    assert MAX_MATCHES >= 10**8
    bots = ", ".join(f'"random:call=0.{i:02d}"' for i in range(1, 13))
    path = write_toml(
        ARSCH.replace("players = 3", "players = 4")
        .replace("deals = 2", "deals = 100000000")
        .replace('bots = ["random", "random:call=0.2", "random:call=0.01"]', f"bots = [{bots}]")
    )
    with pytest.raises(TournamentError) as err:
        load_tournament(path)
    text = str(err.value)
    assert "198,000,000,000 matches" in text and "TB" in text and "lower `deals`" in text
    ok = write_toml(ARSCH.replace("deals = 2", "deals = 30000000"), "ok.toml")  # 1 x 3 x 3e7
    assert load_tournament(ok).match_count() == 90_000_000


def test_a_large_run_prints_its_size_and_duration_first(in_repo, write_toml, tmp_path, monkeypatch):
    from mallows.tournaments import run as run_module

    monkeypatch.setattr(run_module, "LARGE_RUN", 5)  # this 6-match file counts as large
    db = tmp_path / "m.db"
    result = invoke("tournament", "run", write_toml(ARSCH), "--db", db, "--workers", "1")
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())  # rich wraps long lines
    assert "6 matches to play: about" in out and "KB more in" in out
    assert "one match took" in out and "on 1 worker" in out
    # the timed match is stored, and the run plays the 5 others: 6 in all, once each
    assert "played 5 matches (1 already stored)" in result.output
    con = sqlite3.connect(db)
    assert con.execute("SELECT COUNT(*), COUNT(DISTINCT idx) FROM matches").fetchone() == (6, 6)
