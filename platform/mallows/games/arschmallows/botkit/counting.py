"""Card counting for an Arschmallows seat, from its observation dict only: the multiset of the
cards it has not seen (``unseen``), their mean and variance (the value of a card one cannot
see), a row's estimated total, and the normal model the call rules use (``_phi``).
"""

from __future__ import annotations

import math
from collections import Counter

from mallows.games.arschmallows.cards import COUNTS, EXCHANGE, PLAY_TWICE, SPY

ACTION_SET = frozenset((SPY, EXCHANGE, PLAY_TWICE))
DECK_MEAN = sum(v * k for v, k in COUNTS.items()) / sum(COUNTS.values())


def unseen(obs: dict) -> Counter:
    """Value -> copies of the cards this seat has not seen (never negative)."""
    left = Counter(COUNTS)
    for row in obs["rows"]:
        for slot in row:
            v = slot["value"]
            if v is not None:
                left[v] -= 1
    for v in obs["discard"]:
        left[v] -= 1
    held = obs.get("held")
    if held is not None:
        left[held["value"]] -= 1
    return +left  # drops zero (and, on a malformed observation, negative) counts


def expected_unknown(obs: dict, pool: Counter | None = None) -> float:
    """The mean value of the unseen cards (the deck's mean if, oddly, none are unseen)."""
    pool = unseen(obs) if pool is None else pool
    total = sum(pool.values())
    if not total:
        return DECK_MEAN
    return sum(v * k for v, k in pool.items()) / total


def variance_unknown(obs: dict, pool: Counter | None = None) -> float:
    pool = unseen(obs) if pool is None else pool
    total = sum(pool.values())
    if not total:
        return 16.0
    mean = sum(v * k for v, k in pool.items()) / total
    return sum(k * (v - mean) ** 2 for v, k in pool.items()) / total


def row_estimate(row: list[dict], e: float) -> float:
    """The row's total, unknown cards valued at ``e``."""
    return sum(e if s["value"] is None else s["value"] for s in row)


def face_down(row: list[dict]) -> list[int]:
    return [i for i, s in enumerate(row) if not s["face_up"]]


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))
