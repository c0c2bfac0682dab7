"""Ratings: pure functions from match results to leaderboards. No I/O, no SQLite, no games.

The rest of mallows sees a rating system through ``interface.RatingSystem``, found by name with
``system(name)`` in ``SYSTEMS``: ``TRUESKILL`` (below, online, the default: every table the
platform stores) and ``PLACKETT_LUCE`` (``history_rating``: the whole-history fit). Its parameters (defaults, ranges and the
check of a tournament file's ``[ratings]`` table), its leaderboard columns (tables, csv, json)
and the columns it keeps in the ``ratings`` table (``mu``, ``sigma``, ``conservative``) all
come from it.

A result is ``(players, ranks)``: bot name by seat and the record's ``result.ranks`` (0-based
competition ranks, forfeits already placed last, so a forfeit counts as last place). Results must
be given in schedule order: TrueSkill updates are order-dependent, and rating in schedule order
(never finishing order) makes a table independent of executor, worker count and timing.

One ``trueskill.TrueSkill`` environment per game and per rating (never the global one).
Parameters and their defaults (``DEFAULT_PARAMS``, overridable in a tournament's [ratings]):

- ``mu`` 25, ``sigma`` 25/3, ``beta`` 25/6: TrueSkill's usual scale.
- ``tau`` 0: bots are fixed programs whose skill does not drift between matches, so there is no
  dynamics noise (TrueSkill's default, sigma/100, is meant for people who improve; it would keep
  sigma from shrinking and weigh late matches more than early ones).
- ``draw_probability`` 0.02: small but not 0 (at 0 the draw margin is 0 and TrueSkill cannot
  update a tie, which both games produce: shared places).

Leaderboards sort by the conservative rating mu - 3 sigma (then mu, then name).
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import trueskill

from mallows.results import ffa
from mallows.results.interface import Column, Param, RatingSystem, Result, check_params

# The ranges are wide enough for any sensible scale and narrow enough that TrueSkill's
# arithmetic stays finite and the ratings still move (a test rates at every corner).
PARAMS = (
    Param("mu", 25.0, -1e4, 1e4, high_open=False, doc="the prior mean skill"),
    Param("sigma", 25.0 / 3, 1e-3, 1e4, high_open=False, doc="the prior skill uncertainty"),
    Param(
        "beta",
        25.0 / 6,
        1e-3,
        1e4,
        high_open=False,
        doc="performance noise: the skill gap giving an 80% chance to finish ahead",
    ),
    Param(
        "tau",
        0.0,
        0.0,
        1e3,
        high_open=False,
        doc="dynamics noise added before each match (0: skills are fixed)",
    ),
    Param(
        "draw_probability",
        0.02,
        1e-6,
        0.99,
        high_open=False,
        doc="the chance of a shared place; TrueSkill breaks down at exactly 0",
        suggest=True,
    ),
)
DEFAULT_PARAMS = {p.name: p.default for p in PARAMS}
PARAM_RANGES = {p.name: (p.low, p.high) for p in PARAMS}


@dataclass
class Row:
    rank: int
    bot: str
    mu: float
    sigma: float
    conservative: float
    matches: int
    wins: int
    mean_place: float  # 1 = first


def make_env(params: dict | None = None) -> trueskill.TrueSkill:
    p = dict(DEFAULT_PARAMS)
    p.update(params or {})
    return trueskill.TrueSkill(
        mu=p["mu"],
        sigma=p["sigma"],
        beta=p["beta"],
        tau=p["tau"],
        draw_probability=p["draw_probability"],
    )


def _update(
    env: trueskill.TrueSkill, current: dict, players: Sequence[str], ranks: Sequence[int]
) -> list[tuple[float, float]]:
    """The library's new (mu, sigma) of each of ``players`` (``current``: name -> rating)."""
    groups = [(current[name],) for name in players]
    try:
        rated = env.rate(groups, ranks=list(ranks))
    except FloatingPointError:
        # extreme surprises underflow the float backend; mpmath (if installed) is exact
        env2 = trueskill.TrueSkill(
            mu=env.mu,
            sigma=env.sigma,
            beta=env.beta,
            tau=env.tau,
            draw_probability=env.draw_probability,
            backend="mpmath",
        )
        rated = env2.rate(groups, ranks=list(ranks))
    return [(float(rating.mu), float(rating.sigma)) for (rating,) in rated]


class Rater:
    """TrueSkill in schedule order, fed incrementally: ``add(index, players, ranks)`` in any
    order; results are rated as soon as every earlier index in ``expected`` has arrived (the
    contiguous prefix), so the table at any moment is exactly the table of that prefix, and
    once everything has arrived it is the schedule-order table, whatever the arrival order.
    ``leaderboard()`` is implemented on it, so both give bit-identical numbers."""

    def __init__(
        self,
        params: dict | None = None,
        bots: Iterable[str] = (),
        expected: Iterable[int] | None = None,
    ):
        self.env = make_env(params)
        self._fast = ffa.Env(self.env)
        self.current: dict[str, trueskill.Rating] = {}
        # the (mu, sigma) each current rating was made from: a rating keeps pi and tau, and
        # its mu and sigma, derived from them, need not make the same pi and tau again, so
        # ``state`` keeps these (``restore`` then makes every rating bit for bit again)
        self.made: dict[str, tuple[float, float]] = {}
        self.matches: dict[str, int] = defaultdict(int)
        self.wins: dict[str, int] = defaultdict(int)
        self.places: dict[str, int] = defaultdict(int)
        # a range (the whole schedule) stays a range: memory does not grow with its size
        self.order = (
            expected
            if isinstance(expected, range) and expected.step == 1
            else sorted(expected)
            if expected is not None
            else None
        )
        self.pos = 0  # next position in ``order`` to rate
        self.waiting: dict[int, Result | None] = {}  # None: skipped (its match failed)
        self.rated = 0
        for name in bots:
            if name not in self.current:
                self._set(name, self.env.mu, self.env.sigma)

    def _set(self, name: str, mu: float, sigma: float) -> None:
        self.current[name] = self.env.create_rating(mu, sigma)
        self.made[name] = (mu, sigma)

    def _rate(self, players: Sequence[str], ranks: Sequence[int]) -> None:
        if len(players) != len(ranks):
            raise ValueError(f"{len(players)} players but {len(ranks)} ranks")
        for name in players:
            if name not in self.current:
                self._set(name, self.env.mu, self.env.sigma)
        if len(players) > 1:
            new = None
            if self._fast is not None:
                try:  # bit-identical to the library; anything unusual goes to the library
                    new = ffa.rate(
                        self._fast,
                        [(self.current[p].pi, self.current[p].tau) for p in players],
                        list(ranks),
                    )
                except Exception:
                    new = None
            if new is None:
                new = _update(self.env, self.current, players, ranks)
            for name, (mu, sigma) in zip(players, new):
                self._set(name, mu, sigma)
        for name, rank in zip(players, ranks):
            self.matches[name] += 1
            self.places[name] += rank + 1
            self.wins[name] += rank == 0
        self.rated += 1

    def add(self, index: int | None, players: Sequence[str], ranks: Sequence[int]) -> None:
        """Add the result of ``index``. Adding an index again (already rated or waiting) does
        nothing, so two feeds may overlap (the stored results and the arriving ones)."""
        if self.order is None:  # plain sequence: rate now
            self._rate(players, ranks)
            return
        assert index is not None  # an expected order: every result has its index
        if index in self.waiting or self._rated_already(index):
            return
        self.waiting[index] = (players, ranks)
        self._advance()

    def skip(self, index: int) -> None:
        """``index`` will have no result (its match failed): rate past it, so the results
        after it are not held back (the table is then the table of the stored matches)."""
        if self.order is not None and not self._rated_already(index):
            self.waiting[index] = None
            self._advance()

    def _rated_already(self, index: int) -> bool:
        order = self.order
        if isinstance(order, range):
            return index < order.start + self.pos
        assert order is not None
        return bisect.bisect_left(order, index) < self.pos

    def _advance(self) -> None:
        order = self.order
        assert order is not None
        while self.pos < len(order) and order[self.pos] in self.waiting:
            result = self.waiting.pop(order[self.pos])
            if result is not None:
                self._rate(*result)
            self.pos += 1

    def complete(self) -> bool:
        return self.order is None or self.pos == len(self.order)

    def state(self) -> dict:
        """What this rater has rated, as JSON-able values (``restore`` goes on from it): each
        bot's (mu, sigma) its rating was made from (``made``), matches, wins and summed places,
        and the count rated. A rater fed a plain sequence only (no ``expected`` order): nothing
        waits."""
        if self.order is not None:
            raise ValueError("only a rater of a plain sequence keeps its state")
        return {
            "bots": [
                [name, *self.made[name], self.matches[name], self.wins[name], self.places[name]]
                for name in self.current
            ],
            "rated": self.rated,
        }

    def restore(self, state: dict) -> None:
        """Go on from ``state`` (``state()`` of a rater with these parameters): the ratings
        after it are bit for bit those of rating everything again (a rating is made again from
        the mu and sigma it was made from, which JSON keeps exactly)."""
        for name, mu, sigma, matches, wins, places in state["bots"]:
            self._set(str(name), float(mu), float(sigma))
            self.matches[name], self.wins[name], self.places[name] = matches, wins, places
        self.rated = int(state["rated"])

    def estimate(self, bot: str) -> tuple[float, float]:
        """``bot``'s rating now and its spread (mu, sigma): what a progression chart draws."""
        r = self.current[bot]
        return float(r.mu), float(r.sigma)

    def rows(self) -> list[Row]:
        rows = [
            Row(
                0,
                name,
                r.mu,
                r.sigma,
                r.mu - 3 * r.sigma,
                self.matches[name],
                self.wins[name],
                self.places[name] / self.matches[name] if self.matches[name] else 0.0,
            )
            for name, r in self.current.items()
        ]
        rows.sort(key=lambda row: (-row.conservative, -row.mu, row.bot))
        for i, row in enumerate(rows):
            row.rank = i + 1
        return rows

    def leader(self) -> tuple[str, float] | None:
        rated = [r for r in self.rows() if r.matches]
        return (rated[0].bot, rated[0].conservative) if rated else None


def leaderboard(
    results: Iterable[Result], params: dict | None = None, bots: Iterable[str] = ()
) -> list[Row]:
    """Rate ``results`` in the given order and return the sorted leaderboard. ``bots`` adds
    rows for bots without a result yet (prior rating, 0 matches)."""
    rater = Rater(params, bots)
    for players, ranks in results:
        rater.add(None, players, ranks)
    return rater.rows()


@dataclass
class HeadToHead:
    bot: str
    other: str
    matches: int  # matches both played in
    mean_place: float  # bot's mean place (1 = first) in those matches
    ahead: float  # share of those matches in which bot finished strictly ahead of other


class HeadToHeadCounts:
    """The counts behind ``head_to_head``, fed one result at a time; ``state`` and
    ``from_state`` keep them as JSON-able values (a report goes on from them)."""

    def __init__(self) -> None:
        # (a, b) -> [matches both played, a's summed places, matches a finished ahead of b]
        self.pairs: dict[tuple[str, str], list[int]] = {}
        self.bots: set[str] = set()

    def add(self, players: Sequence[str], ranks: Sequence[int]) -> None:
        self.bots.update(players)
        pairs = self.pairs
        for a, ra in zip(players, ranks):
            for b, rb in zip(players, ranks):
                if a == b:
                    continue
                cell = pairs.get((a, b))
                if cell is None:
                    cell = pairs[a, b] = [0, 0, 0]
                cell[0] += 1
                cell[1] += ra + 1
                cell[2] += ra < rb

    def table(self) -> dict[str, dict[str, HeadToHead]]:
        """``table[a][b]``: how ``a`` did in the matches it shared with ``b``."""
        table: dict[str, dict[str, HeadToHead]] = {a: {} for a in sorted(self.bots)}
        for (a, b), (n, place, ahead) in self.pairs.items():
            table[a][b] = HeadToHead(a, b, n, place / n, ahead / n)
        return table

    def state(self) -> dict:
        return {
            "bots": sorted(self.bots),
            "pairs": [[a, b, *cell] for (a, b), cell in self.pairs.items()],
        }

    @classmethod
    def from_state(cls, state: dict) -> HeadToHeadCounts:
        counts = cls()
        counts.bots = {str(b) for b in state["bots"]}
        counts.pairs = {(str(a), str(b)): [n, p, w] for a, b, n, p, w in state["pairs"]}
        return counts


def head_to_head(results: Iterable[Result]) -> dict[str, dict[str, HeadToHead]]:
    """``table[a][b]``: how ``a`` did in the matches it shared with ``b``."""
    counts = HeadToHeadCounts()
    for players, ranks in results:
        counts.add(players, ranks)
    return counts.table()


class TrueSkillSystem:
    """TrueSkill as a ``RatingSystem``: see the module docstring for its parameters."""

    name: str = "trueskill"
    kind: str = "online"
    params: tuple[Param, ...] = PARAMS
    stored: tuple[str, ...] = ("mu", "sigma", "conservative")
    sorted_by: str = "mu − 3σ"
    #: the words of ``Rater.estimate``'s two numbers (a progression chart's line and band)
    estimate: tuple[str, str] = ("TrueSkill mu", "sigma")
    columns: tuple[Column, ...] = (
        Column("rank", "rank", csv="rank"),
        Column("bot", "bot", csv="bot"),
        Column("mu", "mu", 2, csv="mu"),
        Column("sigma", "sigma", 2, csv="sigma"),
        Column(
            "mu-3σ",
            "conservative",
            2,
            csv="conservative",
            title="mu - 3 sigma: the conservative rating the table sorts by",
            page="mu − 3σ",
        ),
        Column("matches", "games", csv="matches"),
        Column("wins", "wins", csv="wins"),
        Column("mean place", "mean_place", 2, csv="mean_place", blank_unplayed=True),
    )

    def defaults(self) -> dict[str, float]:
        return dict(DEFAULT_PARAMS)

    def check_params(self, table: dict) -> dict[str, float]:
        return check_params(self.params, table)

    def rater(
        self,
        params: dict | None = None,
        bots: Iterable[str] = (),
        expected: Iterable[int] | None = None,
    ) -> Rater:
        return Rater(params, bots, expected)

    def leaderboard(
        self, results: Iterable[Result], params: dict | None = None, bots: Iterable[str] = ()
    ) -> list[Row]:
        return leaderboard(results, params, bots)

    def row_dict(self, row: Row) -> dict[str, Any]:
        return {
            "rank": row.rank,
            "bot": row.bot,
            "mu": row.mu,
            "sigma": row.sigma,
            "conservative": row.conservative,
            "games": row.matches,
            "wins": row.wins,
            "mean_place": row.mean_place,
        }


TRUESKILL = TrueSkillSystem()


def _systems() -> dict[str, RatingSystem]:
    from mallows.results.history_rating import PLACKETT_LUCE

    return {TRUESKILL.name: TRUESKILL, PLACKETT_LUCE.name: PLACKETT_LUCE}


#: every rating system by name; TrueSkill (online, in schedule order) is the default
SYSTEMS: dict[str, RatingSystem] = _systems()
DEFAULT = TRUESKILL.name


def system(name: str | None = None) -> RatingSystem:
    """The rating system ``name`` (None: the default, TrueSkill); ``ValueError`` naming the
    systems for another name."""
    found = SYSTEMS.get(DEFAULT if name is None else name)
    if found is None:
        raise ValueError(f"no rating system {name!r}: choose {' or '.join(SYSTEMS)}")
    return found
