"""The ``Store`` class and its core: opening a database (read-write in WAL mode, or read-only
with an older schema migrated in a private in-memory copy), refusing a file that is not ours or
is newer, running the missing migrations; tournaments; storing matches; and the record encoding
(each game's codec, training its dictionary once enough records are stored).

``Store`` is the SQLite ``ResultStore``: it owns the one connection and this core, and answers
the reading queries through a ``reading.Reading`` and the submissions and pins through a
``submissions.Submissions``, both objects over that connection (its methods of those parts
forward to them, so the interface stays one flat ``ResultStore``).
The migrations are read from ``schema`` when a file is opened (``schema.MIGRATIONS``).
"""

from __future__ import annotations

import contextlib

import json
import sqlite3
import threading
import weakref
from pathlib import Path
from typing import Iterable, Iterator

import sqlite_utils

from mallows.errors import RecordTooLarge
from mallows.results import codec
from mallows.results.integrity import DatabaseError, check_db_path, guard, record_digest
from mallows.results.interface import MatchRow
from mallows.results.store import schema
from mallows.results.store.reading import Reading
from mallows.results.store.schema import (
    DEFAULT_DB,
    PAGE_SIZE,
    StorageError,
    _connect_readonly,
    _dictionary_data,
    _dictionary_for,
    _encode_plain_rows,
    _now,
)
from mallows.results.store.submissions import Submissions
from mallows.results.store.accounts import Accounts
from mallows.results.store.ladders import Ladders

_MATCH_COLUMNS = (
    "id",
    "tournament",
    "idx",
    "game",
    "tbl",
    "rotation",
    "deal",
    "seed",
    "players",
    "ranks",
    "forfeits",
    "record_z",
    "codec",
    "seconds",
    "finished_at",
    "digest",
)
_RECORD_AT = 11  # the record's place in ``_values``
# a prepared statement: sqlite-utils' insert() introspects the table on every call
_INSERT_MATCH = (
    f"INSERT OR IGNORE INTO matches ({', '.join(_MATCH_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(_MATCH_COLUMNS))})"
)


def _key_name(tournament: str) -> str:
    return f"chance_key:{tournament}"


def _values(row: MatchRow, stamp: str) -> tuple:
    """A ``MatchRow`` in ``_MATCH_COLUMNS`` order."""
    players, ranks = json.dumps(row.players), json.dumps(row.ranks)
    return (
        row.id,
        row.tournament,
        row.idx,
        row.game,
        row.table,
        row.rotation,
        row.deal,
        row.seed,
        players,
        ranks,
        int(row.forfeits),
        row.record,
        float(row.seconds),
        stamp,
        record_digest(row.record, players, ranks),
    )


_OUR_TABLES = ("meta", "bots", "tournaments", "matches", "ratings")


@guard(sqlite3.Error)  # every SQLite error: a DatabaseError naming the file and the fix
class Store:
    """The SQLite ``ResultStore``. ``readonly``: open with ``mode=ro`` and never write.

    A read-only store on disk gives each thread its own connection (``db``): ``serve``
    answers pages from many threads, and one connection shared between them let one thread's
    statement run inside another's read transaction. A writable store (one writer) and a
    read-only copy migrated in memory keep one connection."""

    disk_version: int

    def __init__(self, path: str | Path = DEFAULT_DB, readonly: bool = False):
        self.reading = Reading(self)  # the reading queries, over this connection
        self.submitted = Submissions(self)  # submissions and pins, over this connection
        self.ladders = Ladders(self)  # standing ladders' epochs, tables, events
        self.accounts = Accounts(self)  # the server's accounts, token hashes, bot owners
        self.path = Path(path)
        self.readonly = readonly
        self.closed = False
        self._codecs: dict[int, codec.Codec] = {}  # by number: decoders and encoders
        self._encoders: dict[str, codec.Codec] = {}  # by game: the codec new records get
        self._untrained: dict[str, int] = {}  # by game: records since a training try
        self._shared: sqlite_utils.Database | None = None  # the one connection, if one
        self._local = threading.local()  # a read-only store's connection in each thread
        self._readers: weakref.WeakSet = weakref.WeakSet()  # those open, closed by close()
        self._memory = False
        check_db_path(self.path)  # a folder, FIFO, device, kernel file: refused before opening
        if readonly:
            self._check_ours()
            self.disk_version = self.schema_version()
            if self.schema_version() < schema.SCHEMA_VERSION:
                self._migrate_in_memory()
            else:
                self._migrate()  # refuses a newer schema; nothing to do otherwise
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite_utils.Database(self.path)
        self.db.execute("PRAGMA busy_timeout = 30000")
        self._check_ours()
        # a new file only (a no-op afterwards): rows of about 1.3 KB pack into 16 KiB pages
        # with little slack, where 4 KiB pages would waste a quarter of the file
        self.db.execute(f"PRAGMA page_size = {PAGE_SIZE}")
        self.db.enable_wal()
        self.db.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable against kill -9
        self._migrate()
        self.disk_version = schema.SCHEMA_VERSION

    @property
    def db(self) -> sqlite_utils.Database:
        """This thread's connection (a read-only store on disk), else the store's one."""
        if self._shared is not None:
            return self._shared
        db = getattr(self._local, "db", None)
        if db is None:
            if self.closed:
                raise StorageError(f"{self.path}: the store was closed")
            db = sqlite_utils.Database(_connect_readonly(self.path))
            db.execute("PRAGMA busy_timeout = 30000")
            self._local.db = db
            self._readers.add(db)
        return db

    @db.setter
    def db(self, value: sqlite_utils.Database) -> None:
        self._shared = value

    def recheck(self) -> bool:
        """After SQLite called the file damaged on one of this store's connections: check the
        file on a new connection (SQLite's quick check). Intact: this thread's connection is
        opened again and True is returned (the error belonged to the connection, not the
        file); damaged, or a private in-memory copy: False."""
        if self._memory or self.closed:
            return False
        try:
            con = _connect_readonly(self.path)
            try:
                intact = [r[0] for r in con.execute("PRAGMA quick_check").fetchall()] == ["ok"]
            finally:
                con.close()
        except sqlite3.Error:
            return False
        if intact:
            self._reopen()
        return intact

    def _reopen(self) -> None:
        if self._shared is None:  # read-only: this thread's connection is made anew
            old = getattr(self._local, "db", None)
            self._local.db = None
            if old is not None:
                old.conn.close()
            return
        self._shared.conn.close()
        self._shared = sqlite_utils.Database(self.path)
        self._shared.execute("PRAGMA busy_timeout = 30000")
        self._shared.execute("PRAGMA synchronous = NORMAL")

    def _migrate_in_memory(self) -> None:
        """An older schema opened read-only: migrate a private in-memory copy."""
        memory = sqlite3.connect(":memory:", check_same_thread=False)
        reader = self.db
        reader.conn.backup(memory)
        self.close()
        self.closed = False
        self._memory = True
        self.db = sqlite_utils.Database(memory)
        self._migrate()

    def _writable(self) -> None:
        if self.readonly:
            raise StorageError(f"{self.path} is open read-only: this command does not write")

    # -- schema -------------------------------------------------------------------------------
    def _check_ours(self) -> None:
        """Refuse a database that holds someone else's tables rather than read it as empty."""
        tables = self.db.table_names()
        missing = [t for t in _OUR_TABLES if t not in tables]
        if tables and ("meta" not in tables or missing):
            raise DatabaseError(
                f"{self.path} is an SQLite database but not a mallows one (its tables: "
                f"{', '.join(sorted(tables)[:8])}{', ...' if len(tables) > 8 else ''}"
                f"{'; missing: ' + ', '.join(missing) if 'meta' in tables else ''}): "
                f"give another --db (a new file name starts a new database)"
            )

    def schema_version(self) -> int:
        if "meta" not in self.db.table_names():
            return 0
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        if row is None:
            return 0
        try:
            return int(row[0])
        except (TypeError, ValueError):
            raise DatabaseError(
                f"{self.path}: its schema version ({row[0]!r} in table meta) is not a number, "
                f"so it is damaged or not a mallows database: restore it from a copy, or use "
                f"another --db"
            ) from None

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > schema.SCHEMA_VERSION:
            raise StorageError(
                f"{self.path} has schema version {version}, newer than this mallows "
                f"understands ({schema.SCHEMA_VERSION}): upgrade mallows or use another --db"
            )
        while version < schema.SCHEMA_VERSION:
            with self.db.conn:
                # explicit: Python's sqlite3 would autocommit DDL (ALTER TABLE) on its own, and
                # a step cut short (a full disk) must leave the file at the version before it
                self.db.execute("BEGIN IMMEDIATE")
                schema.MIGRATIONS[version](self.db)
                version += 1
                self.db["meta"].upsert({"key": "schema_version", "value": str(version)}, pk="key")

    def close(self) -> None:
        if self._shared is not None:
            self._shared.conn.close()
        for reader in list(self._readers):
            reader.conn.close()
        self._local = threading.local()
        self.closed = True

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- tournaments --------------------------------------------------------------------------
    def add_tournament(
        self,
        name: str,
        game: str,
        definition: str,
        digest: str,
        file: str,
        total: int,
        bot_sources: dict[str, str],
    ) -> None:
        """Store a new tournament: its canonical definition (JSON text) and its digest, the
        file it came from, its number of matches, and where each of its bots was found."""
        self._writable()
        with self.db.conn:
            self.db["tournaments"].insert(
                {
                    "name": name,
                    "game": game,
                    "definition": definition,
                    "digest": digest,
                    "file": file,
                    "total": total,
                    "created": _now(),
                    "finished": None,
                },
                pk="name",
            )
            for bot, source in bot_sources.items():
                self.db["bots"].insert(
                    {"name": bot, "source": source, "first_seen": _now()}, pk="name", ignore=True
                )

    def tournament(self, name: str) -> dict | None:
        rows = list(self.db.query("SELECT * FROM tournaments WHERE name = ?", [name]))
        return rows[0] if rows else None

    def bot_source(self, name: str) -> str | None:
        row = self.db.execute("SELECT source FROM bots WHERE name = ?", [name]).fetchone()
        return row[0] if row else None

    def tournaments(self) -> list[dict]:
        return list(
            self.db.query(
                "SELECT t.name, t.game, t.total, t.created, t.finished, t.file, "
                "(SELECT COUNT(*) FROM matches m WHERE m.tournament = t.name) AS done "
                "FROM tournaments t ORDER BY t.rowid"
            )
        )

    def update_tournament(
        self,
        name: str,
        *,
        definition: str | None = None,
        total: int | None = None,
        finished: bool | None = None,
    ) -> None:
        """Change a stored tournament's definition (JSON text), its number of matches, or
        whether it is finished (True: now; False: not). A comparison (``mallows compare``)
        learns its length as it runs."""
        sets: list[str] = []
        args: list[object] = []
        if definition is not None:
            sets.append("definition = ?")
            args.append(definition)
        if total is not None:
            sets.append("total = ?")
            args.append(int(total))
        if finished is not None:
            sets.append("finished = ?")
            args.append(_now() if finished else None)
        if sets:
            with self.db.conn:
                self.db.execute(
                    f"UPDATE tournaments SET {', '.join(sets)} WHERE name = ?", [*args, name]
                )

    def remove_tournament(self, name: str) -> None:
        """Forget a tournament that has no stored match (its file was corrected before any
        match was played); a tournament with matches is never removed."""
        self._writable()
        with self.db.conn:
            if self.count_matches(name) == 0:
                self.db.execute(
                    "DELETE FROM ratings WHERE scope = 'tournament' AND name = ?", [name]
                )
                # its secret key stays: the corrected file runs with it (nothing was played)
                self.db.execute("DELETE FROM meta WHERE key = ?", [f"ratings:tournament:{name}"])
                self.db.execute("DELETE FROM tournaments WHERE name = ?", [name])

    def chance_key(self, name: str) -> bytes | None:
        """Tournament ``name``'s secret key (``seeding.Chance``), None if it has none. Kept
        in ``meta``, never in the definition, a record or an export."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", [_key_name(name)]).fetchone()
        return bytes.fromhex(row[0]) if row else None

    def put_chance_key(self, name: str, key: bytes) -> bytes:
        """Keep ``key`` as tournament ``name``'s secret key unless it has one; return the one
        kept (two runs starting at once agree on the first)."""
        self._writable()
        with self.db.conn:
            self.db.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)",
                [_key_name(name), key.hex()],
            )
        kept = self.chance_key(name)
        assert kept is not None
        return kept

    def forget_chance_key(self, name: str) -> None:
        self._writable()
        with self.db.conn:
            self.db.execute("DELETE FROM meta WHERE key = ?", [_key_name(name)])

    def mark_finished(self, name: str) -> None:
        self._writable()
        with self.db.conn:
            self.db.execute("UPDATE tournaments SET finished = ? WHERE name = ?", [_now(), name])

    def delete_tournament(self, name: str) -> str | None:
        """Remove a tournament, its matches, pins and leaderboard; return its game (None if
        there was no such tournament). The game's leaderboard is left stale for the caller
        to recompute."""
        self._writable()
        row = self.tournament(name)
        if row is None:
            return None
        with self.db.conn:
            for sql in (
                "DELETE FROM matches WHERE tournament = ?",
                "DELETE FROM pins WHERE tournament = ?",
                "DELETE FROM ratings WHERE scope = 'tournament' AND name = ?",
                "DELETE FROM ladder_epochs WHERE ladder = ?",
                "DELETE FROM ladder_tables WHERE ladder = ?",
                "DELETE FROM ladder_events WHERE ladder = ?",
                "DELETE FROM tournaments WHERE name = ?",
            ):
                self.db.execute(sql, [name])
            self.db.execute(
                "DELETE FROM meta WHERE key IN (?, ?)",
                [f"ratings:tournament:{name}", _key_name(name)],
            )
            if not self.db.execute(
                "SELECT 1 FROM tournaments WHERE game = ?", [row["game"]]
            ).fetchone():
                self.db.execute(
                    "DELETE FROM ratings WHERE scope = 'game' AND name = ?", [row["game"]]
                )
                self.db.execute("DELETE FROM meta WHERE key = ?", [f"ratings:game:{row['game']}"])
        return row["game"]

    def orphans(self) -> dict[str, int]:
        """Stored matches whose tournament is gone, counted by the tournament they name (a
        file written by an older mallows, whose delete could race a run)."""
        return dict(
            self.db.execute(
                "SELECT tournament, COUNT(*) FROM matches WHERE tournament NOT IN "
                "(SELECT name FROM tournaments) GROUP BY tournament ORDER BY tournament"
            ).fetchall()
        )

    def remove_orphans(self) -> int:
        """Delete the matches (and pins) of tournaments that are gone; return how many
        matches."""
        self._writable()
        with self.db.conn:
            gone = self.db.execute(
                "DELETE FROM matches WHERE tournament NOT IN (SELECT name FROM tournaments)"
            ).rowcount
            self.db.execute(
                "DELETE FROM pins WHERE tournament NOT IN (SELECT name FROM tournaments)"
            )
        return gone

    # -- matches ------------------------------------------------------------------------------
    def done_indices(self, tournament: str) -> set[int]:
        """Every stored index at once (small tournaments; runs use ``missing_indices``)."""
        return {
            r[0]
            for r in self.db.execute(
                "SELECT idx FROM matches WHERE tournament = ?", [tournament]
            ).fetchall()
        }

    def count_matches(self, tournament: str) -> int:
        return self.db.execute(
            "SELECT COUNT(*) FROM matches WHERE tournament = ?", [tournament]
        ).fetchone()[0]

    def missing_indices(self, tournament: str, total: int, chunk: int = 65536) -> Iterator[int]:
        """The indices in ``range(total)`` with no stored match, in order. Walks the stored
        indices in chunks (never all of them at once); safe to consume while the missing
        ones are being stored."""
        nxt = 0
        while nxt < total:
            rows = self.db.execute(
                "SELECT idx FROM matches WHERE tournament = ? AND idx >= ? ORDER BY idx LIMIT ?",
                [tournament, nxt, chunk],
            ).fetchall()
            for (idx,) in rows:
                yield from range(nxt, min(idx, total))
                nxt = max(nxt, idx + 1)
            if len(rows) < chunk:
                break
        yield from range(nxt, total)

    def add_match(self, row: MatchRow) -> None:
        """Commit one finished match in its own transaction. A match already stored is kept."""
        self.add_matches([row])

    def add_matches(self, rows: list[MatchRow]) -> None:
        """Commit finished matches in one transaction. Matches already stored are kept. The
        records are stored compressed (``codec``); every reader gets the JSON text back."""
        self._writable()
        stamp = _now()
        values = []
        for r in rows:
            v = _values(r, stamp)
            enc = self._encoder(r.game)
            try:
                blob = enc.encode(r.record)
            except RecordTooLarge as exc:
                raise RecordTooLarge(
                    f"match {r.id} of tournament {r.tournament!r} is not stored: {exc}; lower "
                    f"the option that lets its matches run so long (a turn or round limit)"
                ) from None
            values.append(v[:_RECORD_AT] + (blob, enc.number) + v[_RECORD_AT + 1 :])
        with self.db.conn:
            for name in {r.tournament for r in rows}:  # never a match without its tournament
                if not self.db.execute(
                    "SELECT 1 FROM tournaments WHERE name = ?", [name]
                ).fetchone():
                    raise StorageError(
                        f"tournament {name!r} is no longer in {self.path} (deleted while it "
                        f"ran?): its matches are not stored; run it again to start it anew"
                    )
            self.db.conn.executemany(_INSERT_MATCH, values)
        for r in rows:
            if self._encoders[r.game].number == codec.NO_DICT:
                self._untrained[r.game] = self._untrained.get(r.game, 0) + 1
        for game, count in list(self._untrained.items()):
            if count >= codec.TRAIN_AT:
                self._train(game)

    # -- record encoding ----------------------------------------------------------------------
    def _codec(self, number: int) -> codec.Codec:
        c = self._codecs.get(number)
        if c is None:
            try:
                data = _dictionary_data(self.db, number)
            except TypeError:  # no such row: fetchone() gave None
                raise StorageError(
                    f"{self.path}: a record needs dictionary {number}, which "
                    f"the database does not have (damaged?)"
                ) from None
            c = self._codecs[number] = codec.Codec(number, data)
        return c

    def _encoder(self, game: str) -> codec.Codec:
        c = self._encoders.get(game)
        if c is None:
            c = self._encoders[game] = self._codec(_dictionary_for(self.db, game))
            if c.number == codec.NO_DICT:
                self._untrained[game] = self.db.execute(
                    "SELECT COUNT(*) FROM matches WHERE game = ? AND codec = 0", [game]
                ).fetchone()[0]
        return c

    def _train(self, game: str) -> None:
        """Train ``game``'s dictionary from its first records and re-encode the records stored
        without one (once per game and database)."""
        with self.db.conn:
            _encode_plain_rows(self.db, game)
        self._encoders.pop(game, None)
        if self._encoder(game).number == codec.NO_DICT:
            self._untrained[game] = -(1 << 62)  # zstd could not train: not again this session
        else:
            self._untrained.pop(game, None)

    def _decode(self, text: str | None, blob: bytes | None, number: int | None) -> str | None:
        if number is None:
            return text
        try:
            return self._codec(number).decode(blob)  # type: ignore[arg-type]  # None: caught
        except Exception as exc:
            if isinstance(exc, StorageError) and not isinstance(exc, RecordTooLarge):
                raise
            raise StorageError(
                f"{self.path}: a stored record cannot be decoded ({exc}): the database is damaged"
            ) from None

    # -- reading (``reading.Reading``) --------------------------------------------------------
    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Every read inside sees one state of the file (one read transaction; see
        ``ResultStore.snapshot``). Nested: the outer one holds."""
        if self.db.conn.in_transaction:
            yield
            return
        self.db.execute("BEGIN")
        try:
            yield
        finally:
            if self.db.conn.in_transaction:
                self.db.execute("COMMIT")  # a read transaction: nothing to write

    def results(
        self, tournament: str | None = None, game: str | None = None, humans: bool = False
    ) -> Iterator[tuple[list[str], list[int]]]:
        return self.reading.results(tournament, game, humans)

    def indexed_results(
        self, tournament: str, chunk: int = 5000
    ) -> Iterator[tuple[int, list[str], list[int]]]:
        return self.reading.indexed_results(tournament, chunk)

    def rated_rows(
        self, tournament: str | None = None, game: str | None = None
    ) -> Iterator[tuple[str, int, str, str]]:
        return self.reading.rated_rows(tournament, game)

    def match(self, match_id: str) -> dict | None:
        return self.reading.match(match_id)

    def check(self) -> list[str]:
        return self.reading.check()

    def record(self, match_id: str) -> str | None:
        return self.reading.record(match_id)

    def export(self, tournament: str | None = None, chunk: int = 500) -> Iterator[dict]:
        return self.reading.export(tournament, chunk)

    def match_ids(self, tournament: str, limit: int = 5) -> list[str]:
        return self.reading.match_ids(tournament, limit)

    def games(self) -> list[str]:
        return self.reading.games()

    def count_game_matches(self, game: str) -> int:
        return self.reading.count_game_matches(game)

    def ratings_stale(self, scope: str, name: str) -> bool:
        return self.reading.ratings_stale(scope, name)

    def save_ratings(
        self, scope: str, name: str, game: str, rows: Iterable[dict], stamp: int = 0
    ) -> None:
        self.reading.save_ratings(scope, name, game, rows, stamp)

    def ratings(self, scope: str, name: str) -> list[dict]:
        return self.reading.ratings(scope, name)

    def match_summaries(
        self, tournament: str, offset: int = 0, limit: int | None = None
    ) -> list[dict]:
        return self.reading.match_summaries(tournament, offset, limit)

    def match_indexes(self, tournament: str, chunk: int = 5000) -> Iterator[int]:
        return self.reading.match_indexes(tournament, chunk)

    def match_digests(self, tournament: str, chunk: int = 5000) -> Iterator[tuple[int, str | None]]:
        return self.reading.match_digests(tournament, chunk)

    def records(self, tournament: str, only_forfeits: bool = False) -> Iterator[tuple[str, str]]:
        return self.reading.records(tournament, only_forfeits)

    # -- submissions and pins (``submissions.Submissions``) -----------------------------------
    def snapshot_files(self, digest: str) -> dict[str, bytes]:
        return self.submitted.snapshot_files(digest)

    def snapshot_digests(self, prefix: str) -> list[str]:
        return self.submitted.snapshot_digests(prefix)

    def submissions(self, name: str | None = None) -> list[dict]:
        return self.submitted.submissions(name)

    def submission(self, name: str, version: int) -> dict | None:
        return self.submitted.submission(name, version)

    def add_submission(
        self, name: str, digest: str, files: dict[str, bytes], row: dict
    ) -> tuple[int, bool]:
        return self.submitted.add_submission(name, digest, files, row)

    def withdraw(self, name: str, version: int) -> None:
        self.submitted.withdraw(name, version)

    def pins(self, tournament: str) -> list[dict]:
        return self.submitted.pins(tournament)

    def add_pins(
        self, tournament: str, pins: list[dict], snapshots: dict[str, dict[str, bytes]]
    ) -> None:
        self.submitted.add_pins(tournament, pins, snapshots)

    def display_name(self, short: str, digest: str) -> str:
        return self.submitted.display_name(short, digest)

    def newest_digest(self, name: str) -> tuple[int, str] | None:
        return self.submitted.newest_digest(name)

    def submission_of(self, digest: str) -> dict | None:
        return self.submitted.submission_of(digest)

    def pinned(self, display: str) -> list[dict]:
        return self.submitted.pinned(display)
