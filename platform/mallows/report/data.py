"""What a report shows, read from a store: leaderboards, head-to-head, progression, bots.

Owns the numbers behind the pages (no HTML here): ``board(store, scope, name)`` rates the
stored results in schedule order with the same function and parameters as the stored
leaderboards (``mallows.tournaments.run.refresh_ratings``), keeping the rows of the one
leaderboard (``mallows.results.leaderboard.played``: a row per bot that played, ranked over
those rows), so a page agrees with
``mallows ratings`` to the last digit, and it never writes (a report can read a database a
tournament is still writing). The progression of each bot's rating (TrueSkill's mu and sigma)
comes from the same pass over the results (``fold``); a written report keeps that pass's state
and its next run goes on from it (``board_cache``).
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Iterable

from mallows import botname
from mallows.errors import StorageError
from mallows.report.fold import RATING_SYSTEM, BoardFold
from mallows.results.interface import Column, RatingSystem, ResultStore
from mallows.safetext import brief

if TYPE_CHECKING:
    from mallows.report.board_cache import BoardCache


def rating_columns(rating: RatingSystem) -> tuple[Column, ...]:
    """``rating``'s own leaderboard columns (its ``stored`` values), in display order."""
    return tuple(c for c in rating.columns if c.key in rating.stored)


@lru_cache(maxsize=8192)
def slug(name: str) -> str:
    """A file-name-safe, unique, readable slug: ``random:call=0.2`` -> ``random-call-0.2-1a2b3c4d``
    (a bot given by path: from its base name, so no folder shows in a URL)."""
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", short_bot(name)).strip("-.")[:60] or "x"
    return f"{base}-{zlib.crc32(name.encode()):08x}"


def short_bot(name: str) -> str:
    """A bot named by a path shows as its file or folder base name plus parameters
    (``mallows.botname.short``)."""
    return botname.short(name)


@dataclass
class Board:
    scope: str  # "tournament" or "game"
    name: str
    game: str
    rows: list[dict]  # leaderboard rows (rank order) with ``place`` (PlaceStats)
    h2h: dict  # head_to_head(...) result
    #: bot -> (match number, estimate, spread): the online rater's ``estimate`` after its
    #: matches, named by the system's ``estimate`` words (TrueSkill: mu, sigma), thinned to
    #: what a plot draws (``fold``: every ``step(matches)``-th of its matches and its last)
    progression: dict[str, list[tuple[int, float, float]]]
    matches: int
    total: int | None = None  # a tournament's scheduled matches
    seats: dict = field(default_factory=dict)  # bot -> seat -> PlaceStats
    definition: dict = field(default_factory=dict)
    seat_effects: dict = field(default_factory=dict)  # seats -> results.seats.SeatEffect
    #: the rating system's own columns (the pages show them between bot and matches) and
    #: what the table is sorted by: the pages write no system's column by hand
    columns: tuple[Column, ...] = field(default_factory=lambda: rating_columns(RATING_SYSTEM))
    sorted_by: str = RATING_SYSTEM.sorted_by
    estimate: tuple[str, str] = getattr(RATING_SYSTEM, "estimate", ("rating", "spread"))

    @property
    def complete(self) -> bool:
        return self.total is None or self.matches >= self.total


def board(store: ResultStore, scope: str, name: str, kept: BoardCache | None = None) -> Board:
    """The leaderboard of tournament ``name`` or game ``name`` from the stored results.

    The results are streamed from the store, never held, through one ``fold.BoardFold``
    (places, ratings, progression thinned to what a plot draws, head-to-head, seats): memory
    does not grow with the number of matches. ``kept`` (a written report's ``BoardCache``):
    go on from the previous report's fold where its matches are unchanged, and keep this
    one's for the next."""
    if scope == "tournament":
        row = store.tournament(name)
        if row is None:
            raise StorageError(f"{store.path} has no tournament {name!r}")
        definition = json.loads(row["definition"])
        params = definition.get("ratings") or RATING_SYSTEM.defaults()
        game, total = row["game"], row["total"]
        definitions = {name: definition}
    else:
        definition, params, game, total = {}, RATING_SYSTEM.defaults(), name, None
        definitions = {}
        for t in store.tournaments():
            found = store.tournament(t["name"]) if t["game"] == name else None
            if found is not None:  # (deleted since its name was read: nothing to count)
                definitions[t["name"]] = json.loads(found["definition"])
    humans = scope == "tournament"  # a game's board is of bots (``ResultStore.results``)

    def rows() -> Iterable[tuple[str, int, str, str]]:
        if scope == "tournament":
            return store.rated_rows(tournament=name)
        return store.rated_rows(game=name)

    with store.snapshot():  # every row read from the same matches while a run writes
        if kept is not None:
            fold = kept.fold(scope, name, rows, params, definitions, humans)
        else:
            fold = BoardFold(params, definitions, humans)
            for tour, index, players, ranks in rows():
                fold.add(tour, index, json.loads(players), json.loads(ranks))
    # the names that played (the pins' shown names), never the file's list: no row, and no
    # bot page, without a match
    return Board(
        scope,
        name,
        game,
        fold.rows(),
        fold.h2h.table(),
        fold.progression(),
        fold.number,
        total,
        fold.seats,
        definition,
        fold.effects.effects(),
    )


def forfeits(store: ResultStore, tournament: str, whole: bool = False) -> list[dict]:
    """Every forfeit of ``tournament``: match id, seat, bot, kind (when recorded), reason (cut
    to a brief length unless ``whole``)."""
    out = []
    for mid, text in store.records(tournament, only_forfeits=True):
        record = json.loads(text)
        names = record.get("players", [])
        for e in record.get("events", []):
            if e.get("type") == "forfeit":
                seat = e.get("seat")
                out.append(
                    {
                        "match": mid,
                        "tournament": tournament,
                        "seat": seat,
                        "bot": names[seat] if isinstance(seat, int) and seat < len(names) else "?",
                        "kind": e.get("kind"),
                        "reason": str(e.get("reason", ""))
                        if whole
                        else brief(str(e.get("reason", ""))),
                    }
                )  # whole in the match
    return out
