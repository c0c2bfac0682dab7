"""A simulated field of known strengths, for checking ratings and ladder policies. Pure: every
draw comes from the ``random.Random`` passed in.

A bot's performance in a match is its skill plus Gaussian luck (a Thurstone model, the one
TrueSkill assumes); places follow the performances, and performances that round to the same
multiple of ``tie`` share a place (competition ranks, as the records give them), so ties occur
as they do in both games. ``kendall_tau`` scores an order against the truth.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Sequence


@dataclass(frozen=True)
class Field:
    skills: dict[str, float]
    luck: float = 6.0  # the sd of a performance's luck
    tie: float = 0.0  # performances rounding to the same multiple share a place (0: none)

    def truth(self) -> list[str]:
        """Best first (ties in skill broken by name)."""
        return sorted(self.skills, key=lambda b: (-self.skills[b], b))

    def play(self, bots: Sequence[str], rng: random.Random) -> list[int]:
        """0-based competition ranks of ``bots`` (by seat) in one simulated match."""
        perf = [self.skills[b] + rng.gauss(0.0, self.luck) for b in bots]
        if self.tie > 0:
            perf = [math.floor(p / self.tie) for p in perf]
        return [sum(1 for q in perf if q > p) for p in perf]


def even_field(
    n: int, spread: float = 3.0, luck: float = 6.0, tie: float = 0.0, prefix: str = "bot"
) -> Field:
    """``n`` bots with evenly spaced skills whose standard deviation is ``spread``; the best is
    ``{prefix}00``."""
    if n < 2:
        raise ValueError(f"a field needs 2 or more bots, got {n}")
    mean = (n - 1) / 2
    sd = math.sqrt(sum((i - mean) ** 2 for i in range(n)) / n)
    width = len(str(n - 1))
    skills = {f"{prefix}{i:0{max(width, 2)}d}": (mean - i) / sd * spread for i in range(n)}
    return Field(skills, luck, tie)


def balanced_round(bots: Sequence[str], seats: int, rng: random.Random) -> list[list[str]]:
    """One round of balanced tables: a shuffled field cut into tables, so every bot plays
    once (a field that does not divide into tables tops the last one up from the start of
    the next shuffle, never seating a bot twice)."""
    order = list(bots)
    rng.shuffle(order)
    tables = [order[i : i + seats] for i in range(0, len(order) - len(order) % seats, seats)]
    left = order[len(order) - len(order) % seats :]
    if left:
        extra = [b for b in order if b not in left]
        rng.shuffle(extra)
        tables.append(left + extra[: seats - len(left)])
    return tables


def kendall_tau(order: Sequence[str], truth: Sequence[str]) -> float:
    """Kendall's tau between two orders of the same bots (1: the same, -1: reversed)."""
    pos = {b: i for i, b in enumerate(order)}
    items = [b for b in truth if b in pos]
    n = len(items)
    if n < 2:
        return 1.0
    concordant = sum(1 for i in range(n) for j in range(i + 1, n) if pos[items[i]] < pos[items[j]])
    pairs = n * (n - 1) // 2
    return (2 * concordant - pairs) / pairs
