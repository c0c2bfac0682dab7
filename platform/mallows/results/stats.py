"""Place statistics: pure functions from results to means with their uncertainty. No I/O.

A result is ``(players, ranks)`` as in ``mallows.results.ratings`` (0-based competition ranks,
forfeits placed last). A place is ``rank + 1`` (1 = first).

The 95% interval of a mean place is the normal approximation ``mean +- 1.96 s / sqrt(n)`` with
``s`` the sample standard deviation of the bot's places; it needs two matches or more (None
before). Places are bounded (1..seats), so with a few dozen matches the approximation is good;
it says how far the mean could move with more deals, which is what a reader comparing two bots
needs to know.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

Z95 = 1.959963984540054


@dataclass
class PlaceStats:
    matches: int = 0
    total: float = 0.0
    squares: float = 0.0
    wins: int = 0

    def add(self, place: int) -> None:
        self.matches += 1
        self.total += place
        self.squares += place * place
        self.wins += place == 1

    def state(self) -> list:
        """The four sums as JSON-able values (``from_state`` makes them again exactly)."""
        return [self.matches, self.total, self.squares, self.wins]

    @classmethod
    def from_state(cls, state: list) -> PlaceStats:
        matches, total, squares, wins = state
        return cls(int(matches), float(total), float(squares), int(wins))

    @property
    def mean(self) -> float | None:
        return self.total / self.matches if self.matches else None

    @property
    def half_width(self) -> float | None:
        """Half the width of the 95% interval of the mean place (None below two matches)."""
        n = self.matches
        if n < 2:
            return None
        variance = max(0.0, (self.squares - self.total * self.total / n) / (n - 1))
        return Z95 * math.sqrt(variance / n)

    @property
    def interval(self) -> tuple[float, float] | None:
        h, m = self.half_width, self.mean
        return None if h is None or m is None else (m - h, m + h)

    def text(self, digits: int = 2) -> str:
        """``2.31 ± 0.08`` (``-`` with no match, the mean alone with one)."""
        if not self.matches:
            return "-"
        h = self.half_width
        return f"{self.mean:.{digits}f}" + ("" if h is None else f" ± {h:.{digits}f}")


def add_places(
    out: dict[str, PlaceStats] | None,
    seats: dict[str, dict[int, PlaceStats]] | None,
    players: Sequence[str],
    ranks: Sequence[int],
) -> None:
    """Count one result into ``out`` (bot -> its places) and into ``seats`` (bot -> seat ->
    its places from that seat), each unless None."""
    for seat, (name, rank) in enumerate(zip(players, ranks)):
        if out is not None:
            stats = out.get(name)
            if stats is None:
                stats = out[name] = PlaceStats()
            stats.add(rank + 1)
        if seats is not None:
            by_seat = seats.setdefault(name, {})
            at = by_seat.get(seat)
            if at is None:
                at = by_seat[seat] = PlaceStats()
            at.add(rank + 1)


def place_stats(results: Iterable[tuple[Sequence[str], Sequence[int]]]) -> dict[str, PlaceStats]:
    """Bot -> its places over ``results``."""
    out: dict[str, PlaceStats] = {}
    for players, ranks in results:
        add_places(out, None, players, ranks)
    return out


def seat_stats(
    results: Iterable[tuple[Sequence[str], Sequence[int]]],
) -> dict[str, dict[int, PlaceStats]]:
    """Bot -> seat -> its places from that seat."""
    out: dict[str, dict[int, PlaceStats]] = {}
    for players, ranks in results:
        add_places(None, out, players, ranks)
    return out
