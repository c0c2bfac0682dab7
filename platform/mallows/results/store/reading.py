"""Reading stored matches back, for ratings, reports, replays and ``mallows db check``: results
in rating order, one match or record (decoded, and checked against its digest), a tournament's
records and match summaries, an export in chunks, the integrity check; and the ratings tables
(``ratings``, ``save_ratings``, ``ratings_stale``).

``Reading`` is an object over the store's one connection: ``Store`` (``core``) makes one with
itself and answers these queries through it. Through ``store`` it uses the connection
(``db``, which a read-only open of an older schema replaces by an in-memory copy), the file's
``path`` and ``disk_version``, the record decoding and the read-only guard.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator

import sqlite_utils

from mallows.botname import is_person
from mallows.errors import DamagedRecord
from mallows.results.integrity import guard, record_digest
from mallows.results.store.schema import StorageError, _now

if TYPE_CHECKING:
    from mallows.results.store.core import Store


@guard(sqlite3.Error)  # as on Store: every SQLite error a DatabaseError naming the file
class Reading:
    """``Store``'s reading queries; of the tables, they write only ``ratings``."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def db(self) -> sqlite_utils.Database:
        return self.store.db

    @property
    def path(self) -> Path:
        return self.store.path

    @property
    def disk_version(self) -> int:
        return self.store.disk_version

    def _decode(self, text: str | None, blob: bytes | None, number: int | None) -> str | None:
        return self.store._decode(text, blob, number)

    def _writable(self) -> None:
        self.store._writable()

    def count_matches(self, tournament: str) -> int:
        return self.store.count_matches(tournament)

    def results(
        self, tournament: str | None = None, game: str | None = None, humans: bool = False
    ) -> Iterator[tuple[list[str], list[int]]]:
        """(players, ranks) in rating order: tournaments by creation, matches by index. A
        game's results (no ``tournament``) leave out matches with a person at a seat (a
        player ``human``: the play page, a human league) unless ``humans``: the bots' game
        leaderboards are of bots."""
        bots_only = tournament is None and not humans
        for _, _, players, ranks in self.rated_rows(tournament, game):
            seats = json.loads(players)
            if bots_only and any(is_person(n) for n in seats):
                continue
            yield seats, json.loads(ranks)

    def rated_rows(
        self, tournament: str | None = None, game: str | None = None
    ) -> Iterator[tuple[str, int, str, str]]:
        """(tournament, index, players JSON, ranks JSON) of every stored match in rating
        order (``results``'s, people's matches included), undecoded: what a report's board
        cache hashes to know its tables still hold, decoding only what it rates."""
        names = [
            r[0]
            for r in self.db.execute(
                "SELECT name FROM tournaments"
                + (" WHERE name = ?" if tournament is not None else "")
                + " ORDER BY rowid",
                [tournament] if tournament is not None else [],
            ).fetchall()
        ]
        for name in names:
            where, args = "tournament = ?", [name]
            if game is not None:
                where, args = where + " AND game = ?", [name, game]
            for idx, players, ranks in self.by_index("players, ranks", where, args):
                yield name, idx, players, ranks

    def by_index(self, columns: str, where: str, args: list, chunk: int = 5000) -> Iterator[tuple]:
        """``(idx, *columns)`` of the matches ``where`` holds for, by index, read in chunks:
        each chunk's statement is finished before its first row is yielded. A statement left
        open across a ``yield`` holds its read transaction, so a caller that keeps the
        generator (a page served half-way, a loop that breaks) would pin this connection to
        that WAL snapshot for ever: every later read of it blind to what writers stored."""
        after = -1
        while True:
            rows = self.db.execute(
                f"SELECT idx, {columns} FROM matches WHERE {where} AND idx > ? "
                "ORDER BY idx LIMIT ?",
                [*args, after, chunk],
            ).fetchall()
            yield from rows
            if len(rows) < chunk:
                return
            after = rows[-1][0]

    def indexed_results(
        self, tournament: str, chunk: int = 5000
    ) -> Iterator[tuple[int, list[str], list[int]]]:
        """(index, players, ranks) of every stored match of ``tournament``, by index; read in
        chunks, so no read transaction stays open while a big tournament is walked."""
        for idx, players, ranks in self.by_index(
            "players, ranks", "tournament = ?", [tournament], chunk
        ):
            yield idx, json.loads(players), json.loads(ranks)

    def match(self, match_id: str) -> dict | None:
        """One stored match as a dict of its columns, ``record`` being the record's JSON text
        (decoded: the compressed form never leaves the store), checked against its digest:
        a damaged one is a ``DamagedRecord`` (carrying the row as stored)."""
        rows = list(self.db.query("SELECT * FROM matches WHERE id = ?", [match_id]))
        return self._checked_row(rows[0]) if rows else None

    def _checked_row(self, stored: dict) -> dict:
        """``stored`` (a row of ``matches``) with its record decoded and checked against its
        digest; a ``DamagedRecord`` naming the match when it does not decode or match."""
        mid = stored["id"]
        try:
            row = self._plain_row(dict(stored))
        except StorageError as exc:  # the stored bytes do not even decode
            raise DamagedRecord(
                f"match {mid} in {self.path} is damaged ({exc}): restore "
                f"the file from a copy (`mallows db check --db {self.path}` "
                f"lists every damaged match)",
                dict(stored, record=None),
            ) from None
        if row.get("digest") is not None and row["digest"] != record_digest(
            row["record"], row["players"], row["ranks"]
        ):
            raise DamagedRecord(
                f"match {mid} in {self.path} is damaged (its record does not match its "
                f"digest): restore the file from a copy (`mallows db check --db {self.path}` "
                f"lists every damaged match)",
                row,
            )
        return row

    def check(self) -> list[str]:
        """SQLite's integrity check and every match's digest: what is damaged (empty: none).
        A file of a schema without digests (opened read-only: ``disk_version``) has only the
        first."""
        problems = [
            f"SQLite: {r[0]}" for r in self.db.execute("PRAGMA integrity_check") if r[0] != "ok"
        ]
        if self.disk_version < 3 or "digest" not in self.db["matches"].columns_dict:
            return problems
        last = 0
        while True:  # in chunks: memory stays flat
            rows = self.db.execute(
                "SELECT rowid, id, record, record_z, codec, players, ranks, digest FROM matches "
                "WHERE rowid > ? ORDER BY rowid LIMIT 2000",
                [last],
            ).fetchall()
            if not rows:
                return problems
            for rowid, mid, text, blob, number, players, ranks, digest in rows:
                last = rowid
                try:
                    decoded = self._decode(text, blob, number)
                    # (no record at all: a TypeError, caught as damage)
                    ok = digest == record_digest(decoded, players, ranks)  # type: ignore[arg-type]
                except (StorageError, TypeError, AttributeError):  # undecodable, wrong type
                    ok = False
                if not ok:
                    problems.append(f"match {mid}: record does not match its digest")

    def record(self, match_id: str) -> str | None:
        """The JSON text of one stored match record (None if there is no such match)."""
        row = self.db.execute(
            "SELECT record, record_z, codec FROM matches WHERE id = ?", [match_id]
        ).fetchone()
        return self._decode(*row) if row else None

    def _plain_row(self, row: dict) -> dict:
        row["record"] = self._decode(row["record"], row.pop("record_z"), row.pop("codec"))
        return row

    def export(self, tournament: str | None = None, chunk: int = 500) -> Iterator[dict]:
        """Every stored match (of ``tournament``, or of all, tournaments by creation), in index
        order, as a dict of its columns with ``record`` decoded to JSON text and checked
        against its digest (a damaged one is a ``DamagedRecord``); read in chunks, so memory
        does not grow with the database, and one record costs at most what the codec bounds
        (``codec.MAX_RECORD_BYTES``)."""
        names = (
            [tournament]
            if tournament is not None
            else [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY rowid")]
        )
        for name in names:
            after = -1
            while True:
                rows = list(
                    self.db.query(
                        "SELECT * FROM matches WHERE tournament = ? AND idx > ? ORDER BY idx "
                        "LIMIT ?",
                        [name, after, chunk],
                    )
                )
                for row in rows:
                    after = row["idx"]
                    yield self._checked_row(row)
                if len(rows) < chunk:
                    break

    def match_ids(self, tournament: str, limit: int = 5) -> list[str]:
        return [
            r[0]
            for r in self.db.execute(
                "SELECT id FROM matches WHERE tournament = ? ORDER BY idx LIMIT ?",
                [tournament, limit],
            )
        ]

    def games(self) -> list[str]:
        return [
            r[0] for r in self.db.execute("SELECT DISTINCT game FROM tournaments ORDER BY game")
        ]

    # -- ratings ------------------------------------------------------------------------------
    def count_game_matches(self, game: str) -> int:
        return self.db.execute("SELECT COUNT(*) FROM matches WHERE game = ?", [game]).fetchone()[0]

    def ratings_stale(self, scope: str, name: str) -> bool:
        """True when the stored table was computed over a different number of matches."""
        row = self.db.execute(
            "SELECT value FROM meta WHERE key = ?", [f"ratings:{scope}:{name}"]
        ).fetchone()
        now = self.count_matches(name) if scope == "tournament" else self.count_game_matches(name)
        return row is None or int(row[0]) != now

    def save_ratings(
        self, scope: str, name: str, game: str, rows: Iterable[dict], stamp: int = 0
    ) -> None:
        """Replace one leaderboard; ``stamp`` is the number of matches it was computed over."""
        self._writable()
        with self.db.conn:
            self.db["meta"].upsert(
                {"key": f"ratings:{scope}:{name}", "value": str(stamp)}, pk="key"
            )
            self.db.execute("DELETE FROM ratings WHERE scope = ? AND name = ?", [scope, name])
            updated = _now()
            self.db["ratings"].insert_all(
                (
                    {**row, "scope": scope, "name": name, "game": game, "updated": updated}
                    for row in rows
                ),
                pk=("scope", "name", "bot"),
            )

    def ratings(self, scope: str, name: str) -> list[dict]:
        return list(
            self.db.query(
                "SELECT * FROM ratings WHERE scope = ? AND name = ? ORDER BY rank", [scope, name]
            )
        )

    # -- reading for reports (no writes) ------------------------------------------------------
    def match_summaries(
        self, tournament: str, offset: int = 0, limit: int | None = None
    ) -> list[dict]:
        """Every stored match of ``tournament`` in schedule order (or ``limit`` of them from
        the ``offset``-th), without its record: id, idx, players and ranks (lists), forfeits
        (a count), seconds."""
        out = []
        # the first index by an offset over the (tournament, idx) index alone: the rows
        # skipped are never read (a tournament's last list page costs what its first does)
        for mid, idx, players, ranks, forfeits, seconds in self.db.execute(
            "SELECT id, idx, players, ranks, forfeits, seconds FROM matches "
            "WHERE tournament = ? AND idx >= (SELECT idx FROM matches WHERE tournament = ? "
            "ORDER BY idx LIMIT 1 OFFSET ?) ORDER BY idx LIMIT ?",
            [tournament, tournament, offset, -1 if limit is None else limit],
        ):
            out.append(
                {
                    "id": mid,
                    "idx": idx,
                    "players": json.loads(players),
                    "ranks": json.loads(ranks),
                    "forfeits": forfeits,
                    "seconds": seconds,
                }
            )
        return out

    def match_digests(self, tournament: str, chunk: int = 5000) -> Iterator[tuple[int, str | None]]:
        """(index, stored digest) of every stored match of ``tournament``, by index, without
        reading a record (None: a match stored before digests); read in chunks."""
        column = "digest" if "digest" in self.db["matches"].columns_dict else "NULL"
        yield from self.by_index(column, "tournament = ?", [tournament], chunk)

    def match_indexes(self, tournament: str, chunk: int = 5000) -> Iterator[int]:
        """The index of every stored match of ``tournament``, in order; read in chunks (by
        index, not by offset), so neither memory nor a read transaction grows with it."""
        after = -1
        while True:
            rows = self.db.execute(
                "SELECT idx FROM matches WHERE tournament = ? AND idx > ? ORDER BY idx LIMIT ?",
                [tournament, after, chunk],
            ).fetchall()
            for (idx,) in rows:
                yield idx
            if len(rows) < chunk:
                return
            after = rows[-1][0]

    def records(self, tournament: str, only_forfeits: bool = False) -> Iterator[tuple[str, str]]:
        """(match id, record JSON text) of ``tournament``'s matches in schedule order
        (``only_forfeits``: those with a forfeit)."""
        where = "tournament = ?" + (" AND forfeits > 0" if only_forfeits else "")
        for _, mid, text, blob, number in self.by_index(
            "id, record, record_z, codec", where, [tournament], 500
        ):
            yield mid, self._decode(text, blob, number)  # type: ignore[misc]  # a row has one
