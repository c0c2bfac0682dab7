"""Seating: what every format's schedule deals in. Pure: no I/O, no clock.

A ``MatchSpec`` is one scheduled match (its index, table, deal, rotation, seats and seed);
``match_id`` names it in the store, ``deal_seed`` derives a deal's seed from a run's seed and
the deal's place (keyed with ``secret = true``). The schedule versions (``SCHEDULE_VERSION``,
``stored_version``) say which seating a stored run keeps.

The balanced sets (``balanced_orders``): for k odd, k - 1 orders with every ordered pair
adjacent exactly once (a Hamiltonian decomposition of the complete directed graph: the
smallest possible); for k even, 2(k - 1) orders with every ordered pair adjacent exactly twice.
For k = 4 and 6 that is the smallest possible (no decomposition with each pair once exists
there, Tillson 1980); k = 4's six are all its cyclic orders. For even k >= 8 (no game has so
many seats) a set of k - 1 exists but is not built: the set here is twice that. A table whose
``deals`` is not a multiple of the set's size uses the first ``deals % size`` orders once more
than the others; ``adjacency_imbalance(k, deals)`` says by how many deals that leaves one
ordered pair ahead of another (at most 1 for odd k, 2 for even k; 0 for a multiple).

Comparisons (``mallows compare``) seat their pairs with ``pair_seats``: version 2 cycles the
tested bot and its opponents through the same balanced orders.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from mallows import seeding

#: The schedule a new tournament or comparison gets; a stored one keeps the version it was
#: started with (its definition's ``schedule`` key; absent: 1).
SCHEDULE_VERSION = 2
#: 1: every deal of a table in the subset's own order (the file's order); 2: balanced orders.
SCHEDULE_VERSIONS = (1, 2)


@dataclass(frozen=True)
class MatchSpec:
    index: int
    table: int
    subset: tuple[str, ...]
    rotation: int
    deal: int
    seats: tuple[str, ...]  # bot name by seat
    seed: int
    order: int = 0  # which of the table's cyclic orders (``balanced_orders``) the deal uses

    def match_id(self, tournament: str) -> str:
        return match_id(tournament, self.index)


def match_id(tournament: str, index: int) -> str:
    return f"{tournament}/{index}"


def deal_seed(
    tournament_seed: int, table: int, deal: int, deals: int, chance: seeding.Chance | None = None
) -> int:
    place = table * deals + deal
    if chance is not None and chance.secret_deals:  # `secret = true`: keyed, one by one
        return chance.match_seed(tournament_seed, place)
    return seeding.child_seed(tournament_seed, place)


def _zigzag(m: int) -> list[int]:
    """0, 1, -1, 2, -2, ... modulo m: a path through Z_m whose steps are +1, -2, +3, -4, ..."""
    out = [0]
    for i in range(1, m):
        step = (i + 1) // 2
        out.append(step % m if i % 2 else -step % m)
    return out


@cache
def balanced_orders(k: int) -> tuple[tuple[int, ...], ...]:
    """A set of cyclic orders of the positions ``0..k-1`` (each written from position 0, the
    first being ``0, 1, ..., k-1``) in which every ordered pair of positions is adjacent --
    one directly before the other, cyclically -- equally often: once for odd k (k - 1
    orders), twice for even k (2(k - 1) orders; k <= 2: the one order).

    The construction: position 0 is a fixed point and the others are Z_m (m = k - 1). The base
    cycle is 0 followed by the zigzag path through Z_m, and cycle t adds t to every element of
    the path. For even m the path's steps are every non-zero residue once (Z_m is
    "sequenceable", Gordon 1961): the m cycles hold every ordered pair once. For odd m they are
    the odd residues twice each: the m cycles and their reverses hold every pair twice. The
    positions are then relabelled so that cycle 0 is the identity. For even k a cycle is
    followed by its reverse, so a table that stops between two pairs of orders is never more
    than 2 deals out of balance."""
    if k <= 2:
        return (tuple(range(k)),)
    m = k - 1
    path = _zigzag(m)
    label = {v: j + 1 for j, v in enumerate(path)}  # relabel: the base cycle becomes 0..k-1
    orders: list[tuple[int, ...]] = []
    for t in range(m):
        cycle = (0,) + tuple(label[(v + t) % m] for v in path)
        orders.append(cycle)
        if m % 2:  # odd m: each cycle and its reverse
            orders.append((0,) + cycle[:0:-1])
    counts = Counter((o[i], o[(i + 1) % k]) for o in orders for i in range(k))
    assert len(counts) == k * (k - 1) and len(set(counts.values())) == 1, counts
    return tuple(orders)


def adjacency_counts(k: int, deals: int) -> Counter:
    """(a, b) -> the number of a table's ``deals`` deals in which position a sits directly
    before position b (schedule version 2)."""
    orders = balanced_orders(k)
    counts: Counter = Counter({(a, b): 0 for a in range(k) for b in range(k) if a != b})
    full, rest = divmod(deals, len(orders))
    for j, order in enumerate(orders):
        times = full + (j < rest)
        for i in range(k):
            counts[(order[i], order[(i + 1) % k])] += times
    return counts


def adjacency_imbalance(k: int, deals: int) -> int:
    """How many deals more the most often adjacent ordered pair of a table's bots gets than the
    least often one, in a table of ``deals`` deals (0: exactly balanced, which a multiple of
    ``len(balanced_orders(k))`` always is)."""
    if k <= 2:
        return 0
    values = adjacency_counts(k, deals).values()
    return max(values) - min(values)


def pair_seats(
    tested: str, opponents: Sequence[str], k: int, p: int, version: int
) -> tuple[str, ...]:
    """The seats of pair ``p`` of a comparison with ``k > 2`` seats, ``tested`` (A or B) in
    the seat under test ``p % k``.

    Version 1: the other seats hold ``k - 1`` consecutive opponents from position ``p`` of the
    list, cyclically, in that order from seat 0 on. Version 2: the opponents are ``k - 1``
    consecutive ones from position ``(p // (k * L)) % len(opponents)`` (L =
    ``len(balanced_orders(k))``), and the table -- the tested bot, then those opponents --
    sits in cyclic order ``(p // k) % L`` of ``balanced_orders(k)``, rotated to put the tested
    bot in the seat under test: every ``k * L`` pairs each ordered pair of the table's bots
    is adjacent equally often, the tested bot in every seat, and every ``k * L * m`` pairs
    (m = ``len(opponents)``) the tested bot has every opponent directly before and after it
    equally often."""
    s, m = p % k, len(opponents)
    if version == 1:
        others = [opponents[(p + j) % m] for j in range(k - 1)]
        return tuple(others[:s] + [tested] + others[s:])
    orders = balanced_orders(k)
    order = orders[(p // k) % len(orders)]
    w = (p // (k * len(orders))) % m
    table = [tested] + [opponents[(w + j) % m] for j in range(k - 1)]
    ordered = [table[i] for i in order]  # starts with the tested bot
    return tuple(ordered[(i - s) % k] for i in range(k))


def stored_version(definition: dict | None) -> int | None:
    """The schedule version of a stored definition (None: nothing stored). A definition
    written before versions existed has no ``schedule`` key: version 1."""
    if definition is None:
        return None
    return int(definition.get("schedule", 1))
