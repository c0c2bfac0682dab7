"""Damaged and unusable databases, for every command: exit 2 with a message naming the file and
the fix, never a traceback; read-only media still serve the commands that only read; a digest
per match finds random bytes written into a record (issue 11, "one error path")."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows.results.store import SCHEMA_VERSION, Store

V1 = REPO / "tests" / "data" / "schema-v1.db"
SMALL = """name = "small"
game = "take4"
players = 2
deals = {deals}
seed = 1
bots = ["random", "greedy"]
"""
READERS = [
    ["tournament", "list"],
    ["tournament", "show", "v1-take4"],
    ["ratings"],
    ["replay", "v1-take4/3"],
    ["db", "check"],
]


def cli(args, db):
    return invoke(*args, "--db", db)


def commands(tmp_path, deals=1):
    toml = tmp_path / "small.toml"
    toml.write_text(SMALL.format(deals=deals))
    return READERS + [["tournament", "run", str(toml), "--workers", "1", "--quiet"]]


@pytest.fixture
def current(tmp_path):
    """A copy of the schema-1 database, upgraded to the current schema."""
    path = tmp_path / "m.db"
    shutil.copy(V1, path)
    Store(path).close()
    return path


def assert_refused(tmp_path, db, *words):
    for args in commands(tmp_path):
        result = cli(args, db)
        assert result.exit_code == 2, (args, result.output)
        assert "Traceback" not in result.output
        assert str(db) in result.output, (args, result.output)
        for w in words:
            assert w in result.output, (args, w, result.output)


# -- migration and digests ----------------------------------------------------------------------


def test_schema_1_database_is_upgraded_with_a_digest_per_match(tmp_path):
    path = tmp_path / "v1.db"
    shutil.copy(V1, path)
    before = sqlite3.connect(path).execute("SELECT id, record FROM matches ORDER BY id").fetchall()
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION
    assert store.check() == []
    assert [(i, store.record(i)) for i, _ in before] == before  # records kept as they were
    con = sqlite3.connect(path)
    digests = [d for (d,) in con.execute("SELECT digest FROM matches")]
    assert len(digests) == len(before) and all(d and len(d) == 32 for d in digests)
    assert len(set(digests)) == len(digests)
    assert cli(["db", "check"], path).exit_code == 0
    assert cli(["replay", "v1-take4/0"], path).exit_code == 0


def test_schema_1_database_reads_on_a_read_only_open_without_upgrade(tmp_path):
    path = tmp_path / "v1.db"
    shutil.copy(V1, path)
    result = cli(["db", "check"], path)
    assert result.exit_code == 0 and "no digests yet" in result.output
    assert cli(["ratings"], path).exit_code == 0
    assert (
        sqlite3.connect(path)
        .execute("SELECT value FROM meta WHERE key='schema_version'")
        .fetchone()[0]
        == "1"
    )


@pytest.mark.parametrize("column", ["record_z", "players", "ranks", "plain record"])
def test_random_bytes_in_a_stored_match_are_found(current, column):
    con = sqlite3.connect(current)
    if column == "plain record":  # a record rewritten as plain JSON text, changed
        text = Store(current, readonly=True).record("v1-take4/3")
        con.execute(
            "UPDATE matches SET record = ?, record_z = NULL, codec = NULL WHERE id = 'v1-take4/3'",
            [text.replace('"seed":', '"seed": 1', 1)],
        )
    else:
        value = con.execute(f"SELECT {column} FROM matches WHERE id = 'v1-take4/3'").fetchone()[0]
        cut = len(value) // 2
        damaged = (
            value[:cut] + os.urandom(6) + value[cut + 6 :]
            if isinstance(value, bytes)
            else value[:1] + os.urandom(3).hex() + value[7:]
        )
        con.execute(f"UPDATE matches SET {column} = ? WHERE id = 'v1-take4/3'", [damaged])
    con.commit()
    con.close()
    result = cli(["db", "check"], current)
    assert result.exit_code == 2
    assert "match v1-take4/3: record does not match its digest" in result.output
    assert "v1-take4/2" not in result.output
    result = cli(["replay", "v1-take4/3"], current)
    assert result.exit_code == 2 and "damaged" in result.output and "db check" in result.output
    assert cli(["replay", "v1-take4/2"], current).exit_code == 0


# -- files that are not (our) databases ---------------------------------------------------------


@pytest.mark.parametrize(
    "content", [b"hello, this is a text file\n" * 40, os.urandom(8192)], ids=["text", "random"]
)
def test_not_a_database(tmp_path, content):
    db = tmp_path / "x.db"
    db.write_bytes(content)
    assert_refused(tmp_path, db, "not an SQLite database")
    assert db.read_bytes() == content  # nothing written into it


def test_corrupted_header(tmp_path, current):
    data = bytearray(current.read_bytes())
    data[0:16] = b"definitely-not!!"
    current.write_bytes(bytes(data))
    assert_refused(tmp_path, current, "not an SQLite database")


def test_truncated(tmp_path, current):
    data = current.read_bytes()
    current.write_bytes(data[: len(data) // 3])
    for args in commands(tmp_path):
        result = cli(args, current)
        assert result.exit_code == 2, (args, result.output)
        assert "damaged" in result.output and "restore it from a copy" in result.output


def test_corrupted_page(tmp_path, current):
    con = sqlite3.connect(current)
    page = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    data = bytearray(current.read_bytes())
    pages = len(data) // page
    for p in range(pages // 2, pages):  # the later pages: matches and their index
        data[p * page + 8 : p * page + 200] = os.urandom(192)
    current.write_bytes(bytes(data))
    result = cli(["db", "check"], current)
    assert result.exit_code == 2 and "is damaged" in result.output, result.output
    for args in commands(tmp_path):
        result = cli(args, current)
        assert result.exit_code in (0, 2), (args, result.output)
        if result.exit_code == 2:
            assert str(current) in result.output


def test_schema_version_not_a_number(tmp_path, current):
    con = sqlite3.connect(current)
    con.execute("UPDATE meta SET value = 'abc' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    assert_refused(tmp_path, current, "schema version ('abc'", "is not a number")


def test_someone_elses_database_is_refused_not_read_as_empty(tmp_path):
    db = tmp_path / "theirs.db"
    con = sqlite3.connect(db)
    con.execute("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)")
    con.execute("INSERT INTO customers (name) VALUES ('ada')")
    con.commit()
    con.close()
    assert_refused(tmp_path, db, "not a mallows one", "customers")
    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"customers"}  # untouched


def test_db_in_an_impossible_folder(tmp_path):
    db = Path("/proc/x/y.db")
    for args in commands(tmp_path):
        result = cli(args, db)
        assert result.exit_code == 2, (args, result.output)
        assert "/proc/x/y.db" in result.output


def test_console_script_prints_the_message_not_a_traceback(tmp_path):
    db = tmp_path / "x.db"
    db.write_bytes(b"not a database at all\n" * 100)
    proc = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith(f"error: {db} is not an SQLite database")


# -- full and read-only disks (a small tmpfs; skipped where this process cannot mount) -----------


@contextlib.contextmanager
def tmpfs(path: Path, size: str):
    path.mkdir()
    try:
        proc = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"cannot mount a tmpfs here: {exc}")
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {proc.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True, timeout=30)


def test_full_disk_is_a_message_and_a_rerun_resumes(tmp_path):
    with tmpfs(tmp_path / "disk", "3m") as disk:
        db = disk / "m.db"
        shutil.copy(V1, db)
        Store(db).close()
        filler = disk / "filler"
        with open(filler, "wb", buffering=0) as f:  # then leave room to open, not to store
            with contextlib.suppress(OSError):  # 40 matches
                while True:
                    f.write(b"\0" * 4096)
        filler.write_bytes(b"\0" * (filler.stat().st_size - 24 * 1024))
        toml = tmp_path / "big.toml"
        toml.write_text(SMALL.format(deals=20))
        result = cli(["tournament", "run", str(toml), "--workers", "1", "--quiet"], db)
        assert result.exit_code == 2, result.output
        assert f"the disk holding {db} is full" in result.output and "free space" in result.output
        filler.unlink()
        stored = (
            sqlite3.connect(db)
            .execute("SELECT COUNT(*) FROM matches WHERE tournament = 'small'")
            .fetchone()[0]
        )
        result = cli(["tournament", "run", str(toml), "--workers", "1", "--quiet"], db)
        assert result.exit_code == 0, result.output
        assert f"({stored} already stored)" in result.output
        assert cli(["db", "check"], db).exit_code == 0


def test_read_only_disk_serves_readers_and_refuses_a_run(tmp_path):
    with tmpfs(tmp_path / "disk", "2m") as disk:
        db = disk / "m.db"
        shutil.copy(V1, db)
        Store(db).close()
        subprocess.run(["mount", "-o", "remount,ro", str(disk)], check=True, timeout=30)
        for args in READERS:
            result = cli(args, db)
            assert result.exit_code == 0, (args, result.output)
        assert "v1-take4" in cli(["tournament", "list"], db).output
        assert json.loads(cli(["ratings", "--format", "json"], db).output)
        result = cli(commands(tmp_path)[-1], db)
        assert result.exit_code == 2
        assert f"cannot write {db}" in result.output and "read-only" in result.output


def test_every_part_of_the_store_turns_sqlite_errors_into_a_message(tmp_path):
    # Store answers through objects of its own (results/store/: Reading, Submissions): the
    # public methods of every part are guarded, not only those written in Store itself
    import inspect

    from mallows.results.integrity import DatabaseError

    from mallows.results.store.reading import Reading
    from mallows.results.store.submissions import Submissions

    unguarded = [
        f"{part.__name__}.{name}"
        for part in (Store, Reading, Submissions)
        for name in dir(part)
        if not name.startswith("_")
        and inspect.isfunction(getattr(part, name))
        and not hasattr(getattr(part, name), "__wrapped__")
    ]
    assert not unguarded, f"Store methods that let a raw sqlite3 error out: {unguarded}"
    with Store(tmp_path / "m.db") as store:
        for table in ("bots", "ratings", "pins"):
            store.db.execute(f"DROP TABLE {table}")
        for call in (
            lambda: store.bot_source("x"),  # core
            lambda: store.ratings("game", "take4"),  # reading
            lambda: store.pins("t"),
        ):  # submissions
            with pytest.raises(DatabaseError, match="not a complete mallows database"):
                call()
