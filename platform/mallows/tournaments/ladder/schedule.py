"""A ladder's schedule: epochs of tables, planned one at a time. Pure: no I/O, no clock, no
global randomness (every draw comes from ``random.Random(child_seed(seed, epoch))``).

A ladder is open-ended, so its schedule is not one fixed list: it is planned an *epoch* at a
time, from the ladder's seed, the epoch's number and the state the stored matches and events
give at the epoch's start (the field, the newcomers, the extra tables the open questions ask
for). Planning is deterministic, every planned epoch is stored before it is played, and the
next one is planned only when every match of the one before is stored: a ladder killed at any
moment and resumed plays the very schedule one never stopped plays.

An epoch's tables, each with the reason it was scheduled (stored with it: a later fit can
account for the design):

- **base** (``base``): the field shuffled and cut into tables of ``players`` (the last one
  filled with bots drawn from the rest, so everyone plays at least once), ``passes`` times; a
  gauntlet's base seats each challenger with ``players - 1`` of the field, cycling through a
  shuffled field so that each challenger meets every field bot once an epoch;
- **newcomer** (``newcomer:NAME``): more tables for a newcomer whose place is not known yet
  (``rate - 1`` a pass: its boosted rate), the others drawn from the field;
- **extra** (``extra:QUESTION``): the tables the open questions ask for
(``mallows.tournaments.ladder.
  policy.extra_tables``), seated here.

Each table plays ``deals`` deals in duplicate, as the round robin does (``tournaments.
schedule``): deal d seats the table's bots in cyclic order ``balanced_orders(k)[(tbl + d) %
L]`` and is played in every rotation of it, so every bot sits in every seat once a deal, the
luck of the deal cancels, and over a table's deals (or, with one deal a table, over the tables)
every ordered pair of neighbours comes up equally often. Match seeds are
``chance.match_seed(seed, tbl * deals + d)`` (keyed with the ladder's secret key).

``LadderSchedule`` makes the planned tables a ``ScheduleLike`` for ``tournaments.run.execute``:
``len`` is the number of matches planned so far and ``specs(indices)`` the ``MatchSpec`` of each.
"""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence

from mallows import seeding
from mallows.tournaments.seating import MatchSpec, balanced_orders


@dataclass(frozen=True)
class Table:
    tbl: int  # the ladder's table number (0, 1, ...)
    first: int  # the index of its first match
    bots: tuple[str, ...]  # the bots in the order of deal 0, rotation 0
    reason: str  # "base", "newcomer:NAME", "extra:QUESTION", "finals:N"
    count: int  # matches: deals x players

    def as_row(self) -> dict:
        return {
            "tbl": self.tbl,
            "first": self.first,
            "bots": list(self.bots),
            "reason": self.reason,
            "count": self.count,
        }


def epoch_rng(seed: int, epoch: int) -> random.Random:
    return random.Random(seeding.child_seed(seed, epoch))


def base_tables(
    rng: random.Random, field: Sequence[str], k: int, passes: int = 1
) -> list[tuple[str, ...]]:
    """``passes`` shuffles of ``field`` cut into tables of ``k`` (every bot at least once a
    pass; the last table of a pass topped up with bots drawn from the others)."""
    out: list[tuple[str, ...]] = []
    if len(field) < k:
        return out
    for _ in range(passes):
        order = list(field)
        rng.shuffle(order)
        for start in range(0, len(order), k):
            table = order[start : start + k]
            if len(table) < k:
                rest = [b for b in order if b not in table]
                table += rng.sample(rest, k - len(table))
            out.append(tuple(table))
    return out


def gauntlet_tables(
    rng: random.Random, challengers: Sequence[str], field: Sequence[str], k: int, passes: int = 1
) -> list[tuple[str, ...]]:
    """Each challenger with ``k - 1`` field bots a table, through a shuffled field (every
    field bot once a pass, the last table topped up), the challenger's seat shuffled too."""
    out: list[tuple[str, ...]] = []
    for challenger in challengers:
        for _ in range(passes):
            order = [b for b in field if b != challenger]
            rng.shuffle(order)
            for start in range(0, len(order), k - 1):
                others = order[start : start + k - 1]
                if len(others) < k - 1:
                    others += rng.sample([b for b in order if b not in others], k - 1 - len(others))
                table = [challenger] + others
                rng.shuffle(table)
                out.append(tuple(table))
    return out


def newcomer_tables(
    rng: random.Random, newcomer: str, field: Sequence[str], k: int, count: int
) -> list[tuple[str, ...]]:
    """``count`` tables of ``newcomer`` and ``k - 1`` others drawn from ``field``."""
    others = [b for b in field if b != newcomer]
    out = []
    for _ in range(count):
        if len(others) < k - 1:
            break
        table = [newcomer] + rng.sample(others, k - 1)
        rng.shuffle(table)
        out.append(tuple(table))
    return out


def plan_epoch(
    seed: int,
    epoch: int,
    first: int,
    first_table: int,
    field: Sequence[str],
    k: int,
    deals: int,
    *,
    challengers: Sequence[str] = (),
    passes: int = 1,
    boosted: Sequence[tuple[str, int]] = (),
    extra: Sequence[tuple[Sequence[str], str]] = (),
) -> list[Table]:
    """The tables of epoch ``epoch`` (matches from index ``first``, tables numbered from
    ``first_table``): the base over ``field`` (a gauntlet: ``challengers`` against it), then
    ``count`` more tables for each ``(newcomer, count)`` of ``boosted``, then the ``extra``
    tables (bots, reason) the open questions ask for, in their order."""
    rng = epoch_rng(seed, epoch)
    planned: list[tuple[tuple[str, ...], str]] = []
    if challengers:
        planned += [(t, "base") for t in gauntlet_tables(rng, challengers, field, k, passes)]
    else:
        planned += [(t, "base") for t in base_tables(rng, field, k, passes)]
    for bot, count in boosted:
        planned += [
            (t, f"newcomer:{bot}") for t in newcomer_tables(rng, bot, field, k, max(0, int(count)))
        ]
    for bots, reason in extra:
        table = list(bots)[:k]
        if len(table) < k or len(set(table)) < k:
            continue  # a question's table needs k different bots
        rng.shuffle(table)
        planned.append((tuple(table), reason))
    out, index = [], first
    for n, (bots, reason) in enumerate(planned):
        out.append(Table(first_table + n, index, bots, reason, deals * k))
        index += deals * k
    return out


class LadderSchedule:
    """The planned tables as a schedule (``tournaments.plan.ScheduleLike``)."""

    def __init__(
        self,
        tables: Iterable[Table],
        players: int,
        deals: int,
        seed: int,
        chance: seeding.Chance | None = None,
    ) -> None:
        self.tables = sorted(tables, key=lambda t: t.first)
        self.players, self.deals, self.seed = players, deals, seed
        self.chance = chance if chance is not None else seeding.UNKEYED
        self.orders = balanced_orders(players)
        self._firsts = [t.first for t in self.tables]

    def __len__(self) -> int:
        return self.tables[-1].first + self.tables[-1].count if self.tables else 0

    def table_of(self, index: int) -> Table:
        at = bisect.bisect_right(self._firsts, index) - 1
        if at < 0 or not 0 <= index - self.tables[at].first < self.tables[at].count:
            raise IndexError(f"match {index} is in no planned table of this ladder")
        return self.tables[at]

    def spec(self, index: int) -> MatchSpec:
        t = self.table_of(index)
        deal, rotation = divmod(index - t.first, self.players)
        order_no = (t.tbl + deal) % len(self.orders)
        ordered = tuple(t.bots[i] for i in self.orders[order_no])
        seed = self.chance.match_seed(self.seed, t.tbl * self.deals + deal)
        return MatchSpec(
            index,
            t.tbl,
            t.bots,
            rotation,
            deal,
            ordered[rotation:] + ordered[:rotation],
            seed,
            order_no,
        )

    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]:
        for index in indices:
            yield self.spec(index)

    def __iter__(self) -> Iterator[MatchSpec]:
        return self.specs(range(len(self)))
