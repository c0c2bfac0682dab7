"""Arschmallows' rulings that are pure arithmetic, as functions with no state of their own.

Owns: a round's scoring with the caller rules (``score_round``), the round's winners, the next
round's starting seat (``next_starter``) and the game's ranking (``final_ranks``). The rulings
these implement are in RULES.md, section numbers cited; the rule sets and options are in
``options.py``; ``state.py`` strings the rulings together turn by turn.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from mallows.games.base import competition_ranks


def score_round(raw: Sequence[int], caller: int | None, options: Mapping) -> tuple[list[int], bool]:
    """Round scores after the caller rule (RULES.md 1.14), and whether the caller was doubled.

    The caller is doubled when its score is not strictly below every other seat's (with
    ``caller_strictly_lowest`` false, a tie with the lowest counts as lowest), unless the score
    is zero or negative and ``double_negative`` is false.
    """
    scores = list(raw)
    if caller is None:
        return scores, False
    mine = raw[caller]
    others = [v for s, v in enumerate(raw) if s != caller]
    lowest = min(others)
    is_lowest = mine < lowest if options["caller_strictly_lowest"] else mine <= lowest
    if is_lowest or (mine <= 0 and not options["double_negative"]):
        return scores, False
    scores[caller] = 2 * mine
    return scores, True


def round_winners(scores: Sequence[int]) -> list[int]:
    low = min(scores)
    return [s for s, v in enumerate(scores) if v == low]


def next_starter(scores: Sequence[int], totals: Sequence[int], start: int, options: Mapping) -> int:
    """The next round's starting seat (RULES.md 1.15): the highest round score after doubling
    (``highest_round``) or highest total (``highest_total``); a tie goes to the first of the
    tied seats counting clockwise from this round's starting seat, that seat included."""
    by = scores if options["next_starter"] == "highest_round" else totals
    n = len(by)
    best = max(by)
    for k in range(n):
        seat = (start + k) % n
        if by[seat] == best:
            return seat
    raise AssertionError("unreachable")


def final_ranks(
    totals: Sequence[int], round_wins: Sequence[int], forfeits: Sequence[str | None]
) -> list[int]:
    """Lowest total first; then more round wins; still tied: a shared place (RULES.md 1.16)."""
    return competition_ranks([(t, -w) for t, w in zip(totals, round_wins)], forfeits)
