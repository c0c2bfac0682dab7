"""Storage: the only module that talks to SQLite (through sqlite-utils).

Tables:

- ``meta``: ``schema_version`` and other bookkeeping (key, value).
- ``bots``: every bot name a tournament used, with where it was loaded from.
- ``tournaments``: one row per name, with the canonical definition (JSON) and its digest; a file
  changed under an existing name is refused, naming what changed.
- ``matches``: one row per finished match, keyed by ``id`` = ``"<tournament>/<index>"`` (unique
  on (tournament, idx)), with its record (JSON) and, for ratings, its players and ranks.
- ``ratings``: per tournament (``scope = 'tournament'``) and per game (``scope = 'game'``):
  rank, mu, sigma, mu - 3 sigma, games, wins, mean place.

``Store(path, readonly=True)`` opens the file with SQLite's ``mode=ro``: every query works, every
write is refused (``StorageError``), and nothing is ever written, not even a migration (an older
schema is migrated in a private in-memory copy). Read-only commands open the database so.

The store's written interface is ``mallows.results.interface.ResultStore``.

The database runs in WAL mode, so another process can read while a tournament writes. Every
match is committed in its own transaction as it arrives, so a run killed at any moment loses at
most the matches still in flight; a rerun plays only the missing indices. The schema version is
recorded in ``meta``; ``MIGRATIONS[i]`` takes a database from version i to i + 1 and opening a
database runs the missing ones in order.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator

import sqlite_utils

from mallows.errors import MallowsError
from mallows.results.interface import MatchRow

DEFAULT_DB = Path("results") / "mallows.db"


class StorageError(MallowsError):
    """A database problem the user can act on (a newer schema, a changed tournament file)."""


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())


def _v1(db: sqlite_utils.Database) -> None:
    db["meta"].create({"key": str, "value": str}, pk="key", if_not_exists=True)
    db["bots"].create({"name": str, "source": str, "first_seen": str}, pk="name",
                      if_not_exists=True)
    db["tournaments"].create(
        {"name": str, "game": str, "definition": str, "digest": str, "file": str,
         "total": int, "created": str, "finished": str}, pk="name", if_not_exists=True)
    db["matches"].create(
        {"id": str, "tournament": str, "idx": int, "game": str, "tbl": int, "rotation": int,
         "deal": int, "seed": int, "players": str, "ranks": str, "forfeits": int,
         "record": str, "seconds": float, "finished_at": str},
        pk="id", foreign_keys=[("tournament", "tournaments", "name")], if_not_exists=True)
    db["matches"].create_index(["tournament", "idx"], unique=True, if_not_exists=True)
    db["matches"].create_index(["game"], if_not_exists=True)
    db["ratings"].create(
        {"scope": str, "name": str, "game": str, "rank": int, "bot": str, "mu": float,
         "sigma": float, "conservative": float, "games": int, "wins": int,
         "mean_place": float, "updated": str},
        pk=("scope", "name", "bot"), if_not_exists=True)


def _connect_readonly(path: Path) -> sqlite3.Connection:
    """A connection that cannot write: SQLite's ``mode=ro`` URI."""
    if not path.exists():
        raise StorageError(f"no database at {path}: run a tournament first or pass --db PATH")
    return sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True,
                           check_same_thread=False)


MIGRATIONS: list[Callable[[sqlite_utils.Database], None]] = [_v1]
SCHEMA_VERSION = len(MIGRATIONS)


_MATCH_COLUMNS = ("id", "tournament", "idx", "game", "tbl", "rotation", "deal", "seed",
                  "players", "ranks", "forfeits", "record", "seconds", "finished_at")
# a prepared statement: sqlite-utils' insert() introspects the table on every call
_INSERT_MATCH = (f"INSERT OR IGNORE INTO matches ({', '.join(_MATCH_COLUMNS)}) "
                 f"VALUES ({', '.join('?' * len(_MATCH_COLUMNS))})")


def _values(row: MatchRow, stamp: str) -> tuple:
    """A ``MatchRow`` in ``_MATCH_COLUMNS`` order."""
    return (row.id, row.tournament, row.idx, row.game, row.table, row.rotation, row.deal,
            row.seed, json.dumps(row.players), json.dumps(row.ranks), int(row.forfeits),
            row.record, float(row.seconds), stamp)


class Store:
    """The SQLite ``ResultStore``. ``readonly``: open with ``mode=ro`` and never write."""

    def __init__(self, path: str | Path = DEFAULT_DB, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        if self.path.exists() and self.path.is_dir():
            raise StorageError(f"--db {str(self.path)!r} is a folder: give a file path, "
                               f"e.g. results/mallows.db")
        if readonly:
            self.db = sqlite_utils.Database(_connect_readonly(self.path))
            self.db.execute("PRAGMA busy_timeout = 30000")
            if self.schema_version() < SCHEMA_VERSION:
                self._migrate_in_memory()
            else:
                self._migrate()  # refuses a newer schema; nothing to do otherwise
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite_utils.Database(self.path)
        self.db.execute("PRAGMA busy_timeout = 30000")
        self.db.enable_wal()
        self.db.execute("PRAGMA synchronous = NORMAL")  # with WAL: durable against kill -9
        self._migrate()

    def _migrate_in_memory(self) -> None:
        """An older schema opened read-only: migrate a private in-memory copy."""
        memory = sqlite3.connect(":memory:")
        self.db.conn.backup(memory)
        self.db.conn.close()
        self.db = sqlite_utils.Database(memory)
        self._migrate()

    def _writable(self) -> None:
        if self.readonly:
            raise StorageError(f"{self.path} is open read-only: this command does not write")

    # -- schema -------------------------------------------------------------------------------
    def schema_version(self) -> int:
        if "meta" not in self.db.table_names():
            return 0
        row = self.db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self) -> None:
        version = self.schema_version()
        if version > SCHEMA_VERSION:
            raise StorageError(
                f"{self.path} has schema version {version}, newer than this mallows "
                f"understands ({SCHEMA_VERSION}): upgrade mallows or use another --db")
        while version < SCHEMA_VERSION:
            with self.db.conn:
                MIGRATIONS[version](self.db)
                version += 1
                self.db["meta"].upsert({"key": "schema_version", "value": str(version)},
                                       pk="key")

    def close(self) -> None:
        self.db.conn.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- tournaments --------------------------------------------------------------------------
    def add_tournament(self, name: str, game: str, definition: str, digest: str, file: str,
                       total: int, bot_sources: dict[str, str]) -> None:
        """Store a new tournament: its canonical definition (JSON text) and its digest, the
        file it came from, its number of matches, and where each of its bots was found."""
        self._writable()
        with self.db.conn:
            self.db["tournaments"].insert(
                {"name": name, "game": game, "definition": definition, "digest": digest,
                 "file": file, "total": total, "created": _now(), "finished": None},
                pk="name")
            for bot, source in bot_sources.items():
                self.db["bots"].insert({"name": bot, "source": source, "first_seen": _now()},
                                       pk="name", ignore=True)

    def tournament(self, name: str) -> dict | None:
        rows = list(self.db.query("SELECT * FROM tournaments WHERE name = ?", [name]))
        return rows[0] if rows else None

    def bot_source(self, name: str) -> str | None:
        row = self.db.execute("SELECT source FROM bots WHERE name = ?", [name]).fetchone()
        return row[0] if row else None

    def tournaments(self) -> list[dict]:
        return list(self.db.query(
            "SELECT t.name, t.game, t.total, t.created, t.finished, t.file, "
            "(SELECT COUNT(*) FROM matches m WHERE m.tournament = t.name) AS done "
            "FROM tournaments t ORDER BY t.rowid"))

    def mark_finished(self, name: str) -> None:
        self._writable()
        with self.db.conn:
            self.db.execute("UPDATE tournaments SET finished = ? WHERE name = ?", [_now(), name])

    # -- matches ------------------------------------------------------------------------------
    def done_indices(self, tournament: str) -> set[int]:
        return {r[0] for r in self.db.execute(
            "SELECT idx FROM matches WHERE tournament = ?", [tournament]).fetchall()}

    def count_matches(self, tournament: str) -> int:
        return self.db.execute("SELECT COUNT(*) FROM matches WHERE tournament = ?",
                               [tournament]).fetchone()[0]

    def add_match(self, row: MatchRow) -> None:
        """Commit one finished match in its own transaction. A match already stored is kept."""
        self.add_matches([row])

    def add_matches(self, rows: list[MatchRow]) -> None:
        """Commit finished matches in one transaction. Matches already stored are kept."""
        self._writable()
        stamp = _now()
        with self.db.conn:
            self.db.conn.executemany(_INSERT_MATCH, [_values(r, stamp) for r in rows])

    def results(self, tournament: str | None = None, game: str | None = None
                ) -> Iterator[tuple[list[str], list[int]]]:
        """(players, ranks) in rating order: tournaments by creation, matches by index."""
        where, args = [], []
        if tournament is not None:
            where.append("m.tournament = ?")
            args.append(tournament)
        if game is not None:
            where.append("m.game = ?")
            args.append(game)
        sql = ("SELECT m.players, m.ranks FROM matches m JOIN tournaments t "
               "ON t.name = m.tournament" + (" WHERE " + " AND ".join(where) if where else "")
               + " ORDER BY t.rowid, m.idx")
        for players, ranks in self.db.execute(sql, args):
            yield json.loads(players), json.loads(ranks)

    def indexed_results(self, tournament: str) -> Iterator[tuple[int, list[str], list[int]]]:
        for idx, players, ranks in self.db.execute(
                "SELECT idx, players, ranks FROM matches WHERE tournament = ? ORDER BY idx",
                [tournament]):
            yield idx, json.loads(players), json.loads(ranks)

    def match(self, match_id: str) -> dict | None:
        rows = list(self.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
        return rows[0] if rows else None

    def match_ids(self, tournament: str, limit: int = 5) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT id FROM matches WHERE tournament = ? ORDER BY idx LIMIT ?",
            [tournament, limit])]

    def games(self) -> list[str]:
        return [r[0] for r in self.db.execute(
            "SELECT DISTINCT game FROM tournaments ORDER BY game")]

    # -- ratings ------------------------------------------------------------------------------
    def count_game_matches(self, game: str) -> int:
        return self.db.execute("SELECT COUNT(*) FROM matches WHERE game = ?",
                               [game]).fetchone()[0]

    def ratings_stale(self, scope: str, name: str) -> bool:
        """True when the stored table was computed over a different number of matches."""
        row = self.db.execute("SELECT value FROM meta WHERE key = ?",
                              [f"ratings:{scope}:{name}"]).fetchone()
        now = self.count_matches(name) if scope == "tournament" else self.count_game_matches(name)
        return row is None or int(row[0]) != now

    def save_ratings(self, scope: str, name: str, game: str, rows: Iterable[dict],
                     stamp: int = 0) -> None:
        """Replace one leaderboard; ``stamp`` is the number of matches it was computed over."""
        self._writable()
        with self.db.conn:
            self.db["meta"].upsert({"key": f"ratings:{scope}:{name}", "value": str(stamp)},
                                   pk="key")
            self.db.execute("DELETE FROM ratings WHERE scope = ? AND name = ?", [scope, name])
            stamp = _now()
            self.db["ratings"].insert_all(
                ({**row, "scope": scope, "name": name, "game": game, "updated": stamp}
                 for row in rows), pk=("scope", "name", "bot"))

    def ratings(self, scope: str, name: str) -> list[dict]:
        return list(self.db.query(
            "SELECT * FROM ratings WHERE scope = ? AND name = ? ORDER BY rank", [scope, name]))

    # -- reading for reports (no writes) ------------------------------------------------------
    def match_summaries(self, tournament: str) -> list[dict]:
        """Every stored match of ``tournament`` in schedule order, without its record: id,
        idx, players and ranks (lists), forfeits (a count), seconds."""
        out = []
        for mid, idx, players, ranks, forfeits, seconds in self.db.execute(
                "SELECT id, idx, players, ranks, forfeits, seconds FROM matches "
                "WHERE tournament = ? ORDER BY idx", [tournament]):
            out.append({"id": mid, "idx": idx, "players": json.loads(players),
                        "ranks": json.loads(ranks), "forfeits": forfeits, "seconds": seconds})
        return out

    def records(self, tournament: str, only_forfeits: bool = False) -> Iterator[tuple[str, str]]:
        """(match id, record JSON text) of ``tournament``'s matches in schedule order
        (``only_forfeits``: those with a forfeit)."""
        sql = ("SELECT id, record FROM matches WHERE tournament = ?"
               + (" AND forfeits > 0" if only_forfeits else "") + " ORDER BY idx")
        yield from self.db.execute(sql, [tournament])
