"""A board's tables as one fold over its stored results, and the fold's state as JSON values.

``BoardFold`` takes a board's results (a tournament's, or a game's over its tournaments) one at
a time in rating order, as ``ResultStore.rated_rows`` gives them, and keeps everything
``data.Board`` shows: each bot's places (overall and from each seat), the online rater's table
(TrueSkill), the head-to-head counts, the seat effects with the deal as the unit, and each bot's
rating progression thinned to what a plot draws. ``state()`` is all of it as JSON-able values
and ``from_state`` goes on from it, so a report's next run folds only the matches stored since
(``board_cache``); the numbers are bit for bit those of one fold from the first match (a rating
is made again from the mu and sigma it was made from, which JSON keeps exactly:
``Rater.state``; every other figure is a sum).

Thinning: a bot with n matches shows the points after its matches k (from 0) that are
multiples of ``step(n)``, the least power of two at which n matches make at most
``MAX_POINTS`` points, and the point after its last match. A power of two, because a fold
stopped at any count has kept every point that a later, larger step keeps: stopping and going
on changes no point.

Pure: no I/O; the pieces are ``mallows.results``' own accumulators.
"""

from __future__ import annotations

from typing import Any

from mallows.botname import is_person
from mallows.results.leaderboard import played
from mallows.results.ratings import HeadToHeadCounts, system
from mallows.results.seats import SeatEffects, deal_of
from mallows.results.stats import PlaceStats, add_places

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores

#: the points per bot a progression plot draws (``plots``): a board keeps no more than that
#: (and the point after its last match)
MAX_POINTS = 300


def step(matches: int) -> int:
    """The least power of two at which ``matches`` matches make at most ``MAX_POINTS``
    points (a point every ``step`` matches)."""
    s = 1
    while -(-matches // s) > MAX_POINTS:
        s *= 2
    return s


class BoardFold:
    """A board's tables over the results added so far. ``humans``: a person's matches count
    (a tournament's board) or are left out (a game's board is of bots, as ``results`` reads
    it). ``definitions``: each tournament's definition, whose deals the seat effects group by
    (``deal_of``)."""

    def __init__(self, params: dict, definitions: dict[str, dict], humans: bool) -> None:
        self.definitions, self.humans = definitions, humans
        self.rater = RATING_SYSTEM.rater(params)
        self.places: dict[str, PlaceStats] = {}
        self.seats: dict[str, dict[int, PlaceStats]] = {}
        self.h2h = HeadToHeadCounts()
        self.effects = SeatEffects(grouped=True)  # by index: a deal's matches together
        # bot -> [its matches so far, its step, [k, number, estimate, spread] of the kept
        # points, the same after its last match]
        self.bots: dict[str, list[Any]] = {}
        self.number = 0  # results rated

    def add(self, tournament: str, index: int, players: list[str], ranks: list[int]) -> None:
        """One stored result (in rating order)."""
        if not self.humans and any(is_person(p) for p in players):
            return
        self.number += 1
        self.rater.add(None, players, ranks)
        add_places(self.places, self.seats, players, ranks)
        self.h2h.add(players, ranks)
        deal = (tournament, deal_of(self.definitions.get(tournament, {}), index))
        self.effects.add(deal, players, ranks)
        for bot in players:
            mine = self.bots.get(bot)
            if mine is None:
                mine = self.bots[bot] = [0, 1, [], None]
            k = mine[0]
            mine[0] = k + 1
            point = [k, self.number, *self.rater.estimate(bot)]
            mine[3] = point
            s = step(k + 1)
            if s != mine[1]:  # the step doubled: drop the points it no longer shows
                mine[1] = s
                mine[2] = [p for p in mine[2] if p[0] % s == 0]
            if k % s == 0:
                mine[2].append(point)

    def progression(self) -> dict[str, list[tuple[int, float, float]]]:
        """Bot -> (match number, estimate, spread) of its thinned points and its last."""
        out = {}
        for bot, (_, _, points, last) in self.bots.items():
            shown = [(p[1], p[2], p[3]) for p in points]
            if last is not None and (not points or points[-1][0] != last[0]):
                shown.append((last[1], last[2], last[3]))
            out[bot] = shown
        return out

    def rows(self) -> list[dict]:
        """The one leaderboard's rows (``played``: ranked over the bots that played), each
        with ``matches`` and ``place`` (its ``PlaceStats``)."""
        rows = []
        for r in played(self.rater.rows()):
            d = RATING_SYSTEM.row_dict(r)
            d["matches"] = d["games"]
            d["place"] = self.places.get(r.bot, PlaceStats())
            rows.append(d)
        return rows

    def state(self) -> dict:
        """Everything folded so far as JSON-able values."""
        return {
            "number": self.number,
            "rater": self.rater.state(),
            "places": [[bot, p.state()] for bot, p in self.places.items()],
            "seats": [
                [bot, [[seat, p.state()] for seat, p in by_seat.items()]]
                for bot, by_seat in self.seats.items()
            ],
            "h2h": self.h2h.state(),
            "effects": self.effects.state(),
            "bots": [[bot, *mine] for bot, mine in self.bots.items()],
        }

    @classmethod
    def from_state(
        cls, state: dict, params: dict, definitions: dict[str, dict], humans: bool
    ) -> BoardFold:
        """A fold that goes on from ``state`` (``state()`` of a fold with these arguments);
        a malformed state raises ``KeyError``, ``TypeError`` or ``ValueError``."""
        fold = cls(params, definitions, humans)
        fold.number = int(state["number"])
        fold.rater.restore(state["rater"])
        fold.places = {str(bot): PlaceStats.from_state(p) for bot, p in state["places"]}
        fold.seats = {
            str(bot): {int(seat): PlaceStats.from_state(p) for seat, p in by_seat}
            for bot, by_seat in state["seats"]
        }
        fold.h2h = HeadToHeadCounts.from_state(state["h2h"])
        fold.effects = SeatEffects.from_state(state["effects"])
        for bot, seen, s, points, last in state["bots"]:
            fold.bots[str(bot)] = [int(seen), int(s), [list(p) for p in points], last]
        return fold
