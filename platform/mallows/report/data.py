"""What a report shows, read from a store: leaderboards, head-to-head, progression, bots.

Owns the numbers behind the pages (no HTML here): ``board(store, scope, name)`` rates the
stored results in schedule order with the same function and parameters as the stored
leaderboards (``mallows.tournaments.run.refresh_ratings``), keeping the rows of the one
leaderboard (``mallows.results.leaderboard.played``: a row per bot that played, ranked over
those rows), so a page agrees with
``mallows ratings`` to the last digit, and it never writes (a report can read a database a
tournament is still writing). The progression of each bot's rating (TrueSkill's mu and sigma) comes from the same
pass over the results.
"""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from typing import Iterator

from mallows import botname
from mallows.errors import StorageError
from mallows.results.leaderboard import played
from mallows.results.interface import Column, RatingSystem
from mallows.results.ratings import system
from mallows.results.ratings import head_to_head
from mallows.results.seats import deal_of, seat_effects
from mallows.results.stats import PlaceStats, place_stats, seat_stats
from mallows.results.interface import Result, ResultStore
from mallows.safetext import brief

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores


def rating_columns(rating: RatingSystem) -> tuple[Column, ...]:
    """``rating``'s own leaderboard columns (its ``stored`` values), in display order."""
    return tuple(c for c in rating.columns if c.key in rating.stored)


#: the points per bot a progression plot draws (``plots``): ``board`` keeps no more than that
MAX_POINTS = 300


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
    #: what a plot draws: every ``matches // MAX_POINTS``-th of its matches and its last
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


def board(store: ResultStore, scope: str, name: str) -> Board:
    """The leaderboard of tournament ``name`` or game ``name`` from the stored results.

    The results are streamed from the store, never held: one pass counts places (and each
    bot's matches), one rates them and keeps each bot's progression already thinned to the
    points its plot draws (``plots.MAX_POINTS``), and the head-to-head and seat tables each
    read them once more; so memory does not grow with the number of matches."""
    if scope == "tournament":
        row = store.tournament(name)
        if row is None:
            raise StorageError(f"{store.path} has no tournament {name!r}")
        definition = json.loads(row["definition"])
        params = definition.get("ratings") or RATING_SYSTEM.defaults()
        game, total = row["game"], row["total"]

        def results() -> Iterator[Result]:
            return store.results(tournament=name)
    else:
        definition, params, game, total = {}, RATING_SYSTEM.defaults(), name, None

        def results() -> Iterator[Result]:
            return store.results(game=name)

    with store.snapshot():  # every pass reads the same matches while a run writes
        places = place_stats(results())
        # the names that played (the pins' shown names), never the file's list: no row, and
        # no bot page, without a match
        rater = RATING_SYSTEM.rater(params)
        progression: dict[str, list] = {}
        steps = {bot: max(1, p.matches // MAX_POINTS) for bot, p in places.items()}
        seen: dict[str, int] = {}
        number = 0
        for number, (players, ranks) in enumerate(results(), 1):
            rater.add(None, players, ranks)
            for bot in players:
                k = seen[bot] = seen.get(bot, -1) + 1
                if k % steps[bot] == 0 or k == places[bot].matches - 1:
                    progression.setdefault(bot, []).append((number, *rater.estimate(bot)))
        rows = []
        for r in played(rater.rows()):  # the one leaderboard's rows, ranked over those shown
            d = RATING_SYSTEM.row_dict(r)
            d["matches"] = d["games"]
            d["place"] = places.get(r.bot, PlaceStats())
            rows.append(d)
        return Board(
            scope,
            name,
            game,
            rows,
            head_to_head(results()),
            progression,
            number,
            total,
            seat_stats(results()),
            definition,
            board_seat_effects(store, scope, name),
        )


def board_seat_effects(store: ResultStore, scope: str, name: str) -> dict:
    """The seat effect (``mallows.results.seats``) of tournament ``name``, or of game ``name``
    over all its tournaments, per number of seats; each stored match's deal from its index."""
    if scope == "tournament":
        names = [name]
    else:
        names = [t["name"] for t in store.tournaments() if t["game"] == name]

    def indexed() -> Iterator[tuple[tuple[str, int], list[str], list[int]]]:
        for t in names:
            row = store.tournament(t)
            if row is None:  # deleted since its name was read: nothing to count
                continue
            definition = json.loads(row["definition"])
            for index, players, ranks in store.indexed_results(t):
                yield (t, deal_of(definition, index)), players, ranks

    return seat_effects(indexed(), grouped=True)  # by index: a deal's matches together


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
