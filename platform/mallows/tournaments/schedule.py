"""Scheduling: a tournament -> its matches in order, produced on demand. Pure: no I/O, no clock.

Round robin in duplicate format:

- a *table* is a k-subset of the bots (k = ``players``), in ``itertools.combinations`` order
  over the file's bot order; table t is the t-th subset;
- every table plays ``deals`` deals; deal d seats the table's bots in a cyclic *order* and is
  played in every cyclic rotation of it (rotation r seats ``ordered[r:] + ordered[:r]``), so
  each bot sits in each seat exactly once per deal and the luck of the deal cancels out;
- the order (schedule version 3, the default) is ``balanced_orders(k)[d % len]`` applied to
  the subset: a set of cyclic orders in which every ordered pair of the table's bots sits at
  every seat distance (b one, two, ... seats after a) equally often, so neither who plays
  after whom nor who sits opposite whom follows the file's order. Version 2 balanced
  neighbours only (at 2 to 5 seats that is every distance too, and its orders are version
  3's; at 6 seats it is not); version 1 always used the subset's own order. A stored
  tournament keeps its version, so it resumes byte for byte. Two seats: one order, the same in
  every version;
- schedule order is table, then deal, then rotation; ``index`` counts matches in that order and
  the match id is ``"<tournament name>/<index>"``;
- the seed of a match is ``seeding.child_seed(tournament seed, table * deals + deal)``: it depends
  only on the tournament seed and the (table, deal) place in the schedule, never on the rotation
  or the order (so every rotation of a table plays the same deals, in both versions) nor on how
  or where matches run. With ``secret = true`` it is ``Chance.match_seed(tournament seed,
  place)``, keyed with the tournament's secret key: one published match seed says nothing
  about another.

Every bot sits in every seat ``C(n - 1, k - 1) * deals`` times.

The balanced sets (``neighbour_orders``, version 2's, and version 3's at k < 6): for k odd, k - 1 orders with every ordered pair
adjacent exactly once (a Hamiltonian decomposition of the complete directed graph: the
smallest possible); for k even, 2(k - 1) orders with every ordered pair adjacent exactly twice.
For k = 4 and 6 that is the smallest possible (no decomposition with each pair once exists
there, Tillson 1980); k = 4's six are all its cyclic orders. For even k >= 8 (no game has so
many seats) a set of k - 1 exists but is not built: the set here is twice that. A table whose
``deals`` is not a multiple of the set's size uses the first ``deals % size`` orders once more
than the others; ``adjacency_imbalance(k, deals)`` says by how many deals that leaves one
ordered pair ahead of another (at most 1 for odd k, 2 for even k; 0 for a multiple). Version 3
at 6 seats: ``EVERY_DISTANCE_6``, 20 orders, every ordered pair at every distance 4 times;
``distance_imbalance(k, deals)`` is the worst spread over the distances (at most 3 for 6
seats, 0 on a multiple of 20).

A ``Schedule`` is never a list: ``index -> (table, deal, rotation)`` is arithmetic and
``table -> subset`` unranks the table's k-subset in the combinatorial number system, so
``schedule[i]`` costs O(n) whatever the tournament's size, iterating costs O(1) per match, and
memory does not grow with the number of matches. ``Schedule.specs(indices)`` turns any
increasing stream of indices (e.g. the ones a store is missing) into specs, lazily.

Comparisons (``mallows compare``) seat their pairs with ``pair_seats``: version 2 and later
cycle the tested bot and its opponents through the same balanced orders (their version's).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations, islice

from mallows import seeding

#: The schedule a new tournament or comparison gets; a stored one keeps the version it was
#: started with (its definition's ``schedule`` key; absent: 1).
SCHEDULE_VERSION = 3
#: 1: every deal of a table in the subset's own order (the file's order); 2: orders balanced
#: for neighbours; 3: orders balanced at every seat distance (differs from 2 at 6 seats only).
SCHEDULE_VERSIONS = (1, 2, 3)

#: Schedule 3's orders of 6 seats: every ordered pair of positions at every seat distance
#: (1 to 5 seats after it, cyclically) in exactly 4 of the 20. They are the orbit of the cyclic
#: order (0, 1, 2, 4, 3, 5) under PSL(2, 5) acting on the projective line over F_5 (a group
#: that is 2-transitive on the 6 points, so every ordered pair is equally often in each
#: relative place; its 60 images are 20 cyclic orders, each 3 times), relabelled so that the
#: first is the identity and put in an order that keeps every prefix within 3 deals of
#: balance at every distance. No smaller set exists among sets of 10 (a search found none);
#: 20 is what the group gives.
EVERY_DISTANCE_6 = (
    (0, 1, 2, 3, 4, 5),
    (0, 1, 4, 2, 5, 3),
    (0, 2, 4, 1, 3, 5),
    (0, 2, 1, 5, 4, 3),
    (0, 3, 1, 4, 5, 2),
    (0, 3, 5, 1, 2, 4),
    (0, 1, 3, 2, 5, 4),
    (0, 4, 2, 3, 1, 5),
    (0, 5, 2, 4, 3, 1),
    (0, 4, 3, 5, 2, 1),
    (0, 5, 3, 2, 1, 4),
    (0, 1, 5, 3, 4, 2),
    (0, 2, 3, 5, 4, 1),
    (0, 2, 5, 1, 3, 4),
    (0, 3, 2, 4, 5, 1),
    (0, 4, 1, 5, 2, 3),
    (0, 4, 5, 3, 1, 2),
    (0, 3, 4, 1, 2, 5),
    (0, 5, 1, 4, 3, 2),
    (0, 5, 4, 2, 1, 3),
)


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
def balanced_orders(k: int, version: int = SCHEDULE_VERSION) -> tuple[tuple[int, ...], ...]:
    """The cyclic orders of schedule ``version`` (2 or later) for ``k`` seats: version 2's
    (``neighbour_orders``) but at 6 seats from version 3 on, where those balance neighbours
    only, ``EVERY_DISTANCE_6``. For 2 to 5 seats version 2's orders already hold every ordered
    pair at every seat distance equally often (``distance_counts``)."""
    if k == 6 and version >= 3:
        return EVERY_DISTANCE_6
    return neighbour_orders(k)


@cache
def neighbour_orders(k: int) -> tuple[tuple[int, ...], ...]:
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


def distance_counts(k: int, deals: int, distance: int = 1, version: int = 2) -> Counter:
    """(a, b) -> the number of a table's ``deals`` deals in which position b sits ``distance``
    seats after position a, cyclically (1: directly after it), under schedule ``version``."""
    orders = balanced_orders(k, version)
    counts: Counter = Counter({(a, b): 0 for a in range(k) for b in range(k) if a != b})
    full, rest = divmod(deals, len(orders))
    for j, order in enumerate(orders):
        times = full + (j < rest)
        for i in range(k):
            counts[(order[i], order[(i + distance) % k])] += times
    return counts


def adjacency_counts(k: int, deals: int, version: int = 2) -> Counter:
    """(a, b) -> the number of a table's ``deals`` deals in which position a sits directly
    before position b."""
    return distance_counts(k, deals, 1, version)


def distance_imbalance(k: int, deals: int, version: int = SCHEDULE_VERSION) -> int:
    """How many deals more the most often ordered pair of a table's bots gets than the least
    often one at any one seat distance, in a table of ``deals`` deals (0: exactly balanced,
    which a multiple of ``len(balanced_orders(k, version))`` is for every k at version 3)."""
    worst = 0
    for distance in range(1, k):
        values = distance_counts(k, deals, distance, version).values()
        worst = max(worst, max(values) - min(values))
    return worst


def adjacency_imbalance(k: int, deals: int, version: int = 2) -> int:
    """How many deals more the most often adjacent ordered pair of a table's bots gets than the
    least often one, in a table of ``deals`` deals (0: exactly balanced, which a multiple of
    ``len(balanced_orders(k, version))`` always is)."""
    if k <= 2:
        return 0
    values = adjacency_counts(k, deals, version).values()
    return max(values) - min(values)


def pair_seats(
    tested: str, opponents: Sequence[str], k: int, p: int, version: int
) -> tuple[str, ...]:
    """The seats of pair ``p`` of a comparison with ``k > 2`` seats, ``tested`` (A or B) in
    the seat under test ``p % k``.

    Version 1: the other seats hold ``k - 1`` consecutive opponents from position ``p`` of the
    list, cyclically, in that order from seat 0 on. Version 2 and 3: the opponents are ``k - 1``
    consecutive ones from position ``(p // (k * L)) % len(opponents)`` (L =
    ``len(balanced_orders(k))``), and the table -- the tested bot, then those opponents --
    sits in cyclic order ``(p // k) % L`` of ``balanced_orders(k)``, rotated to put the tested
    bot in the seat under test: every ``k * L`` pairs each ordered pair of the table's bots
    is adjacent equally often, the tested bot in every seat, and every ``k * L * m`` pairs
    (m = ``len(opponents)``) the tested bot has every opponent directly before and after it
    equally often (version 3: at every seat distance)."""
    s, m = p % k, len(opponents)
    if version == 1:
        others = [opponents[(p + j) % m] for j in range(k - 1)]
        return tuple(others[:s] + [tested] + others[s:])
    orders = balanced_orders(k, version)
    order = orders[(p // k) % len(orders)]
    w = (p // (k * len(orders))) % m
    table = [tested] + [opponents[(w + j) % m] for j in range(k - 1)]
    ordered = [table[i] for i in order]  # starts with the tested bot
    return tuple(ordered[(i - s) % k] for i in range(k))


def unrank_subset(items: tuple, k: int, rank: int) -> tuple:
    """The ``rank``-th k-subset of ``items`` in ``itertools.combinations`` (lexicographic)
    order, without producing the ones before it."""
    n = len(items)
    if not 0 <= rank < math.comb(n, k):
        raise IndexError(f"subset {rank} out of range for C({n}, {k})")
    out, start = [], 0
    for left in range(k, 0, -1):  # ``left`` members still to choose
        for c in range(start, n):
            count = math.comb(n - c - 1, left - 1)  # subsets whose next member is items[c]
            if rank < count:
                out.append(items[c])
                start = c + 1
                break
            rank -= count
    return tuple(out)


class Schedule:
    """The matches of a round robin, in schedule order, computed on demand (a read-only
    sequence: ``len``, ``[i]``, ``[a:b]``, iteration)."""

    def __init__(
        self,
        bots: Iterable[str],
        players: int,
        deals: int,
        seed: int,
        version: int = SCHEDULE_VERSION,
        chance: seeding.Chance | None = None,
    ):
        self.bots = tuple(bots)
        self.players, self.deals, self.seed, self.version = players, deals, seed, version
        self.chance = chance  # with secret deals: the match seeds are keyed
        if players < 1 or deals < 1 or len(self.bots) < players:
            raise ValueError("need players >= 1, deals >= 1 and at least `players` bots")
        if version not in SCHEDULE_VERSIONS:
            raise ValueError(
                f"schedule version {version!r} is not one of "
                f"{', '.join(map(str, SCHEDULE_VERSIONS))}"
            )
        self.tables = math.comb(len(self.bots), players)
        self.per_table = deals * players
        self.orders = (
            balanced_orders(players, version) if version >= 2 else (tuple(range(players)),)
        )
        # ((table, deal), seed, order number, the subset in that order) of the last spec made
        self._deal_at: tuple = (None, 0, 0, ())

    def __len__(self) -> int:
        return self.tables * self.per_table

    def _spec(self, index: int, table: int, subset: tuple) -> MatchSpec:
        deal, rotation = divmod(index - table * self.per_table, self.players)
        if self._deal_at[0] != (table, deal):  # the rotations of a deal share these
            order = deal % len(self.orders)
            self._deal_at = (
                (table, deal),
                deal_seed(self.seed, table, deal, self.deals, self.chance),
                order,
                tuple(subset[i] for i in self.orders[order]),
            )
        _, seed, order, ordered = self._deal_at
        return MatchSpec(
            index,
            table,
            subset,
            rotation,
            deal,
            ordered[rotation:] + ordered[:rotation],
            seed,
            order,
        )

    def __getitem__(self, key):
        if isinstance(key, slice):
            return list(self.specs(range(len(self))[key]))
        index = int(key)
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"match {key} out of range: the schedule has {len(self)}")
        table = index // self.per_table
        return self._spec(index, table, unrank_subset(self.bots, self.players, table))

    def __iter__(self) -> Iterator[MatchSpec]:
        return self.specs(range(len(self)))

    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]:
        """The specs of ``indices`` (any order; consecutive indices of one table share the
        table's subset, and a walk forward through the tables reuses ``combinations``)."""
        subsets: Iterator[tuple[str, ...]] = combinations(self.bots, self.players)
        subset: tuple[str, ...] = ()
        at_table = -1
        for index in indices:
            if not 0 <= index < len(self):
                raise IndexError(f"match {index} out of range: the schedule has {len(self)}")
            table = index // self.per_table
            if table != at_table:
                if at_table < table <= at_table + 64:  # near ahead: step the iterator
                    subset = next(islice(subsets, table - at_table - 1, None))
                else:  # far or behind: unrank, then step on
                    subset = unrank_subset(self.bots, self.players, table)
                    subsets = combinations(self.bots, self.players)
                    subsets = _from(subsets, self.bots, self.players, subset)
                at_table = table
            yield self._spec(index, table, subset)

    def __eq__(self, other) -> bool:
        if isinstance(other, Schedule):
            return (self.bots, self.players, self.deals, self.seed, self.version) == (
                other.bots,
                other.players,
                other.deals,
                other.seed,
                other.version,
            )
        if isinstance(other, list):
            return len(other) == len(self) and list(self) == other
        return NotImplemented

    def __repr__(self) -> str:
        return (
            f"Schedule({len(self.bots)} bots, {self.players} players, {self.deals} deals, "
            f"version {self.version}: {len(self):,} matches)"
        )


def _from(subsets: Iterator[tuple], bots: tuple, k: int, subset: tuple) -> Iterator[tuple]:
    """The combinations after ``subset`` (lexicographic successor steps, no earlier ones)."""
    n = len(bots)
    pos = [bots.index(b) for b in subset]
    while True:
        i = k - 1
        while i >= 0 and pos[i] == i + n - k:
            i -= 1
        if i < 0:
            return
        pos[i] += 1
        for j in range(i + 1, k):
            pos[j] = pos[j - 1] + 1
        yield tuple(bots[p] for p in pos)


def make_schedule(
    bots, players: int, deals: int, seed: int, version: int = SCHEDULE_VERSION
) -> Schedule:
    return Schedule(bots, players, deals, seed, version)


def schedule(tournament) -> Schedule:
    """The matches of a ``Tournament``, in schedule order, under its schedule version. A
    ``secret = true`` tournament's match seeds are its seed and place keyed with its secret
    (``seeding.Chance.match_seed``), so it must hold its key (``tournaments.secrecy.settle``)."""
    chance = getattr(tournament, "chance", None)
    if getattr(tournament, "secret", False) and not (chance and chance.secret_deals):
        raise RuntimeError(
            f"tournament {tournament.name!r} has secret deals: its schedule "
            f"needs its key (tournaments.secrecy.settle) first"
        )
    return Schedule(
        tournament.bots,
        tournament.players,
        tournament.deals,
        tournament.seed,
        tournament.schedule,
        chance,
    )


def stored_version(definition: dict | None) -> int | None:
    """The schedule version of a stored definition (None: nothing stored). A definition
    written before versions existed has no ``schedule`` key: version 1."""
    if definition is None:
        return None
    return int(definition.get("schedule", 1))
