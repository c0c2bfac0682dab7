"""Bot submissions and pins (schema 4; used by ``mallows.agents.submissions`` and
``mallows.tournaments.pinning``): immutable code snapshots (``snapshot_files``), the numbered
versions of each name (``submissions``), the code each tournament runs (``pins``), and the name
shown for each code (``bot_names``).

``Submissions`` is an object over the store's one connection: ``Store`` (``core``) makes one
with itself and answers these queries through it. Through ``store`` it uses the connection
(``db``) and the read-only guard.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import sqlite_utils

from mallows.results.integrity import guard
from mallows.results.store.schema import _now

if TYPE_CHECKING:
    from mallows.results.store.core import Store


@guard(sqlite3.Error)  # as on Store: every SQLite error a DatabaseError naming the file
class Submissions:
    """``Store``'s submissions and pins."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def db(self) -> sqlite_utils.Database:
        return self.store.db

    @property
    def path(self) -> Path:
        return self.store.path

    def _writable(self) -> None:
        self.store._writable()

    # -- submissions and pins (mallows.agents.submissions, mallows.tournaments.pinning) -------
    def _put_snapshot(self, digest: str, files: dict[str, bytes]) -> None:
        self.db.conn.executemany(
            "INSERT OR IGNORE INTO snapshot_files (digest, path, data) VALUES (?, ?, ?)",
            [(digest, path, data) for path, data in sorted(files.items())],
        )

    def snapshot_files(self, digest: str) -> dict[str, bytes]:
        return {
            path: bytes(data)
            for path, data in self.db.execute(
                "SELECT path, data FROM snapshot_files WHERE digest = ? ORDER BY path", [digest]
            )
        }

    def snapshot_digests(self, prefix: str) -> list[str]:
        """The stored snapshots whose digest starts with ``prefix`` (hex)."""
        return [
            r[0]
            for r in self.db.execute(
                "SELECT DISTINCT digest FROM snapshot_files WHERE digest >= ? AND digest < ? "
                "ORDER BY digest",
                [prefix, prefix + "g"],
            )
        ]

    def submissions(self, name: str | None = None) -> list[dict]:
        """Every submitted version (of ``name``), oldest first."""
        where, args = ("WHERE name = ?", [name]) if name is not None else ("", [])
        return list(
            self.db.query(f"SELECT * FROM submissions {where} ORDER BY name, version", args)
        )

    def submission(self, name: str, version: int) -> dict | None:
        rows = list(
            self.db.query(
                "SELECT * FROM submissions WHERE name = ? AND version = ?", [name, version]
            )
        )
        return rows[0] if rows else None

    def add_submission(
        self, name: str, digest: str, files: dict[str, bytes], row: dict
    ) -> tuple[int, bool]:
        """Store a version of ``name`` with these files, in one transaction: ``(version,
        True)`` for a new one, ``(version, False)`` when the newest version (not withdrawn)
        already has this digest (nothing is written)."""
        self._writable()
        with self.db.conn:
            self.db.execute("BEGIN IMMEDIATE")  # two submitters cannot take one number
            last = self.db.execute(
                "SELECT version, digest, withdrawn FROM submissions WHERE name = ? ORDER BY "
                "version DESC LIMIT 1",
                [name],
            ).fetchone()
            if last is not None and last[1] == digest and last[2] is None:
                return int(last[0]), False
            version = (int(last[0]) if last else 0) + 1
            self._put_snapshot(digest, files)
            self.db["submissions"].insert(
                dict(row, name=name, version=version, digest=digest, created=_now(), withdrawn=None)
            )
        return version, True

    def withdraw(self, name: str, version: int) -> None:
        self._writable()
        with self.db.conn:
            self.db.execute(
                "UPDATE submissions SET withdrawn = ? WHERE name = ? AND "
                "version = ? AND withdrawn IS NULL",
                [_now(), name, version],
            )

    def pins(self, tournament: str) -> list[dict]:
        return list(
            self.db.query("SELECT * FROM pins WHERE tournament = ? ORDER BY rowid", [tournament])
        )

    def add_pins(
        self, tournament: str, pins: list[dict], snapshots: dict[str, dict[str, bytes]]
    ) -> None:
        """Pin a tournament's bots (and store the snapshots they run) in one transaction."""
        self._writable()
        with self.db.conn:
            for digest, files in snapshots.items():
                self._put_snapshot(digest, files)
            self.db["pins"].insert_all(
                (dict(p, tournament=tournament) for p in pins),
                pk=("tournament", "bot"),
                replace=True,
            )

    def display_name(self, short: str, digest: str) -> str:
        """The name shown for the code ``digest`` called ``short``: ``short`` for the first
        code of that name in this database, ``short~2``, ``short~3``... for later ones."""
        self._writable()
        with self.db.conn:
            row = self.db.execute(
                "SELECT display FROM bot_names WHERE short = ? AND digest = ?", [short, digest]
            ).fetchone()
            if row is not None:
                return row[0]
            n = self.db.execute(
                "SELECT COUNT(*) FROM bot_names WHERE short = ?", [short]
            ).fetchone()[0]
            display = short if n == 0 else f"{short}~{n + 1}"
            self.db["bot_names"].insert({"short": short, "digest": digest, "display": display})
        return display

    def newest_digest(self, name: str) -> tuple[int, str] | None:
        row = self.db.execute(
            "SELECT version, digest FROM submissions WHERE name = ? AND "
            "withdrawn IS NULL ORDER BY version DESC LIMIT 1",
            [name],
        ).fetchone()
        return (int(row[0]), row[1]) if row else None

    def submission_of(self, digest: str) -> dict | None:
        """The first submitted version (not withdrawn) with this code."""
        rows = list(
            self.db.query(
                "SELECT * FROM submissions WHERE digest = ? AND withdrawn IS "
                "NULL ORDER BY created, name LIMIT 1",
                [digest],
            )
        )
        return rows[0] if rows else None

    def pinned(self, display: str) -> list[dict]:
        """The pins shown as ``display`` (parameters included), newest first."""
        return list(
            self.db.query("SELECT * FROM pins WHERE display = ? ORDER BY rowid DESC", [display])
        )
