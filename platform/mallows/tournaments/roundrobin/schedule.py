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

The seat orders, match specs and seeds are the shared seating (``tournaments.seating``).

A ``Schedule`` is never a list: ``index -> (table, deal, rotation)`` is arithmetic and
``table -> subset`` unranks the table's k-subset in the combinatorial number system, so
``schedule[i]`` costs O(n) whatever the tournament's size, iterating costs O(1) per match, and
memory does not grow with the number of matches. ``Schedule.specs(indices)`` turns any
increasing stream of indices (e.g. the ones a store is missing) into specs, lazily.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from itertools import combinations, islice
from typing import TYPE_CHECKING, overload

from mallows import seeding
from mallows.tournaments.seating import (
    SCHEDULE_VERSION,
    SCHEDULE_VERSIONS,
    MatchSpec,
    balanced_orders,
    deal_seed,
)

if TYPE_CHECKING:
    from mallows.tournaments.roundrobin.spec import Tournament


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

    @overload
    def __getitem__(self, key: int) -> MatchSpec: ...
    @overload
    def __getitem__(self, key: slice) -> list[MatchSpec]: ...
    def __getitem__(self, key: int | slice) -> MatchSpec | list[MatchSpec]:
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

    def __eq__(self, other: object) -> bool:
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
    bots: Iterable[str], players: int, deals: int, seed: int, version: int = SCHEDULE_VERSION
) -> Schedule:
    return Schedule(bots, players, deals, seed, version)


def schedule(tournament: Tournament) -> Schedule:
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
