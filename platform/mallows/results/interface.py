"""The written interfaces of the results layer: what the rest of mallows may ask of a store and
of a rating system. Nothing here does anything; ``store.Store`` (SQLite) and
``ratings.TRUESKILL`` and ``history_rating.PLACKETT_LUCE`` implement them, and the store tests (``tests/test_storage.py``) run
against ``ResultStore`` through a factory fixture, so another backend can be slotted in and
checked with the same tests.

Both take and return plain values only (names, JSON text, digests, lists, dicts, numbers):
never a tournament, a game or a bot.
"""

from __future__ import annotations

import builtins

from contextlib import AbstractContextManager

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator, Protocol, Sequence

Result = tuple[Sequence[str], Sequence[int]]  # (bot by seat, 0-based competition ranks)


@dataclass(frozen=True)
class MatchRow:
    """One finished match as a store keeps it: plain values only. ``record`` is the record's
    JSON text; ``players``, ``ranks`` and ``forfeits`` (a count) are read from it by the caller
    so that a store never parses a record to file it."""

    id: str
    tournament: str
    idx: int
    game: str
    table: int
    rotation: int
    deal: int
    seed: int
    players: list
    ranks: list
    forfeits: int
    record: str
    seconds: float = 0.0


class LadderStore(Protocol):
    """A standing ladder's epochs (each with its tables) and its events (joins, withdrawals,
    automatic removals), kept beside the matches: what ``ResultStore.ladders`` answers."""

    def epochs(self, ladder: str) -> list[dict]: ...
    def tables(self, ladder: str, epoch: int | None = None) -> list[dict]: ...
    def add_epoch(self, ladder: str, epoch: dict, tables: Iterable[dict]) -> None: ...
    def add_event(self, ladder: str, kind: str, bot: str | None = None, note: str = "") -> int:
        """The new event's number (events are numbered in order, from 1)."""
        ...

    def events(self, ladder: str, after: int = 0) -> list[dict]:
        """The events numbered above ``after``, in order."""
        ...

    def recent(self, ladder: str, limit: int = 10) -> list[dict]: ...
    def reasons(self, ladder: str) -> dict[str, int]: ...
    def forget(self, ladder: str) -> None: ...


class AccountStore(Protocol):
    """The competition server's accounts (a token's salted hash, never the token) and who owns
    each bot name: what ``ResultStore.accounts`` answers."""

    def add(self, name: str, admin: bool = False) -> str:
        """The new account's token, the only time it exists outside its holder's hands."""
        ...

    def list(self) -> list[dict]: ...
    def revoke(self, name: str) -> None: ...
    def verify(self, token: str) -> dict:
        """The account (id, name, admin) whose token this is, or an ``AccountError``."""
        ...

    def owner(self, bot: str) -> str | None: ...
    def claim(self, bot: str, account: dict) -> None: ...
    def bots(self, account: str) -> builtins.list[str]: ...
    def owners(self) -> dict[str, str]: ...
    def versions(self, account: str) -> builtins.list[dict]: ...


class ResultStore(Protocol):
    """Where tournaments, their finished matches and their leaderboards are kept.

    A store opened ``readonly`` answers every query and refuses every write (a
    ``StorageError``); read-only commands open it that way so that reading never changes a
    database."""

    path: Path
    readonly: bool

    @property
    def ladders(self) -> LadderStore:
        """A standing ladder's epochs, tables and events."""
        ...

    @property
    def accounts(self) -> AccountStore:
        """The server's accounts and bot owners."""
        ...

    def close(self) -> None: ...
    def schema_version(self) -> int: ...

    # tournaments
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
        """A new tournament: canonical definition (JSON text), its digest, the file it came
        from, its number of matches, and where each bot was found."""

    def tournament(self, name: str) -> dict | None:
        """Keys: name, game, definition (JSON text), digest, file, total, created, finished."""

    def tournaments(self) -> list[dict]:
        """In creation order; keys: name, game, total, created, finished, file, done."""

    def mark_finished(self, name: str) -> None: ...
    def update_tournament(
        self,
        name: str,
        *,
        definition: str | None = None,
        total: int | None = None,
        finished: bool | None = None,
    ) -> None:
        """Change a stored definition (JSON text), its number of matches, or whether it is
        finished (a comparison learns its length as it runs)."""

    def chance_key(self, name: str) -> bytes | None:
        """Tournament ``name``'s secret key (``seeding.Chance``), None if it has none."""

    def put_chance_key(self, name: str, key: bytes) -> bytes:
        """Keep ``key`` as ``name``'s secret key unless it has one; return the one kept."""

    def forget_chance_key(self, name: str) -> None: ...
    def remove_tournament(self, name: str) -> None:
        """Forget a tournament with no stored match (a file corrected before any match)."""

    def bot_source(self, name: str) -> str | None:
        """Where bot ``name`` was found when a tournament first used it."""

    # matches
    def add_match(self, row: MatchRow) -> None:
        """Commit one match; a match already stored (same id) is kept, not replaced."""

    def add_matches(self, rows: list[MatchRow]) -> None: ...
    def done_indices(self, tournament: str) -> set[int]: ...
    def missing_indices(self, tournament: str, total: int) -> Iterator[int]:
        """The indices in range(total) not stored, in order, without loading every stored
        one at once (safe to consume while the missing ones are being stored)."""

    def count_matches(self, tournament: str) -> int: ...
    def count_game_matches(self, game: str) -> int: ...
    def results(
        self, tournament: str | None = None, game: str | None = None, humans: bool = False
    ) -> Iterator[Result]:
        """(players, ranks) in rating order: tournaments by creation, matches by index; a
        game's (no ``tournament``) without the matches people played unless ``humans``."""

    def indexed_results(self, tournament: str) -> Iterator[tuple[int, list[str], list[int]]]: ...
    def rated_rows(
        self, tournament: str | None = None, game: str | None = None
    ) -> Iterator[tuple[str, int, str, str]]:
        """(tournament, index, players JSON, ranks JSON) in ``results``'s order, people's
        matches included, undecoded (what a report's board cache hashes)."""

    def match(self, match_id: str) -> dict | None:
        """The stored row: id, tournament, idx, game, players, ranks, forfeits, record (JSON
        text), seed, ...; a damaged record (its digest does not match) is a MallowsError."""

    def record(self, match_id: str) -> str | None:
        """The record's JSON text (records may be stored compressed: read them here, never
        from a column)."""

    def export(self, tournament: str | None = None) -> Iterator[dict]:
        """Every stored match (of ``tournament``, or all), in schedule order, as ``match``
        gives it; read in chunks."""

    def check(self) -> list[str]:
        """What is damaged in the store (empty: nothing), for ``mallows db check``."""

    def snapshot(self) -> AbstractContextManager[None]:
        """A context in which every read sees the store as it was when the first one ran, so
        that several passes over the results (a report's tables) agree while a run writes."""

    def match_ids(self, tournament: str, limit: int = 5) -> list[str]: ...
    def games(self) -> list[str]: ...
    def match_summaries(
        self, tournament: str, offset: int = 0, limit: int | None = None
    ) -> list[dict]:
        """Every stored match of ``tournament`` by index (or ``limit`` of them from the
        ``offset``-th), without its record: id, idx, players and ranks (lists), forfeits (a
        count), seconds."""

    def match_indexes(self, tournament: str, chunk: int = 5000) -> Iterator[int]:
        """Every stored match's index, in order, read in chunks (memory does not grow)."""

    def match_digests(self, tournament: str, chunk: int = 5000) -> Iterator[tuple[int, str | None]]:
        """(index, stored digest) of every stored match, in order, without reading a record
        (None: stored before digests): what a report's replay cache compares."""

    def records(self, tournament: str, only_forfeits: bool = False) -> Iterator[tuple[str, str]]:
        """(match id, record JSON text) by index (``only_forfeits``: matches with a forfeit)."""

    # leaderboards
    def ratings_stale(self, scope: str, name: str) -> bool:
        """True when leaderboard (scope 'tournament' or 'game', name) is missing or was
        computed over another number of matches than are stored now."""

    def save_ratings(
        self, scope: str, name: str, game: str, rows: Iterable[dict], stamp: int = 0
    ) -> None:
        """Replace one leaderboard with ``rows`` (dicts keyed by the ratings table's columns:
        rank, bot, games, wins, mean_place and the rating system's ``stored`` columns);
        ``stamp`` is the number of matches it was computed over."""

    def ratings(self, scope: str, name: str) -> list[dict]:
        """One stored leaderboard by rank: rows as given to ``save_ratings`` plus scope, name,
        game, updated."""

    # submissions and pins (mallows.agents.submissions, mallows.tournaments.pinning)
    def snapshot_files(self, digest: str) -> dict[str, bytes]:
        """A stored snapshot: relative path -> bytes (empty if unknown)."""

    def snapshot_digests(self, prefix: str) -> list[str]: ...
    def submissions(self, name: str | None = None) -> list[dict]:
        """Submitted versions (of ``name``) by name and version: name, version, digest, entry,
        kind, manifest, source, bytes, files, check (JSON text), created, withdrawn."""

    def submission(self, name: str, version: int) -> dict | None: ...
    def submission_of(self, digest: str) -> dict | None:
        """The first version not withdrawn whose snapshot is ``digest``."""

    def newest_digest(self, name: str) -> tuple[int, str] | None: ...
    def add_submission(
        self, name: str, digest: str, files: dict[str, bytes], row: dict
    ) -> tuple[int, bool]:
        """The next version of ``name`` with these files, or the newest one if it has this
        digest already: ``(version, new)``."""

    def withdraw(self, name: str, version: int) -> None: ...
    def pins(self, tournament: str) -> list[dict]:
        """Per bot as written: display (the shown name), digest, snapshot, entry, origin,
        source."""

    def pinned(self, display: str) -> list[dict]: ...
    def add_pins(
        self, tournament: str, pins: list[dict], snapshots: dict[str, dict[str, bytes]]
    ) -> None: ...
    def display_name(self, short: str, digest: str) -> str:
        """The shown name of code ``digest`` called ``short``: ``short``, else ``short~N``."""

    def delete_tournament(self, name: str) -> str | None:
        """Remove a tournament with its matches, pins and leaderboard; its game, or None."""


@dataclass(frozen=True)
class Param:
    """One parameter of a rating system, as a tournament file's ``[ratings]`` table sets it."""

    name: str
    default: float
    low: float  # the allowed range, with ``low_open``/``high_open`` for its ends
    high: float = float("inf")
    low_open: bool = False
    high_open: bool = True
    doc: str = ""
    suggest: bool = False  # a value out of range is told to try the default

    def span(self) -> str:
        """The range in words, for messages: 'above 0', '0 or more', 'above 0 and below 1'."""
        low = f"above {self.low:g}" if self.low_open else f"{self.low:g} or more"
        if self.high == float("inf"):
            return low
        high = f"below {self.high:g}" if self.high_open else f"at most {self.high:g}"
        return f"{low} and {high}"

    def accepts(self, value: float) -> bool:
        above = value > self.low if self.low_open else value >= self.low
        below = value < self.high if self.high_open else value <= self.high
        return above and below


@dataclass(frozen=True)
class Column:
    """One leaderboard column: ``header`` for tables, ``key`` of the stored row, ``digits``
    for tables/markdown (None: shown as is), and ``csv`` header (None: not in csv)."""

    header: str
    key: str
    digits: int | None = None
    csv: str | None = None
    blank_unplayed: bool = False  # shown as '-' for a bot with no match yet
    title: str = ""  # what the column means (the report's header tooltip)
    page: str | None = None  # the report's header (None: ``header``)


def check_params(params: Sequence[Param], table: dict) -> dict[str, float]:
    """A rating system's effective parameters for a ``[ratings]`` table: its defaults, each
    key of ``table`` checked (known, a finite number, in range); ``ValueError`` naming the
    key, the range and the fix for a bad one."""
    out = {p.name: p.default for p in params}
    by_name = {p.name: p for p in params}
    for key, value in table.items():
        if key not in by_name:
            raise ValueError(f"unknown key `ratings.{key}`: [ratings] takes {', '.join(by_name)}")
        if (
            isinstance(value, bool)
            or not isinstance(value, (int, float))
            or value != value
            or value in (float("inf"), float("-inf"))
        ):
            raise ValueError(f"`ratings.{key}` must be a number, got {value!r}")
        out[key] = float(value)
    for p in params:
        if not p.accepts(out[p.name]):
            hint = f": try {p.default:g}" if p.suggest else ""
            raise ValueError(
                f"`ratings.{p.name}` must be {p.span()} ({p.doc}), got {out[p.name]:g}{hint}"
            )
    return out


class RatingSystem(Protocol):
    """A rating system: its parameters (defaults and ranges), the check of a tournament
    file's ``[ratings]`` table, the leaderboard's columns and how they are stored, and the
    rating itself (pure functions over results in schedule order)."""

    name: str
    #: "online" (results rated one after another, in schedule order: TrueSkill) or "history"
    #: (every result at once, in any order: Plackett-Luce)
    kind: str
    params: tuple[Param, ...]
    columns: tuple[Column, ...]  # every leaderboard column, in display order
    stored: tuple[str, ...]  # the system's own columns (of its rows; of the ratings table)
    sorted_by: str  # what the table is sorted by, in words

    def defaults(self) -> dict[str, float]: ...
    def check_params(self, table: dict) -> dict[str, float]:
        """The effective parameters for a ``[ratings]`` table; ``ValueError`` naming the key,
        the range and the fix for a bad one."""

    def rater(
        self,
        params: dict | None = None,
        bots: Iterable[str] = (),
        expected: Iterable[int] | None = None,
    ) -> Any:
        """An incremental rater: ``add(index, players, ranks)`` (an index seen before is
        ignored), ``skip(index)`` (a match that will have no result), ``rows()``,
        ``leader()``, ``rated``, ``complete()``. ``expected`` may be a ``range`` (kept as
        one: memory does not grow with the schedule)."""

    def leaderboard(
        self, results: Iterable[Result], params: dict | None = None, bots: Iterable[str] = ()
    ) -> list: ...
    def row_dict(self, row: Any) -> dict:
        """A leaderboard row as the ratings table stores it (the store's plain values)."""
