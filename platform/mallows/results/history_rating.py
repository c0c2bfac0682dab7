"""The whole-history Plackett-Luce fit (``plackett_luce.fit_history``) as a ``RatingSystem``
(``interface``), beside online TrueSkill (``ratings.TRUESKILL``): ``PLACKETT_LUCE``.

A history system rates every result at once, so the order results come in does not matter; its
``rater`` gathers results and fits them when asked for its rows (the same table, whatever the
arrival order). Its rows: ``rating`` (the log-strength against the field's mean), ``sd``, the
95% interval ``low``..``high`` and the rank interval, sorted by rating. Its one parameter:
``prior_sd``, the prior's spread of log-strength. Pure functions, no I/O.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from mallows.results.interface import Column, Param, Result, check_params
from mallows.results.plackett_luce import PRIOR_SD, Folded, fit_history

PARAMS = (
    Param(
        "prior_sd",
        PRIOR_SD,
        0.0,
        1e3,
        low_open=True,
        high_open=False,
        doc="the prior's spread of log-strength (a 20x strength ratio is 1 at the default)",
    ),
)


@dataclass
class HistoryRow:
    rank: int
    bot: str
    rating: float
    sd: float
    low: float
    high: float
    rank_low: int
    rank_high: int
    matches: int
    wins: int
    mean_place: float  # 1 = first

    @property
    def ranks(self) -> str:
        return f"{self.rank_low}-{self.rank_high}"


class Indexes:
    """A set of match indexes held as sorted, disjoint runs ``[start, end)``: its memory grows
    with the gaps between the indexes added, not with their number (a run's results arrive
    nearly in index order, so a whole run is a few runs of indexes, where a ``set`` held an
    entry for every match)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def add(self, index: int) -> bool:
        """Add ``index``; False when it was there already."""
        starts, ends = self.starts, self.ends
        k = bisect.bisect_right(starts, index)  # the runs that start at or before it
        if k and index < ends[k - 1]:
            return False
        left = k > 0 and ends[k - 1] == index
        right = k < len(starts) and starts[k] == index + 1
        if left and right:  # it closes the gap between two runs
            ends[k - 1] = ends[k]
            del starts[k], ends[k]
        elif left:
            ends[k - 1] = index + 1
        elif right:
            starts[k] = index
        else:
            starts.insert(k, index)
            ends.insert(k, index + 1)
        return True

    def __contains__(self, index: object) -> bool:
        if not isinstance(index, int):
            return False
        k = bisect.bisect_right(self.starts, index)
        return k > 0 and index < self.ends[k - 1]

    def __len__(self) -> int:
        return sum(e - s for s, e in zip(self.starts, self.ends))


class HistoryRater:
    """Results gathered (by index: an index added twice counts once) and fitted whole when the
    rows are asked for: ``add``, ``skip``, ``rows``, ``leader``, ``rated``, ``complete``."""

    def __init__(self, params: dict | None, bots: Iterable[str] = ()):
        self.params = dict(PLACKETT_LUCE.defaults(), **(params or {}))
        self.bots = list(bots)
        self.folded = Folded()  # the results, folded: memory does not grow with the matches
        self.wins: dict[str, int] = defaultdict(int)
        self.seen = Indexes()  # runs of indexes: no entry per match
        self.rated = 0

    def add(self, index: int | None, players: Sequence[str], ranks: Sequence[int]) -> None:
        if index is not None and not self.seen.add(index):
            return
        self.folded.add(list(players), list(ranks))
        for name, rank in zip(players, ranks):
            self.wins[name] += rank == 0
        self.rated += 1

    def skip(self, index: int) -> None:
        pass  # a whole-history fit waits for nothing

    def complete(self) -> bool:
        return True

    def rows(self) -> list[HistoryRow]:
        fit = fit_history(self.folded, self.bots, prior_sd=self.params["prior_sd"])
        wins = self.wins
        return [
            HistoryRow(
                r.rank,
                r.bot,
                r.rating,
                r.sd,
                r.low,
                r.high,
                r.rank_low,
                r.rank_high,
                r.matches,
                wins[r.bot],
                r.mean_place,
            )
            for r in fit.rows()
        ]

    def leader(self) -> tuple[str, float] | None:
        rated = [r for r in self.rows() if r.matches]
        return (rated[0].bot, rated[0].rating) if rated else None


class PlackettLuceSystem:
    """Plackett-Luce over the whole history as a ``RatingSystem`` (``plackett_luce``)."""

    name: str = "plackett-luce"
    kind: str = "history"
    params: tuple[Param, ...] = PARAMS
    stored: tuple[str, ...] = ("rating", "sd", "low", "high", "ranks")
    sorted_by: str = "rating (the whole-history Plackett-Luce fit)"
    columns: tuple[Column, ...] = (
        Column("rank", "rank", csv="rank"),
        Column("bot", "bot", csv="bot"),
        Column("rating", "rating", 2, csv="rating", title="log-strength against the field"),
        Column("sd", "sd", 2, csv="sd", title="the rating's standard deviation"),
        Column("low", "low", 2, csv="low", title="the 95% interval of the rating"),
        Column("high", "high", 2, csv="high"),
        Column("ranks", "ranks", csv="ranks", title="the 95% interval of the rank"),
        Column("matches", "games", csv="matches"),
        Column("wins", "wins", csv="wins"),
        Column("mean place", "mean_place", 2, csv="mean_place", blank_unplayed=True),
    )

    def defaults(self) -> dict[str, float]:
        return {p.name: p.default for p in self.params}

    def check_params(self, table: dict) -> dict[str, float]:
        return check_params(self.params, table)

    def rater(
        self,
        params: dict | None = None,
        bots: Iterable[str] = (),
        expected: Iterable[int] | None = None,
    ) -> HistoryRater:
        return HistoryRater(params, bots)

    def leaderboard(
        self, results: Iterable[Result], params: dict | None = None, bots: Iterable[str] = ()
    ) -> list[HistoryRow]:
        rater = self.rater(params, bots)
        for players, ranks in results:
            rater.add(None, players, ranks)
        return rater.rows()

    def row_dict(self, row: HistoryRow) -> dict[str, Any]:
        return {
            "rank": row.rank,
            "bot": row.bot,
            "rating": row.rating,
            "sd": row.sd,
            "low": row.low,
            "high": row.high,
            "ranks": row.ranks,
            "games": row.matches,
            "wins": row.wins,
            "mean_place": row.mean_place,
        }


PLACKETT_LUCE = PlackettLuceSystem()
