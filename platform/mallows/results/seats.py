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
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from mallows.results.stats import Z95


@dataclass
class ClusteredMean:
    """A mean place over matches grouped by deal, with the deal as the sampling unit.

    Kept as running sums (matches, deals, and per deal its place sum ``S`` and count ``n``
    folded into the sums of ``S``, ``n``, ``S^2``, ``S n`` and ``n^2``), so it holds one deal
    at a time, not every deal: the matches of one deal must come together, as they are stored
    (by index: a deal's rotations are consecutive). A deal that comes back after another is
    counted as a deal of its own."""

    n: int = 0  # matches of the deals closed
    deals_closed: int = 0
    total: float = 0.0  # sum over closed deals of S
    s2: float = 0.0  # of S^2
    sn: float = 0.0  # of S n
    n2: float = 0.0  # of n^2
    _deal: Hashable = None
    _s: float = 0.0  # the open deal's place sum and count
    _c: int = 0

    def add(self, deal: Hashable, place: float) -> None:
        if self._c and deal != self._deal:
            self._close()
        self._deal = deal
        self._s += place
        self._c += 1

    def _close(self) -> None:
        s, c = self._s, self._c
        self.deals_closed += 1
        self.n += c
        self.total += s
        self.s2 += s * s
        self.sn += s * c
        self.n2 += c * c
        self._s, self._c = 0.0, 0

    @property
    def matches(self) -> int:
        return self.n + self._c

    @property
    def deals(self) -> int:
        return self.deals_closed + (1 if self._c else 0)

    @property
    def mean(self) -> float | None:
        n = self.matches
        return (self.total + self._s) / n if n else None

    @property
    def half_width(self) -> float | None:
        """Half the 95% interval of the mean (None below two deals)."""
        d, n, mean = self.deals, self.matches, self.mean
        if d < 2 or mean is None:
            return None
        s, c = self._s, self._c
        # sum over deals of (S - mean n)^2, expanded over the running sums
        spread = (self.s2 + s * s) - 2 * mean * (self.sn + s * c) + mean * mean * (self.n2 + c * c)
        return Z95 * math.sqrt(d / (d - 1) * max(0.0, spread)) / n

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


def seat_effects(
    results: Iterable[tuple[Hashable, Sequence[str], Sequence[int]]],
) -> dict[int, SeatEffect]:
    """Number of seats -> the seat effect over the matches with that many seats."""
    by_k: dict[int, list[ClusteredMean]] = {}
    for deal, players, ranks in results:
        k = len(players)
        seats = by_k.setdefault(k, [ClusteredMean() for _ in range(k)])
        for seat, rank in enumerate(ranks):
            seats[seat].add(deal, rank + 1)
    return {k: SeatEffect(k, seats) for k, seats in sorted(by_k.items())}


def deal_of(definition: dict, index: int) -> int:
    """The deal a stored match was played on, from its tournament's definition and its index:
    a round robin's matches run table, deal, rotation, so the ``players`` rotations of a deal
    are consecutive; a comparison's pair ``p`` (matches ``2p`` and ``2p + 1``) is one deal."""
    size = 2 if definition.get("kind") == "compare" else int(definition.get("players") or 1)
    return index // max(1, size)
