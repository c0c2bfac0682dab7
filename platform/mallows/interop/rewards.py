"""A seat's reward from a finished match: its final place mapped onto [-1, 1].

``place_reward(ranks, seat)``: ``1 - 2 * rank / (players - 1)`` (first +1, last -1, ties share
the better place's reward, as ``competition_ranks`` shares the place). The environments hand it
out once, at the end; every other step is worth 0.
"""

from __future__ import annotations

from collections.abc import Sequence


def place_reward(ranks: Sequence[int], seat: int) -> float:
    players = len(ranks)
    if players < 2:
        return 0.0
    return 1.0 - 2.0 * float(ranks[seat]) / (players - 1)
