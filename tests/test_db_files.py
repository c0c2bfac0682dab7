"""What ``--db`` may be, and one tournament per database file (issue 26, items 1, 2, 3, 11).

- a FIFO, a device (``/dev/null``), a kernel file (``/proc/version``), a folder as ``--db``:
  every command refuses it at once with a message naming what it is (no command hangs on a
  FIFO, none reads ``/dev/null`` as an empty database and says "ok");
- the run lock is the database file's: a symlink to the same database does not let a second
  run start;
- a running tournament is not deleted (the message names the run: pid, host, start time), and
  no command stores a match without its tournament; ``db check`` reports orphans and
  ``db repair`` removes them;
- a lock file name over 255 bytes says to shorten the tournament name.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest
from conftest import MALLOWS, REPO
from mallows.cli import app
from mallows.results.integrity import DatabaseError
from mallows.results.store import MatchRow, StorageError, Store
from mallows.tournaments.lock import TournamentBusy, run_lock
from typer.testing import CliRunner

V1 = REPO / "tests" / "data" / "schema-v1.db"
#: The commands a FIFO as --db hung forever before (issue 26, item 3), and the two that said
#: "no database at" of a folder.
READERS = [
    ["tournament", "list"],
    ["tournament", "show", "v1-take4"],
    ["ratings"],
    ["replay", "v1-take4/3"],
    ["export"],
    ["db", "check"],
    ["bots", "show", "x"],
    ["report", "-o", "{out}"],
]


def cli(args, db, tmp_path):
    args = [a.replace("{out}", str(tmp_path / "site")) for a in args]
    result = CliRunner().invoke(app, [*args, "--db", str(db)])
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        __import__("traceback").format_exception(result.exception)
    )
    return result


@pytest.fixture
def current(tmp_path):
    path = tmp_path / "m.db"
    shutil.copy(V1, path)
    Store(path).close()
    return path


def run_all(db: Path, tmp_path: Path, timeout: float = 60) -> list:
    """Every reader on ``db`` in a thread: a hang fails the test instead of hanging it."""
    results: list = []
    thread = threading.Thread(
        target=lambda: results.extend(cli(args, db, tmp_path) for args in READERS), daemon=True
    )
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        if db.is_fifo():  # unblock the reader stuck in open()
            os.close(os.open(db, os.O_RDWR))
        pytest.fail(f"a command hung on {db} (finished: {len(results)} of {len(READERS)})")
    return results


@pytest.mark.parametrize("kind", ["fifo", "dev-null", "proc-version", "folder", "sys-file"])
def test_a_db_that_is_not_a_regular_file_is_refused_at_once(tmp_path, kind):
    if kind == "fifo":
        db = tmp_path / "pipe.db"
        os.mkfifo(db)
        words = "is a named pipe (FIFO)"
    elif kind == "dev-null":
        db, words = Path("/dev/null"), "is a character device"
    elif kind == "proc-version":
        db, words = Path("/proc/version"), "file of the kernel"
    elif kind == "sys-file":
        db = next(p for p in Path("/sys/kernel").iterdir() if p.is_file())
        words = "file of the kernel"
    else:
        db = tmp_path / "folder.db"
        db.mkdir()
        words = "is a folder"
    for args, result in zip(READERS, run_all(db, tmp_path)):
        text = " ".join(result.output.split())
        assert result.exit_code == 2, (args, result.output)
        assert words in text and str(db) in text, (args, result.output)
        assert "give the path of a mallows database file" in text, (args, text)
        # not the misleading messages of before
        assert "failed a read or write" not in text and "no database at" not in text
        assert "intact" not in text
    if kind == "fifo":
        assert db.is_fifo()


def test_a_fifo_does_not_hang_the_console_script_or_a_run(tmp_path, write_toml):
    db = tmp_path / "pipe.db"
    os.mkfifo(db)
    toml = write_toml(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    for args in (
        ["db", "check"],
        ["tournament", "run", str(toml), "--workers", "1"],
        ["serve", "--port", "0"],
    ):
        proc = subprocess.run(
            [MALLOWS, *args, "--db", str(db)], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert "is a named pipe (FIFO)" in proc.stderr and "Traceback" not in proc.stderr


def test_a_file_in_a_kernel_folder_or_under_a_file_is_refused(tmp_path):
    plain = tmp_path / "plain"
    plain.write_text("x")
    for db, words in (
        (Path("/proc/nothing.db"), "folder of the kernel"),
        (plain / "m.db", "is a file, not a folder"),
    ):
        with pytest.raises(DatabaseError, match=words):
            Store(db)


def test_an_empty_file_and_a_new_path_still_work(tmp_path, current):
    empty = tmp_path / "empty.db"
    empty.touch()
    assert cli(["tournament", "list"], empty, tmp_path).exit_code == 0
    assert cli(["tournament", "list"], current, tmp_path).exit_code == 0
    link = tmp_path / "link.db"
    link.symlink_to(current)
    assert cli(["tournament", "list"], link, tmp_path).exit_code == 0


# -- the lock is the database file's ------------------------------------------------------------


def test_a_symlink_to_the_database_finds_the_same_lock(tmp_path, write_toml):
    toml = write_toml(
        'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    db = real_dir / "m.db"
    Store(db).close()
    (tmp_path / "alias.db").symlink_to(db)
    (tmp_path / "dir-alias").symlink_to(real_dir, target_is_directory=True)
    with run_lock(db, "t"):
        for path in (tmp_path / "alias.db", tmp_path / "dir-alias" / "m.db"):
            proc = subprocess.run(
                [
                    MALLOWS,
                    "tournament",
                    "run",
                    str(toml),
                    "--db",
                    str(path),
                    "--workers",
                    "1",
                    "--quiet",
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            text = " ".join(proc.stderr.split())
            assert proc.returncode == 2, (path, text)
            assert (
                f"tournament 't' is being run on {path} by another process (pid "
                f"{os.getpid()}, host " in text
            ), text
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 0


def test_a_lock_file_name_over_255_bytes_says_to_shorten_the_name(tmp_path):
    with pytest.raises(TournamentBusy, match="give the tournament a shorter name"):
        with run_lock(tmp_path / "m.db", "x" * 300):
            pass


# -- delete during a run; orphans -------------------------------------------------------------


def test_a_running_tournament_is_not_deleted(tmp_path, current):
    with run_lock(current, "v1-take4"):
        result = cli(["tournament", "delete", "v1-take4", "--yes"], current, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2, text
    assert (
        f"tournament 'v1-take4' is being run on {current} by another process (pid "
        f"{os.getpid()}, host "
        in text
        and "running since" in text
    )
    assert "cannot be deleted while it runs" in text
    assert Store(current, readonly=True).count_matches("v1-take4") > 0  # nothing deleted
    result = cli(["tournament", "delete", "v1-take4", "--yes"], current, tmp_path)
    assert result.exit_code == 0, result.output


def test_a_real_run_cannot_be_deleted_under_it(tmp_path):
    toml = tmp_path / "long.toml"
    toml.write_text(
        'name = "long"\ngame = "take4"\nplayers = 2\ndeals = 3000\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    db = tmp_path / "m.db"
    run = subprocess.Popen(
        [MALLOWS, "tournament", "run", str(toml), "--db", str(db), "--workers", "1", "--quiet"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        import time

        deadline = time.monotonic() + 120
        while not db.exists() or Store(db, readonly=True).count_matches("long") < 5:
            assert run.poll() is None and time.monotonic() < deadline, run.stderr.read()
            time.sleep(0.2)
        proc = subprocess.run(
            [MALLOWS, "tournament", "delete", "long", "--yes", "--db", str(db)],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2 and f"(pid {run.pid}," in proc.stderr, proc.stderr
        assert run.poll() is None  # the run goes on
    finally:
        run.kill()
        run.communicate(timeout=60)
    store = Store(db, readonly=True)
    assert store.orphans() == {} and store.count_matches("long") > 0


def test_no_match_is_stored_without_its_tournament(tmp_path, current):
    store = Store(current)
    row = MatchRow(
        id="gone/0",
        tournament="gone",
        idx=0,
        game="take4",
        table=0,
        rotation=0,
        deal=0,
        seed=1,
        players=["a", "b"],
        ranks=[1, 2],
        forfeits=False,
        record='{"game": "take4"}',
        seconds=0.1,
    )
    with pytest.raises(StorageError, match="'gone' is no longer in"):
        store.add_matches([row])
    assert store.count_matches("gone") == 0


def test_db_check_reports_orphans_and_repair_removes_them(tmp_path, current):
    con = sqlite3.connect(current)
    con.execute("DELETE FROM tournaments WHERE name = 'v1-take4'")  # what an old delete raced
    con.commit()
    orphans = con.execute("SELECT COUNT(*) FROM matches WHERE tournament = 'v1-take4'").fetchone()[
        0
    ]
    con.close()
    assert orphans > 0
    result = cli(["db", "check"], current, tmp_path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2
    assert (
        f"{orphans} matches of tournament 'v1-take4', which is no longer in the database" in text
        and f"mallows db repair --db {current}" in text
    )
    result = cli(["db", "repair"], current, tmp_path)
    assert result.exit_code == 0 and f"removed {orphans} orphan matches" in result.output
    result = cli(["db", "check"], current, tmp_path)
    assert result.exit_code == 0 and "intact" in result.output
    assert cli(["db", "repair"], current, tmp_path).output.strip().endswith("nothing to repair")
