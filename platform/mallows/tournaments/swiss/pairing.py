"""The pairing of a Swiss round. Pure: bot positions in, tables of positions out.

Standing: a bot's mean share of the opponents it finished ahead of (0.5 before it has played),
ties broken by a seeded draw over the file's bot order. A round seats ``len(bots) // players``
tables; the bots left over (``len(bots) % players``) sit out, chosen among those that sat out
least, lowest standing first. The tables are the first partition, in standing order (the top
bot with the next ones it may meet), in which no two bots have met before; when no such
partition exists (the search is exhaustive up to ``BUDGET`` steps), each table is filled
greedily with the bots it has met least.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

#: search steps before the fresh-partition search gives up (exhaustive for small fields)
BUDGET = 200_000

Table = tuple[int, ...]


def meetings(rounds: Iterable[Sequence[Table]]) -> Counter[tuple[int, int]]:
    """How often each pair (low position first) has shared a table."""
    met: Counter[tuple[int, int]] = Counter()
    for tables in rounds:
        for table in tables:
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    met[(min(a, b), max(a, b))] += 1
    return met


def standing_order(scores: Sequence[float], seed: int) -> list[int]:
    """Positions, best standing first; equal scores in an order drawn from ``seed``."""
    draw = list(range(len(scores)))
    random.Random(f"swiss:{seed}").shuffle(draw)
    tiebreak = {p: i for i, p in enumerate(draw)}
    return sorted(range(len(scores)), key=lambda p: (-scores[p], tiebreak[p]))


def pair_round(
    order: Sequence[int], players: int, met: Counter[tuple[int, int]], byes: Counter[int]
) -> list[Table]:
    """The tables of one round over ``order`` (best standing first), given who has met whom
    (``meetings``) and how often each position sat out."""
    sitting = len(order) % players
    if sitting:
        rank = {p: i for i, p in enumerate(order)}
        out = sorted(order, key=lambda p: (byes[p], -rank[p]))[:sitting]
        order = [p for p in order if p not in out]
    fresh = _fresh(list(order), players, met)
    return fresh if fresh is not None else _greedy(list(order), players, met)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (min(a, b), max(a, b))


def _fresh(order: list[int], players: int, met: Counter[tuple[int, int]]) -> list[Table] | None:
    steps = [0]

    def fill(left: list[int], table: list[int]) -> list[Table] | None:
        steps[0] += 1
        if steps[0] > BUDGET:
            return None
        if len(table) == players:
            rest = fill_tables(left)
            return None if rest is None else [tuple(table), *rest]
        for i, p in enumerate(left):
            if all(met[_pair(p, q)] == 0 for q in table):
                found = fill(left[:i] + left[i + 1 :], [*table, p])
                if found is not None:
                    return found
        return None

    def fill_tables(left: list[int]) -> list[Table] | None:
        return [] if not left else fill(left[1:], [left[0]])  # the top bot heads a table

    return fill_tables(order)


def _greedy(order: list[int], players: int, met: Counter[tuple[int, int]]) -> list[Table]:
    tables = []
    while order:
        table = [order.pop(0)]
        while len(table) < players:
            best = min(order, key=lambda p: sum(met[_pair(p, q)] for q in table))
            order.remove(best)
            table.append(best)
        tables.append(tuple(table))
    return tables
