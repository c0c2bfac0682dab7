"""Scheduling: a tournament -> the ordered list of its matches. Pure: no I/O, no clock.

Round robin in duplicate format:

- a *table* is a k-subset of the bots (k = ``players``), in ``itertools.combinations`` order
  over the file's bot order; table t is the t-th subset;
- every table plays ``deals`` deals; every deal is played in every cyclic seat rotation of the
  table (rotation r seats ``subset[r:] + subset[:r]``), so each bot sits in each seat exactly
  once per deal and the luck of the deal cancels out;
- schedule order is table, then deal, then rotation; ``index`` counts matches in that order and
  the match id is ``"<tournament name>/<index>"``;
- the seed of a match is ``seeding.child_seed(tournament seed, table * deals + deal)``: it depends
  only on the tournament seed and the (table, deal) place in the schedule, never on the rotation
  (so every rotation of a table plays the same deals) nor on how or where matches run.

Every bot sits in every seat ``C(n - 1, k - 1) * deals`` times.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from mallows import seeding


@dataclass(frozen=True)
class MatchSpec:
    index: int
    table: int
    subset: tuple[str, ...]
    rotation: int
    deal: int
    seats: tuple[str, ...]  # bot name by seat
    seed: int

    def match_id(self, tournament: str) -> str:
        return match_id(tournament, self.index)


def match_id(tournament: str, index: int) -> str:
    return f"{tournament}/{index}"


def deal_seed(tournament_seed: int, table: int, deal: int, deals: int) -> int:
    return seeding.child_seed(tournament_seed, table * deals + deal)


def make_schedule(bots, players: int, deals: int, seed: int) -> list[MatchSpec]:
    bots = tuple(bots)
    if players < 1 or deals < 1 or len(bots) < players:
        raise ValueError("need players >= 1, deals >= 1 and at least `players` bots")
    out: list[MatchSpec] = []
    for table, subset in enumerate(combinations(bots, players)):
        for deal in range(deals):
            s = deal_seed(seed, table, deal, deals)
            for rotation in range(players):
                seats = subset[rotation:] + subset[:rotation]
                out.append(MatchSpec(len(out), table, subset, rotation, deal, seats, s))
    return out


def schedule(tournament) -> list[MatchSpec]:
    """The matches of a ``Tournament``, in schedule order."""
    return make_schedule(tournament.bots, tournament.players, tournament.deals, tournament.seed)
