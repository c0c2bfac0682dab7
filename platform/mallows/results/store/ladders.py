"""Standing ladders' tables (schema 5; used by ``mallows.tournaments.ladder``): the planned epochs,
every planned table with why it was scheduled, and the ladder's events (joins, withdrawals, stop,
finals), in the order they were recorded.

``Ladders`` is an object over the store's one connection (``Store.ladders``). A ladder itself is
a row of ``tournaments`` (its definition's ``kind`` is ``"ladder"``) and its matches are rows of
``matches`` like any tournament's; ``total`` is the number of matches planned so far.
"""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING, Iterable

import sqlite_utils

from mallows.results.integrity import guard
from mallows.results.store.schema import _now

if TYPE_CHECKING:
    from mallows.results.store.core import Store


@guard(sqlite3.Error)  # as on Store: every SQLite error a DatabaseError naming the file
class Ladders:
    """``Store``'s ladder epochs, tables and events."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def db(self) -> sqlite_utils.Database:
        return self.store.db

    def epochs(self, ladder: str) -> list[dict]:
        """Every planned epoch in order; ``field`` and ``newcomers`` decoded."""
        rows = list(
            self.db.query("SELECT * FROM ladder_epochs WHERE ladder = ? ORDER BY epoch", [ladder])
        )
        for r in rows:
            r["field"], r["newcomers"] = json.loads(r["field"]), json.loads(r["newcomers"])
        return rows

    def tables(self, ladder: str, epoch: int | None = None) -> list[dict]:
        """The planned tables (of one epoch, or all) in schedule order; ``bots`` decoded."""
        sql = "SELECT * FROM ladder_tables WHERE ladder = ?"
        args: list[object] = [ladder]
        if epoch is not None:
            sql, args = sql + " AND epoch = ?", args + [epoch]
        rows = list(self.db.query(sql + " ORDER BY first", args))
        for r in rows:
            r["bots"] = json.loads(r["bots"])
        return rows

    def add_epoch(self, ladder: str, epoch: dict, tables: Iterable[dict]) -> None:
        """Record a planned epoch and its tables in one transaction, and the ladder's new
        total (its last planned index + 1). An epoch already recorded is kept as it was (two
        runs that planned the same epoch from the same state planned the same tables)."""
        self.store._writable()
        rows = list(tables)
        with self.db.conn:
            if self.db.execute(
                "SELECT 1 FROM ladder_epochs WHERE ladder = ? AND epoch = ?",
                [ladder, epoch["epoch"]],
            ).fetchone():
                return
            self.db.execute(
                "INSERT INTO ladder_epochs (ladder, epoch, first, count, mode, field, newcomers, "
                "events_upto, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    ladder,
                    epoch["epoch"],
                    epoch["first"],
                    epoch["count"],
                    epoch["mode"],
                    json.dumps(epoch["field"]),
                    json.dumps(epoch["newcomers"]),
                    epoch["events_upto"],
                    _now(),
                ],
            )
            self.db.conn.executemany(
                "INSERT INTO ladder_tables (ladder, tbl, epoch, first, count, bots, reason) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        ladder,
                        t["tbl"],
                        epoch["epoch"],
                        t["first"],
                        t["count"],
                        json.dumps(t["bots"]),
                        t["reason"],
                    )
                    for t in rows
                ],
            )
            self.db.execute(
                "UPDATE tournaments SET total = ?, finished = NULL WHERE name = ?",
                [epoch["first"] + epoch["count"], ladder],
            )

    def add_event(self, ladder: str, kind: str, bot: str | None = None, note: str = "") -> int:
        """Record an event; returns its sequence number (events apply in this order)."""
        self.store._writable()
        with self.db.conn:
            cursor = self.db.execute(
                "INSERT INTO ladder_events (ladder, kind, bot, note, created) VALUES "
                "(?, ?, ?, ?, ?)",
                [ladder, kind, bot, note, _now()],
            )
        return int(cursor.lastrowid or 0)

    def events(self, ladder: str, after: int = 0) -> list[dict]:
        return list(
            self.db.query(
                "SELECT * FROM ladder_events WHERE ladder = ? AND seq > ? ORDER BY seq",
                [ladder, after],
            )
        )

    def recent(self, ladder: str, limit: int = 10) -> list[dict]:
        """The last ``limit`` matches stored (by index), with their table's reason."""
        rows = list(
            self.db.query(
                "SELECT m.idx, m.players, m.ranks, m.forfeits, m.finished_at, t.reason, t.tbl "
                "FROM matches m LEFT JOIN ladder_tables t ON t.ladder = m.tournament "
                "AND m.idx >= t.first AND m.idx < t.first + t.count WHERE m.tournament = ? "
                "ORDER BY m.idx DESC LIMIT ?",
                [ladder, limit],
            )
        )
        for r in rows:
            r["players"], r["ranks"] = json.loads(r["players"]), json.loads(r["ranks"])
        return rows

    def reasons(self, ladder: str) -> dict[str, int]:
        """Matches planned for each reason (the reason's first word: base, newcomer, ...)."""
        out: dict[str, int] = {}
        for reason, count in self.db.execute(
            "SELECT reason, SUM(count) FROM ladder_tables WHERE ladder = ? GROUP BY reason",
            [ladder],
        ):
            key = str(reason).split(":", 1)[0]
            out[key] = out.get(key, 0) + int(count)
        return out

    def forget(self, ladder: str) -> None:
        """Remove a ladder's epochs, tables and events (with the ladder itself)."""
        self.store._writable()
        with self.db.conn:
            for table in ("ladder_epochs", "ladder_tables", "ladder_events"):
                self.db.execute(f"DELETE FROM {table} WHERE ladder = ?", [ladder])
