"""Seat effects: how much where a bot sits moves its place. Pure functions over results; no I/O.

A result here is ``(deal, players, ranks)``: ``deal`` any hashable naming the deal the match was
played on (the rotations of one duplicate deal share it; ``deal_of`` makes it from a stored
match's index), ``players`` and ``ranks`` as in ``mallows.results.stats`` (0-based competition
ranks, forfeits last; a place is ``rank + 1``).

The seat effect of a game at ``k`` seats is the mean place from each seat over every bot. In a
round robin every bot sits in every seat equally often, so the bots' strengths cancel and what
differs from seat to seat is the seat: in a fair game every seat's mean is the same. The matches
of one deal are not independent -- a seat keeps its cards in every rotation of the deal -- so
the 95% interval of a seat's mean treats the deal as the unit (a cluster): ``mean +- 1.96 sqrt(
D / (D - 1) * sum_d (S_d - mean n_d)^2) / N``, over D deals with place sum S_d from n_d matches,
N matches in all. Treating the matches as independent would make it too narrow.

A bot's own mean place by seat is ``mallows.results.stats.seat_stats``: a bot sits in a given
seat once per deal at most, so there its matches are independent.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from mallows.results.stats import Z95


def _terms(total: float, n: int) -> tuple:
    """One deal's share of ``ClusteredMean.closed`` (an integral sum as an integer)."""
    t: float = int(total) if float(total).is_integer() else total
    return (1, n, t, t * t, t * n, n * n)


@dataclass
class ClusteredMean:
    """A mean place over matches grouped by deal, with the deal as the sampling unit.

    ``sums`` and ``counts`` hold the open deals; ``close`` folds them into running totals
    (deals, matches, and the sums of S_d, S_d^2, S_d n_d and n_d^2), so a reader whose deals
    arrive one after another (``seat_effects(..., grouped=True)``) holds one deal at a time
    however many there are. Integral places are summed as integers and the interval computed
    exactly, so closing early changes no figure."""

    sums: dict = field(default_factory=lambda: defaultdict(float))
    counts: dict = field(default_factory=lambda: defaultdict(int))
    #: closed deals: [deals, matches, sum S_d, sum S_d^2, sum S_d n_d, sum n_d^2]
    closed: list = field(default_factory=lambda: [0, 0, 0, 0, 0, 0])

    def add(self, deal: Hashable, place: float) -> None:
        self.sums[deal] += place
        self.counts[deal] += 1

    def close(self) -> None:
        """Fold the open deals into the running totals."""
        for deal, n in self.counts.items():
            for i, v in enumerate(_terms(self.sums[deal], n)):
                self.closed[i] += v
        self.sums.clear()
        self.counts.clear()

    def _totals(self) -> list:
        out = list(self.closed)
        for deal, n in self.counts.items():
            for i, v in enumerate(_terms(self.sums[deal], n)):
                out[i] += v
        return out

    @property
    def matches(self) -> int:
        return self.closed[1] + sum(self.counts.values())

    @property
    def deals(self) -> int:
        return self.closed[0] + len(self.counts)

    @property
    def mean(self) -> float | None:
        _, n, total, *_ = self._totals()
        return total / n if n else None

    @property
    def half_width(self) -> float | None:
        """Half the 95% interval of the mean (None below two deals)."""
        d, n, total, ss, sn, nn = self._totals()
        if d < 2 or not n:
            return None
        if all(isinstance(v, int) for v in (total, ss, sn)):  # exact: sum (S_d - mean n_d)^2
            spread = float(Fraction(ss * n * n - 2 * total * sn * n + total * total * nn, n * n))
        else:
            mean = total / n
            spread = max(0.0, ss - 2 * mean * sn + mean * mean * nn)
        return Z95 * math.sqrt(d / (d - 1) * spread) / n

    def text(self, digits: int = 2) -> str:
        if not self.matches:
            return "-"
        h = self.half_width
        return f"{self.mean:.{digits}f}" + ("" if h is None else f" ± {h:.{digits}f}")


@dataclass
class SeatEffect:
    """The mean place from each seat of ``players``-seat matches, over every bot."""

    players: int
    seats: list[ClusteredMean]

    @property
    def matches(self) -> int:
        return self.seats[0].matches if self.seats else 0

    @property
    def deals(self) -> int:
        return self.seats[0].deals if self.seats else 0

    @property
    def spread(self) -> float | None:
        """The best seat's mean place minus the worst's, in places (0: no seat effect)."""
        means = [s.mean for s in self.seats if s.mean is not None]
        return max(means) - min(means) if means else None

    def text(self) -> str:
        """``3 seats, 400 deals: seat 0 1.93 ± 0.04, ...; spread 0.14 places``."""
        cells = ", ".join(f"seat {i} {s.text()}" for i, s in enumerate(self.seats))
        spread = self.spread
        return (
            f"{self.players} seats, {self.deals:,} deals, {self.matches:,} matches: mean "
            f"place {cells}" + ("" if spread is None else f"; spread {spread:.2f} places")
        )


class SeatEffects:
    """The seat effects of results fed one at a time (``add``), as ``seat_effects`` computes
    them; ``state`` and ``from_state`` keep the running totals as JSON-able values (a deal is
    then a list: a tuple deal comes back as one)."""

    def __init__(self, grouped: bool = False) -> None:
        self.grouped = grouped
        self.by_k: dict[int, list[ClusteredMean]] = {}
        self.current: Hashable = None
        self.started = False  # a deal seen yet (None may be a deal)

    def add(self, deal: Hashable, players: Sequence[str], ranks: Sequence[int]) -> None:
        if self.grouped and (not self.started or deal != self.current):
            for means in self.by_k.values():
                for m in means:
                    m.close()
            self.current, self.started = deal, True
        k = len(players)
        seats = self.by_k.get(k)
        if seats is None:
            seats = self.by_k[k] = [ClusteredMean() for _ in range(k)]
        for seat, rank in enumerate(ranks):
            seats[seat].add(deal, rank + 1)

    def effects(self) -> dict[int, SeatEffect]:
        return {k: SeatEffect(k, seats) for k, seats in sorted(self.by_k.items())}

    def state(self) -> dict:
        return {
            "grouped": self.grouped,
            "current": self.current,
            "started": self.started,
            "seats": [
                [k, [[m.closed, [[d, m.sums[d], n] for d, n in m.counts.items()]] for m in means]]
                for k, means in self.by_k.items()
            ],
        }

    @classmethod
    def from_state(cls, state: dict) -> SeatEffects:
        def deal(d: object) -> Hashable:
            return tuple(deal(x) for x in d) if isinstance(d, list) else d

        out = cls(bool(state["grouped"]))
        out.current, out.started = deal(state["current"]), bool(state["started"])
        for k, means in state["seats"]:
            seats = out.by_k[int(k)] = []
            for closed, open_deals in means:
                m = ClusteredMean()
                m.closed = list(closed)
                for d, total, n in open_deals:
                    m.sums[deal(d)], m.counts[deal(d)] = float(total), int(n)
                seats.append(m)
        return out


def seat_effects(
    results: Iterable[tuple[Hashable, Sequence[str], Sequence[int]]], grouped: bool = False
) -> dict[int, SeatEffect]:
    """Number of seats -> the seat effect over the matches with that many seats. ``grouped``:
    every deal's matches come one after another (a stored tournament read by index, its deal
    from ``deal_of``), so each deal is folded into running totals when the next one starts
    and memory does not grow with the deals."""
    fold = SeatEffects(grouped)
    for deal, players, ranks in results:
        fold.add(deal, players, ranks)
    return fold.effects()


def deal_of(definition: dict, index: int) -> int:
    """The deal a stored match was played on, from its tournament's definition and its index:
    a round robin's matches run table, deal, rotation, so the ``players`` rotations of a deal
    are consecutive; a comparison's pair ``p`` (matches ``2p`` and ``2p + 1``) is one deal."""
    size = 2 if definition.get("kind") == "compare" else int(definition.get("players") or 1)
    return index // max(1, size)
