"""Bot submissions (issue 12): snapshots and versions, names, pinning, ratings per version,
withdraw, delete, a submitted bot on a real cluster, and the schema-1 -> 2 upgrade."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke, ray_env
from mallows.agents.submissions import digest_files, newest_versions, read_files
from mallows.results.ratings import TRUESKILL
from mallows.results.store import SCHEMA_VERSION, Store


BOT = """import random


class Bot:
    name = "obslog"
    version = "0.1"
    games = ["take4"]

    def __init__(self, seed="0"):
        self.rng = random.Random(int(seed))

    def act(self, observation):
        return observation["legal_actions"][{pick}]
"""


def write_bot(folder: Path, pick: str = "0", name: str = "obslog.py") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(BOT.replace("{pick}", pick))
    return path


def submit(path: Path, db: Path, *extra) -> str:
    result = invoke("bots", "submit", path, "--db", db, "--games", "2", *extra)
    assert result.exit_code == 0, result.output
    return result.output.strip().splitlines()[-1]


def counts(db: Path) -> tuple[int, int]:
    with sqlite3.connect(db) as conn:
        return (
            conn.execute("SELECT COUNT(*) FROM submissions").fetchone()[0],
            conn.execute("SELECT COUNT(*) FROM snapshot_files").fetchone()[0],
        )


def toml(tmp_path: Path, name: str, bots: list[str], deals: int = 1, players: int = 2) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "take4"\nplayers = {players}\ndeals = {deals}\n'
        f"seed = 7\nbots = {json.dumps(bots)}\n"
    )
    return path


# -- digests -------------------------------------------------------------------------------------


def test_digest_covers_paths_and_bytes_in_sorted_order():
    files = {"b/x.py": b"1", "a.py": b"22"}
    assert digest_files(files) == digest_files(dict(reversed(list(files.items()))))
    assert digest_files(files) != digest_files({"b/x.py": b"1", "a.py": b"23"})
    assert digest_files(files) != digest_files({"b/y.py": b"1", "a.py": b"22"})
    # the length prefixes keep a path's end from passing for its content's start
    assert digest_files({"ab": b"c"}) != digest_files({"a": b"bc"})


def test_a_folder_bot_snapshot_leaves_out_caches_and_is_capped(tmp_path):
    folder = tmp_path / "mybot"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "__pycache__" / "x.pyc").write_bytes(b"junk")
    (folder / "bot.toml").write_text('name = "mybot"\n')
    (folder / "bot.py").write_text("print(1)\n")
    snap = read_files(folder, "bot")
    assert sorted(snap.files) == ["mybot/bot.py", "mybot/bot.toml"] and snap.entry == "mybot"
    (folder / "data.bin").write_bytes(b"\0" * (6 * 1024 * 1024))
    with pytest.raises(Exception, match="more than 5 MiB.*leave out data"):
        read_files(folder, "bot")


def test_a_materialised_snapshot_is_read_only_and_checked_against_its_digest(tmp_path, monkeypatch):
    from mallows.agents.submissions import materialise, materialised

    monkeypatch.setenv("MALLOWS_SNAPSHOTS", str(tmp_path / "cache"))
    files = {"mybot/bot.py": b"class Bot: pass\n", "mybot/run": b"#!/bin/sh\n"}
    digest = digest_files(files)
    folder = materialise(digest, files)
    assert folder == tmp_path / "cache" / digest and materialised(digest) == folder
    assert not os.access(folder / "mybot" / "bot.py", os.W_OK) or os.geteuid() == 0
    assert (folder / "mybot" / "bot.py").stat().st_mode & 0o222 == 0
    assert (folder / "mybot").stat().st_mode & 0o222 == 0
    assert (folder / "mybot" / "run").stat().st_mode & 0o111  # a script stays runnable
    # a copy changed behind our back is not used, and is written again from the files; so is
    # one holding bytecode (issue 19: planted bytecode ran as the submitted version), a
    # dot-file or any file the digest does not cover
    for planted in ("__pycache__/bot.cpython-311.pyc", ".hidden", "extra.py"):
        (folder / "mybot").chmod(0o755)
        (folder / "mybot" / planted).parent.mkdir(exist_ok=True)
        (folder / "mybot" / planted).write_bytes(b"bytecode")
        assert materialised(digest) is None, planted
        folder = materialise(digest, files)
        assert materialised(digest) == folder
        assert sorted(p.name for p in (folder / "mybot").iterdir()) == ["bot.py", "run"]
    (folder / "mybot").chmod(0o755)
    (folder / "mybot" / "bot.py").chmod(0o644)
    (folder / "mybot" / "bot.py").write_bytes(b"class Bot: evil = 1\n")
    assert materialised(digest) is None
    assert (materialise(digest, files) / "mybot" / "bot.py").read_bytes() == files["mybot/bot.py"]
    with pytest.raises(Exception, match="does not match its digest"):
        materialise(digest, {"mybot/bot.py": b"other"})


# -- submit --------------------------------------------------------------------------------------


def test_submit_resubmit_and_a_one_byte_change(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    assert submit(path, db) == "obslog@1"
    store = Store(db)
    row = store.submission("obslog", 1)
    assert row["digest"] == digest_files({"obslog.py": path.read_bytes()})
    assert store.snapshot_files(row["digest"]) == {"obslog.py": path.read_bytes()}
    check = json.loads(row["check"])["games"]
    assert list(check) == ["take4"] and check["take4"]["matches"] == 2
    assert check["take4"]["forfeits"] == 0
    before = counts(db)

    # the same content again: the same version, nothing written
    assert submit(path, db) == "obslog@1"
    assert counts(db) == before

    # one byte changed: the next version
    path.write_text(BOT.replace("{pick}", "1"))
    assert submit(path, db) == "obslog@2"
    assert counts(db) == (before[0] + 1, before[1] + 1)
    assert store.submission("obslog", 2)["digest"] != row["digest"]
    assert submit(path, db, "--name", "other") == "other@1"


WRITER = """class Bot:
    name = "writer"
    games = ["take4"]

    def act(self, observation):
        try:
            with open(__file__, "a") as f:
                f.write("# changed by the bot itself\\n")
        except OSError:
            return observation["legal_actions"][0]
        raise RuntimeError("wrote into its own snapshot")
"""


def test_a_submitted_bot_runs_its_snapshot_read_only_in_the_sandbox(tmp_path):
    from mallows.agents.sandbox import problem
    from mallows.agents.submissions import materialised

    if problem():
        pytest.skip(f"no sandbox here: {problem()}")
    (tmp_path / "src").mkdir()
    path = tmp_path / "src" / "writer.py"
    path.write_text(WRITER)
    # the check runs the stored snapshot in the sandbox: a write into it fails (even as root,
    # for whom the files' read-only mode is no obstacle), so the bot passes
    assert submit(path, tmp_path / "m.db") == "writer@1"
    digest = Store(tmp_path / "m.db").submission("writer", 1)["digest"]
    assert materialised(digest) is not None  # unchanged


def test_submit_refuses_a_failing_bot_showing_the_first_problem(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src", pick="99")  # an index past the legal actions
    result = invoke("bots", "submit", path, "--db", db, "--games", "2")
    assert result.exit_code == 1
    assert "FAILED" in result.output and "Not submitted" in result.output
    assert "Traceback" not in result.output
    assert counts(db) == (0, 0)


def test_submit_refuses_a_shipped_name_and_a_missing_path(tmp_path):
    path = write_bot(tmp_path / "src")
    result = invoke("bots", "submit", path, "--db", tmp_path / "m.db", "--name", "random")
    assert result.exit_code == 2 and "shipped with mallows" in result.output
    result = invoke("bots", "submit", tmp_path / "nope.py", "--db", tmp_path / "m.db")
    assert result.exit_code == 2 and "no file or folder" in result.output


# -- names, pins, ratings per version --------------------------------------------------------------


def test_two_versions_rated_apart_pinned_and_shown_by_short_name(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    submit(path, db)
    path.write_text(BOT.replace("{pick}", "-1"))
    submit(path, db)
    other = write_bot(tmp_path / "elsewhere", pick="1")  # another obslog, by path
    t = toml(
        tmp_path,
        "versions",
        ["obslog@1", "obslog@2", "random", f"{path}:seed=5", f"{other}:seed=3"],
        deals=1,
        players=3,
    )
    result = invoke("tournament", "run", t, "--db", db, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output

    store = Store(db)
    pins = {p["bot"]: p for p in store.pins("versions")}
    assert pins["obslog@1"]["digest"] == store.submission("obslog", 1)["digest"]
    assert pins["obslog@2"]["digest"] == store.submission("obslog", 2)["digest"]
    # a path bot is pinned by its files' digest, and snapshotted like a submission
    by_path = pins[f"{path}:seed=5"]
    assert by_path["digest"] == digest_files({"obslog.py": path.read_bytes()})
    assert store.snapshot_files(by_path["digest"]) == {"obslog.py": path.read_bytes()}
    assert pins["random"]["origin"] == "shipped"
    assert pins["random"]["digest"] == digest_files(
        {"random.py": (REPO / "bots" / "random.py").read_bytes()}
    )
    # shown names: short, never a path; two different codes called obslog told apart
    shown = {p["display"] for p in pins.values()}
    # (the path bot holds obslog@2's very code, so it is shown, and rated, as obslog@2 would
    # be: listing both is refused; here it plays with parameters, as a variant)
    assert shown == {"obslog@1", "obslog@2", "random", "obslog@2:seed=5", "obslog:seed=3"}
    players = {
        p
        for row in store.db.query("SELECT players FROM matches")
        for p in json.loads(row["players"])
    }
    assert players == shown
    bots = [r["bot"] for r in store.ratings("tournament", "versions")]
    assert sorted(bots) == sorted(shown)
    assert not any("/" in b for b in bots)

    # per game: versions apart; --latest keeps each bot's newest version only
    out = invoke("ratings", "--db", db, "--game", "take4", "--format", "json")
    rows = json.loads(out.output)
    assert {"obslog@1", "obslog@2"} <= {r["bot"] for r in rows}
    out = invoke("ratings", "--db", db, "--game", "take4", "--format", "json", "--latest")
    latest = json.loads(out.output)
    assert {r["bot"] for r in latest} == shown - {"obslog@1"}
    # two different codes with one short name are told apart by a suffix
    other2 = write_bot(tmp_path / "third", pick="2")
    result = invoke(
        "tournament",
        "run",
        toml(tmp_path, "more", [str(other2), str(other)]),
        "--db",
        db,
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert {p["display"] for p in store.pins("more")} == {"obslog", "obslog~2"}
    assert [r["rank"] for r in latest] == list(range(1, len(latest) + 1))

    # bots show lists both versions with their ratings; bots list marks the submission
    out = invoke("bots", "show", "obslog", "--db", db)
    assert out.exit_code == 0, out.output
    assert "obslog@1" in out.output and "obslog@2" in out.output and "take4" in out.output
    out = invoke("bots", "list", "--db", db, "--no-probe")
    assert "obslog@2" in out.output and "submitted" in out.output


def test_newest_versions_keeps_parameters_apart():
    rows = [
        {"bot": b, "rank": i}
        for i, b in enumerate(["a@1", "a@3:x=1", "b", "a@3", "a@2:x=1", "a@2"], 1)
    ]
    assert [r["bot"] for r in newest_versions(rows)] == ["a@3:x=1", "b", "a@3"]


def test_changing_a_path_bot_between_a_killed_run_and_its_rerun_is_refused(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    # enough isolated matches that the run is still going when it is killed
    t = toml(tmp_path, "killed", [str(path), "random", "greedy"], deals=80)  # 480 matches
    env = dict(os.environ)
    proc = subprocess.Popen(
        [MALLOWS, "tournament", "run", str(t), "--db", str(db), "--workers", "1", "--quiet"],
        env=env,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        stored = 0
        while time.monotonic() < deadline and stored < 3:
            time.sleep(0.3)
            if db.exists():
                try:
                    with sqlite3.connect(db, timeout=5) as conn:
                        stored = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
                except sqlite3.OperationalError:
                    pass
        assert proc.poll() is None, "the run finished before it could be killed"
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with sqlite3.connect(db) as conn:
        stored = conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        pinned = conn.execute("SELECT digest FROM pins WHERE bot = ?", [str(path)]).fetchone()[0]
    assert 0 < stored < 480
    path.write_text(path.read_text() + "# one more line\n")
    now = digest_files({"obslog.py": path.read_bytes()})
    done = subprocess.run(
        [MALLOWS, "tournament", "run", str(t), "--db", str(db), "--workers", "1", "--quiet"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert pinned in done.stderr and now in done.stderr and str(path) in done.stderr
    assert "restore the old code" in done.stderr and "Traceback" not in done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == stored

    # the pinned code can be written out, and restoring it lets the run resume
    out = tmp_path / "restored"
    result = invoke("bots", "show", pinned[:16], "--db", db, "--extract", out)
    assert result.exit_code == 0, result.output
    shutil.copy(out / "obslog.py", path)
    done = subprocess.run(
        [MALLOWS, "tournament", "run", str(t), "--db", str(db), "--workers", "1", "--quiet"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 480


# -- withdraw and delete ---------------------------------------------------------------------------


def test_withdraw_keeps_history_and_refuses_new_tournaments(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    submit(path, db)
    path.write_text(BOT.replace("{pick}", "-1"))
    submit(path, db)
    first = toml(tmp_path, "first", ["obslog@2", "random"])
    assert invoke("tournament", "run", first, "--db", db, "--workers", "1").exit_code == 0
    result = invoke("bots", "withdraw", "obslog@2", "--db", db)
    assert result.exit_code == 0 and "withdrew obslog@2" in result.output
    # history kept: its matches and rating stay
    assert "obslog@2" in [r["bot"] for r in Store(db).ratings("game", "take4")]
    result = invoke(
        "tournament",
        "run",
        toml(tmp_path, "second", ["obslog@2", "random"]),
        "--db",
        db,
        "--workers",
        "1",
    )
    assert result.exit_code == 2 and "withdrawn" in result.output
    assert Store(db).tournament("second") is None  # refused: nothing kept
    # a bare name is now the newest version not withdrawn; the fixed file keeps its name
    result = invoke(
        "tournament",
        "run",
        toml(tmp_path, "second", ["obslog", "random"]),
        "--db",
        db,
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert {p["display"] for p in Store(db).pins("second")} == {"obslog@1", "random"}
    # the tournament that played it before it was withdrawn still reads and reruns
    assert invoke("tournament", "run", first, "--db", db, "--workers", "1").exit_code == 0
    assert invoke("bots", "withdraw", "obslog", "--db", db).exit_code == 2


def test_delete_removes_a_tournament_and_recomputes_the_game_leaderboard(tmp_path):
    db = tmp_path / "m.db"
    for name, bots in (("keep", ["random", "greedy"]), ("drop", ["random", "denial"])):
        result = invoke(
            "tournament", "run", toml(tmp_path, name, bots, deals=3), "--db", db, "--workers", "1"
        )
        assert result.exit_code == 0, result.output
    store = Store(db)
    assert "denial" in [r["bot"] for r in store.ratings("game", "take4")]
    result = invoke("tournament", "delete", "drop", "--db", db, input="n\n")
    assert result.exit_code == 1 and store.tournament("drop") is not None
    result = invoke("tournament", "delete", "drop", "--db", db, "--yes")
    assert result.exit_code == 0, result.output
    assert store.tournament("drop") is None and store.count_matches("drop") == 0
    assert store.ratings("tournament", "drop") == [] and store.pins("drop") == []
    board = store.ratings("game", "take4")
    expected = TRUESKILL.leaderboard(store.results(game="take4"))
    assert [(r["bot"], round(r["mu"], 9), r["games"]) for r in board] == [
        (r.bot, round(r.mu, 9), r.matches) for r in expected
    ]
    assert "denial" not in [r["bot"] for r in board]
    assert invoke("tournament", "delete", "drop", "--db", db, "--yes").exit_code == 2


# -- a cluster that shares no files ----------------------------------------------------------------


@pytest.mark.ray
@pytest.mark.slow
def test_a_submitted_bot_from_outside_the_project_plays_on_a_joined_cluster(tmp_path, ray_head):
    db = tmp_path / "m.db"
    source = write_bot(tmp_path / "outside")
    # the organiser's own snapshot cache, which the cluster's workers cannot see
    env = dict(ray_env(), MALLOWS_SNAPSHOTS=str(tmp_path / "organiser-cache"))
    out = subprocess.run(
        [MALLOWS, "bots", "submit", str(source), "--db", str(db), "--games", "1"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0 and out.stdout.strip().endswith("obslog@1"), out.stderr
    shutil.rmtree(source.parent)  # the submission is in the database now, nowhere else
    t = toml(tmp_path, "cluster", ["obslog@1", "random", "greedy"], deals=2)
    out = subprocess.run(
        [MALLOWS, "tournament", "run", str(t), "--db", str(db), "--address", ray_head, "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    store = Store(db)
    assert store.count_matches("cluster") == 12
    assert "obslog@1" in [r["bot"] for r in store.ratings("tournament", "cluster")]
    records = [json.loads(text) for _, text in store.records("cluster")]
    assert len(records) == 12
    assert not any(f for r in records for f in r["result"]["forfeits"])


# -- migration -------------------------------------------------------------------------------------


def test_a_schema_1_database_upgrades_keeping_every_match_and_rating(tmp_path):
    db = tmp_path / "v1.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    with sqlite3.connect(db) as conn:
        assert (
            conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
        )
        matches = conn.execute("SELECT id, record FROM matches ORDER BY id").fetchall()
        ratings = conn.execute("SELECT * FROM ratings ORDER BY scope, name, bot").fetchall()
    assert matches and ratings
    store = Store(db)
    assert store.schema_version() == SCHEMA_VERSION >= 4
    assert {"submissions", "snapshot_files", "pins", "bot_names"} <= set(store.db.table_names())
    # every record reads back identical (they may be stored re-encoded), every rating as it was
    upgraded = sorted(
        (mid, text) for t in store.tournaments() for mid, text in store.records(t["name"])
    )
    assert upgraded == matches
    store.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT * FROM ratings ORDER BY scope, name, bot").fetchall() == ratings
    # and the upgraded database takes a submission and a tournament beside the old ones
    submit(write_bot(tmp_path / "src"), db)
    result = invoke(
        "tournament",
        "run",
        toml(tmp_path, "after", ["obslog@1", "random"]),
        "--db",
        db,
        "--workers",
        "1",
    )
    assert result.exit_code == 0, result.output
    assert len(Store(db).tournaments()) == 3


# -- play and bots check take submitted versions ---------------------------------------------


def test_play_and_check_run_a_submitted_version_shown_as_name_at_n(tmp_path):
    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    assert submit(path, db) == "obslog@1"
    path.unlink()  # the submitted snapshot runs, not the file it came from

    result = invoke("play", "take4", "--bot", "obslog@1", "--bot", "random", "--db", db)
    assert result.exit_code == 0, result.output
    assert "obslog@1" in result.output
    # a bare submitted name is its newest version
    record = tmp_path / "match.json"
    result = invoke(
        "play", "take4", "--bot", "obslog", "--bot", "random", "--db", db, "--record", record
    )
    assert result.exit_code == 0, result.output
    assert json.loads(record.read_text())["players"][0] == "obslog@1"

    result = invoke("bots", "check", "obslog@1", "--db", db, "--games", "2")
    assert result.exit_code == 0, result.output
    assert "obslog@1" in result.output and "OK" in result.output
    # the same through the console script, in a fresh process
    proc = subprocess.run(
        [MALLOWS, "play", "take4", "--bot", "obslog@1", "--bot", "random", "--db", db],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "obslog@1" in proc.stdout
    assert "obslog@1" in result.output and "OK" in result.output

    # an unknown version names the versions there are
    for args in (
        ("play", "take4", "--bot", "obslog@7", "--bot", "random"),
        ("bots", "check", "obslog@7"),
    ):
        result = invoke(*args, "--db", db)
        assert result.exit_code == 2, result.output
        assert "obslog@7" in result.output and "versions 1" in result.output, result.output
        assert "Traceback" not in result.output

    # without the database, NAME@N is refused with a message (exit 2), not a traceback
    result = invoke(
        "play", "take4", "--bot", "obslog@1", "--bot", "random", "--db", tmp_path / "missing.db"
    )
    assert result.exit_code == 2 and "database" in result.output, result.output
    assert not (tmp_path / "missing.db").exists()


def test_the_report_lists_every_version_on_each_version_page(tmp_path):
    from mallows.report.data import slug

    db = tmp_path / "m.db"
    path = write_bot(tmp_path / "src")
    for pick in ("0", "-1", "1"):
        path.write_text(BOT.replace("{pick}", pick))
        submit(path, db)
    t = toml(tmp_path, "two", ["obslog@1", "obslog@2", "random"], players=3)
    result = invoke("tournament", "run", t, "--db", db, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert invoke("bots", "withdraw", "obslog@1", "--db", db).exit_code == 0
    out = tmp_path / "site"
    result = invoke("report", "-o", out, "--db", db)
    assert result.exit_code == 0, result.output

    store = Store(db, readonly=True)
    rows = {r["version"]: r for r in store.submissions("obslog")}
    pages = {v: (out / "b" / f"{slug(f'obslog@{v}')}.html").read_text() for v in (1, 2)}
    for v, html in pages.items():
        other = 3 - v
        assert "<h2>Versions</h2>" in html
        for row in rows.values():  # every version: digest and submission time
            assert row["digest"][:16] in html and row["created"] in html
        assert f'href="../b/{slug(f"obslog@{other}")}.html"' in html  # linked to the other
        assert f"<strong>obslog@{v}</strong> (this page)" in html
        # the third version played nowhere here: listed, not linked to a missing page
        assert "obslog@3 <small>(not in this report)</small>" in html
        assert slug("obslog@3") not in html
        assert f"withdrawn {rows[1]['withdrawn']}" in html and html.count("active") == 2
    assert "<h2>Versions</h2>" not in (out / "b" / f"{slug('random')}.html").read_text()
