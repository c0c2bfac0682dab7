"""The database file's layout: the tables and the migrations that build them (``MIGRATIONS``:
``_v1``, ``_v2``, ``_v3``, ``_v4_submissions``, ``_v5_ladders``; ``MIGRATIONS[i]`` takes a file from schema
version i to i + 1), the per-game compression dictionaries that the migrations and the store
share (``_encode_plain_rows``, ``_dictionary_for``, ``_dictionary_data``), and the read-only
connection (``_connect_readonly``). Also what every module of the store uses: ``StorageError``,
``DEFAULT_DB``, ``PAGE_SIZE`` and ``_now``.

A schema change is a new function appended to ``MIGRATIONS``; ``Store`` runs the missing ones in
order when it opens a file (``core``).
"""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Callable

import sqlite_utils

from mallows.errors import StorageError
from mallows.results import codec
from mallows.results.integrity import record_digest

DEFAULT_DB = Path("results") / "mallows.db"
PAGE_SIZE = 16384


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())


def _v1(db: sqlite_utils.Database) -> None:
    db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db["bots"].create(
        {"name": str, "source": str, "first_seen": str}, pk="name", if_not_exists=True
    )
    db["tournaments"].create(
        {
            "name": str,
            "game": str,
            "definition": str,
            "digest": str,
            "file": str,
            "total": int,
            "created": str,
            "finished": str,
        },
        pk="name",
        if_not_exists=True,
    )
    db["matches"].create(
        {
            "id": str,
            "tournament": str,
            "idx": int,
            "game": str,
            "tbl": int,
            "rotation": int,
            "deal": int,
            "seed": int,
            "players": str,
            "ranks": str,
            "forfeits": int,
            "record": str,
            "seconds": float,
            "finished_at": str,
        },
        pk="id",
        foreign_keys=[("tournament", "tournaments", "name")],
        if_not_exists=True,
    )
    db["matches"].create_index(["tournament", "idx"], unique=True, if_not_exists=True)
    db["matches"].create_index(["game"], if_not_exists=True)
    db["ratings"].create(
        {
            "scope": str,
            "name": str,
            "game": str,
            "rank": int,
            "bot": str,
            "mu": float,
            "sigma": float,
            "conservative": float,
            "games": int,
            "wins": int,
            "mean_place": float,
            "updated": str,
        },
        pk=("scope", "name", "bot"),
        if_not_exists=True,
    )


def _v4_submissions(db: sqlite_utils.Database) -> None:
    """Bot submissions and pins: immutable snapshots (``snapshot_files``), versions
    (``submissions``), the code each tournament runs (``pins``), short names (``bot_names``)."""
    db["snapshot_files"].create(
        {"digest": str, "path": str, "data": bytes}, pk=("digest", "path"), if_not_exists=True
    )
    db["submissions"].create(
        {
            "name": str,
            "version": int,
            "digest": str,
            "entry": str,
            "kind": str,
            "manifest": str,
            "source": str,
            "bytes": int,
            "files": int,
            "check": str,
            "created": str,
            "withdrawn": str,
        },
        pk=("name", "version"),
        if_not_exists=True,
    )
    db["submissions"].create_index(["digest"], if_not_exists=True)
    db["pins"].create(
        {
            "tournament": str,
            "bot": str,
            "display": str,
            "digest": str,
            "snapshot": str,
            "entry": str,
            "origin": str,
            "source": str,
        },
        pk=("tournament", "bot"),
        foreign_keys=[("tournament", "tournaments", "name")],
        if_not_exists=True,
    )
    db["bot_names"].create(
        {"short": str, "digest": str, "display": str}, pk=("short", "digest"), if_not_exists=True
    )


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write: SQLite's ``mode=ro`` URI."""
    if not path.exists():
        raise StorageError(f"no database at {path}: run a tournament first or pass --db PATH")
    uri = f"{path.resolve().as_uri()}?mode=ro"
    # on read-only media SQLite cannot create the WAL's shared-memory file beside the database:
    # open it as immutable there (nothing can change it)
    if not (os.access(path, os.W_OK) and os.access(path.resolve().parent, os.W_OK)):
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, check_same_thread=False)


def _v2(db: sqlite_utils.Database) -> None:
    """Compact records: ``record_z`` (zstd bytes) and ``codec`` (``codec.py``) beside the plain
    ``record``, per-game dictionaries in ``dictionaries``; every stored record is re-encoded
    (read back identical) and its plain text dropped."""
    db.execute(
        "CREATE TABLE IF NOT EXISTS dictionaries (id INTEGER PRIMARY KEY, game TEXT, "
        "data BLOB, samples INTEGER, created TEXT)"
    )
    columns = {c.name for c in db["matches"].columns}
    if "record_z" not in columns:
        db.execute("ALTER TABLE matches ADD COLUMN record_z BLOB")
    if "codec" not in columns:
        db.execute("ALTER TABLE matches ADD COLUMN codec INTEGER")
    for (game,) in db.execute(
        "SELECT DISTINCT game FROM matches WHERE record IS NOT NULL AND codec IS NULL"
    ).fetchall():
        _encode_plain_rows(db, game)


def _encode_plain_rows(db: sqlite_utils.Database, game: str) -> None:
    """Compress every plain or dictionary-less record of ``game``, training the game's
    dictionary first when it has none and enough records (in chunks: memory stays flat)."""
    number = _dictionary_for(db, game)
    if number == codec.NO_DICT:
        samples = [
            text
            for (text,) in db.execute(
                "SELECT record FROM matches WHERE game = ? AND codec IS NULL AND record IS NOT "
                "NULL ORDER BY rowid LIMIT ?",
                [game, codec.TRAIN_AT],
            )
        ]
        zero = codec.Codec(codec.NO_DICT)
        samples += [
            zero.decode(blob)
            for (blob,) in db.execute(
                "SELECT record_z FROM matches WHERE game = ? AND codec = 0 ORDER BY rowid LIMIT ?",
                [game, max(0, codec.TRAIN_AT - len(samples))],
            )
        ]
        data = codec.train(samples) if len(samples) >= codec.TRAIN_AT else None
        if data is not None:
            number = (
                db.execute(
                    "INSERT INTO dictionaries (game, data, samples, created) VALUES (?, ?, ?, ?)",
                    [game, data, len(samples), _now()],
                ).lastrowid
                or number
            )  # an INSERT: a row id
    target = codec.Codec(number, _dictionary_data(db, number))
    zero = codec.Codec(codec.NO_DICT)
    last = 0
    while True:
        rows = db.execute(
            "SELECT rowid, record, record_z, codec FROM matches WHERE game = ? AND rowid > ? "
            "AND (codec IS NULL OR codec = 0) ORDER BY rowid LIMIT 2000",
            [game, last],
        ).fetchall()
        if not rows:
            return
        out = []
        for rowid, text, blob, number_was in rows:
            last = rowid
            if number_was == codec.NO_DICT and target.number == codec.NO_DICT:
                continue
            plain = text if number_was is None else zero.decode(blob)
            out.append((target.encode(plain), target.number, rowid))
        db.conn.executemany(
            "UPDATE matches SET record_z = ?, codec = ?, record = NULL WHERE rowid = ?", out
        )


def _dictionary_for(db: sqlite_utils.Database, game: str) -> int:
    row = db.execute(
        "SELECT id FROM dictionaries WHERE game = ? ORDER BY id DESC LIMIT 1", [game]
    ).fetchone()
    return row[0] if row else codec.NO_DICT


def _dictionary_data(db: sqlite_utils.Database, number: int) -> bytes | None:
    if number == codec.NO_DICT:
        return None
    return db.execute("SELECT data FROM dictionaries WHERE id = ?", [number]).fetchone()[0]


def _v3(db: sqlite_utils.Database) -> None:
    """Each match carries a digest of its record (the JSON text, so that re-encoding keeps
    it), players and ranks (``integrity``); reading a record checks it."""
    if "digest" not in {c.name for c in db["matches"].columns}:
        db.execute("ALTER TABLE matches ADD COLUMN digest TEXT")
    codecs: dict = {}
    last = 0
    while True:  # in chunks: memory stays flat
        rows = db.execute(
            "SELECT rowid, record, record_z, codec, players, ranks FROM matches "
            "WHERE rowid > ? ORDER BY rowid LIMIT 2000",
            [last],
        ).fetchall()
        if not rows:
            return
        out = []
        for rowid, text, blob, number, players, ranks in rows:
            last = rowid
            if number is not None:
                if number not in codecs:
                    codecs[number] = codec.Codec(number, _dictionary_data(db, number))
                text = codecs[number].decode(blob)
            out.append((record_digest(text, players, ranks), rowid))
        db.conn.executemany("UPDATE matches SET digest = ? WHERE rowid = ?", out)


def _v5_ladders(db: sqlite_utils.Database) -> None:
    """Standing ladders (``mallows.tournaments.ladder``): the planned epochs (``ladder_epochs``:
    who was in the field, the mode, the events applied), every planned table with why it was
    scheduled (``ladder_tables``: a match's reason is its table's, so a later fit can account for
    the design) and what happened to the ladder between epochs (``ladder_events``: joins,
    withdrawals, stop, finals). New tables only: older files keep every row as it was."""
    db["ladder_epochs"].create(
        {
            "ladder": str,
            "epoch": int,
            "first": int,
            "count": int,
            "mode": str,
            "field": str,
            "newcomers": str,
            "events_upto": int,
            "created": str,
        },
        pk=("ladder", "epoch"),
        if_not_exists=True,
    )
    db["ladder_tables"].create(
        {
            "ladder": str,
            "tbl": int,
            "epoch": int,
            "first": int,
            "count": int,
            "bots": str,
            "reason": str,
        },
        pk=("ladder", "tbl"),
        if_not_exists=True,
    )
    db["ladder_tables"].create_index(["ladder", "first"], unique=True, if_not_exists=True)
    db.execute(
        "CREATE TABLE IF NOT EXISTS ladder_events (seq INTEGER PRIMARY KEY "
        "AUTOINCREMENT, ladder TEXT, kind TEXT, bot TEXT, note TEXT, created TEXT)"
    )
    db.execute("CREATE INDEX IF NOT EXISTS ladder_events_ladder ON ladder_events (ladder, seq)")


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [
    _v1,
    _v2,
    _v3,
    _v4_submissions,
    _v5_ladders,
]
SCHEMA_VERSION = len(MIGRATIONS)
