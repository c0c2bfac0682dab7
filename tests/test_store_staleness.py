"""A long-running reader (``serve``) sees what other processes store, and never calls a healthy
database damaged (issue 33, item 7).

The cause found: the store's generators (``results``, ``records``) stepped one SQLite
statement across their ``yield``s; a generator left half-read (a page that stopped, a loop
that broke, a board kept for later) held its read transaction, pinning the connection to that
WAL snapshot for ever: every later read of the connection, in every thread sharing it, was
blind to what writers stored since (serve kept listing only the first ladder). Now each chunk
is read whole before a row is yielded, a read-only store gives each thread its own
connection, and a "malformed" from SQLite is believed only when a fresh check of the file
agrees (``mallows db check`` would)."""

from __future__ import annotations

import sqlite3
import subprocess
import threading

from conftest import MALLOWS, REPO
from mallows.results.store import Store

TOURNAMENT = """name = "{name}"
game = "take4"
players = 2
deals = {deals}
seed = 1
bots = ["random", "greedy"]
"""


def _run(tmp_path, db, name: str, deals: int = 2) -> None:
    path = tmp_path / f"{name}.toml"
    path.write_text(TOURNAMENT.format(name=name, deals=deals))
    done = subprocess.run(
        [MALLOWS, "tournament", "run", str(path), "--db", str(db), "--workers", "1", "-q"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _mallows(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([MALLOWS, *args], capture_output=True, text=True, timeout=600, cwd=REPO)


def test_a_reader_held_open_sees_what_other_processes_write_delete_and_repair(tmp_path):
    db = tmp_path / "org.db"
    _run(tmp_path, db, "first")
    reader = Store(db, readonly=True)  # opened once, as serve opens it
    half_read = reader.results(tournament="first")
    next(half_read)  # a page that stopped half-way: the generator is kept, not finished
    records = reader.records("first")
    next(records)
    _run(tmp_path, db, "second")  # other processes write, delete, repair meanwhile
    assert _mallows("tournament", "delete", "first", "--db", str(db), "--yes").returncode == 0
    _run(tmp_path, db, "third", deals=3)
    assert _mallows("db", "repair", "--db", str(db)).returncode == 0
    names = [t["name"] for t in reader.tournaments()]
    assert names == ["second", "third"], names
    assert reader.count_matches("third") == 6
    assert len(list(reader.records("third"))) == 6
    assert len(list(reader.results(tournament="second"))) == 4
    check = _mallows("db", "check", "--db", str(db))
    assert check.returncode == 0 and "intact" in check.stdout, check.stdout + check.stderr
    reader.close()


def test_threads_reading_one_store_while_a_process_writes_get_no_error(tmp_path):
    db = tmp_path / "org.db"
    _run(tmp_path, db, "first")
    reader = Store(db, readonly=True)
    errors: list[BaseException] = []
    seen: set[str] = set()
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                for t in reader.tournaments():
                    seen.add(t["name"])
                    list(reader.results(tournament=t["name"]))
                    for _ in reader.records(t["name"]):
                        break  # left half-read, as a page that stops
            except BaseException as exc:  # noqa: BLE001 (every error is the finding)
                errors.append(exc)
                return

    threads = [threading.Thread(target=read) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        _run(tmp_path, db, "second", deals=20)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=120)
    assert not errors, errors[:3]
    assert "second" in {t["name"] for t in reader.tournaments()}
    reader.close()


def test_damaged_is_said_only_when_a_fresh_check_of_the_file_agrees(tmp_path):
    """A "malformed" raised on a connection while the file checks intact: the store opens
    its connection again and the call succeeds (a damaged file is still called damaged:
    tests/test_damaged_db.py)."""
    db = tmp_path / "org.db"
    _run(tmp_path, db, "first")
    store = Store(db, readonly=True)
    calls = {"n": 0}

    class Flaky(Store):
        def count_matches(self, tournament: str) -> int:  # the first call meets the error
            calls["n"] += 1
            if calls["n"] == 1:
                raise sqlite3.DatabaseError("database disk image is malformed")
            return super().count_matches(tournament)

    store.__class__ = Flaky
    from mallows.results.integrity import guard

    guard(sqlite3.Error)(Flaky)
    assert store.count_matches("first") == 4 and calls["n"] == 2
    store.close()
