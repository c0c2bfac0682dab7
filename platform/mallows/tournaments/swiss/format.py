"""The Swiss system as an epoch ``Format``: one round an epoch, planned from what is stored.

Round r seats the tables ``pairing.pair_round`` gives from the standings after rounds
``0..r-1`` (read from the store); every table plays ``deals`` deals, each in every seat
rotation, as in the round robin. Match index: round, then table, then deal, then rotation; the
deal of table t in round r is seeded as table ``r * tables + t`` (``seating.deal_seed``), so
every rotation of a table plays the same cards. ``schedule`` rebuilds the rounds that have a
stored match (at least the first), so a killed run resumes with the very tables it would have
played.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING

from mallows.results.interface import ResultStore
from mallows.agents.registry import Resolver
from mallows.tournaments import run, secrecy
from mallows.tournaments.format import check_bots
from mallows.tournaments.seating import MatchSpec, deal_seed
from mallows.tournaments.swiss.pairing import Table, meetings, pair_round, standing_order
from mallows.tournaments.swiss.spec import KIND, Swiss, load_swiss

if TYPE_CHECKING:
    from mallows.tournaments.plan import Plan

Results = Mapping[int, tuple[list[str], list[int]]]


def plan_rounds(spec: Swiss, names: tuple[str, ...], results: Results, count: int) -> list:
    """The tables (of bot positions) of rounds ``0..count-1``, each from the stored results
    (index -> (players, ranks)) of the rounds before it; ``names``: the stored names."""
    position = {n: i for i, n in enumerate(names)}
    points = [0.0] * len(names)
    played = [0] * len(names)
    rounds: list[list[Table]] = []
    byes: Counter[int] = Counter()
    per_round = spec.round_matches()
    for r in range(count):
        if r:
            for i in range(per_round * (r - 1), per_round * r):
                seated, ranks = results[i]
                for name, rank in zip(seated, ranks):
                    p = position[name]
                    points[p] += sum(other > rank for other in ranks) / (spec.players - 1)
                    played[p] += 1
        scores = [points[p] / played[p] if played[p] else 0.5 for p in range(len(names))]
        order = standing_order(scores, spec.seed)
        tables = pair_round(order, spec.players, meetings(rounds), byes)
        seated_now = {p for t in tables for p in t}
        byes.update(p for p in range(len(names)) if p not in seated_now)
        rounds.append(tables)
    return rounds


class SwissSchedule:
    """The matches of the rounds planned so far (``len`` and lazy ``specs``)."""

    def __init__(self, spec: Swiss, names: tuple[str, ...], rounds: list) -> None:
        self.spec, self.names, self.rounds = spec, names, rounds

    def __len__(self) -> int:
        return len(self.rounds) * self.spec.round_matches()

    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]:
        k, deals, tables = self.spec.players, self.spec.deals, self.spec.tables
        for i in indices:
            r, rest = divmod(i, self.spec.round_matches())
            t, rest = divmod(rest, deals * k)
            d, rotation = divmod(rest, k)
            subset = tuple(self.names[p] for p in self.rounds[r][t])
            seats = subset[rotation:] + subset[:rotation]
            seed = deal_seed(self.spec.seed, r * tables + t, d, deals, self.spec.chance)
            yield MatchSpec(i, r * tables + t, subset, rotation, d, seats, seed)


def _results(store: ResultStore, name: str) -> dict:
    return {i: (players, ranks) for i, players, ranks in store.indexed_results(name)}


class SwissFormat:
    """A fixed number of rounds of tables of similar standing (``pairing``)."""

    kind = KIND

    def load(self, path: str) -> Swiss:
        return load_swiss(path)

    def check(self, spec: Swiss, resolver: Resolver | None, sandbox: str | None) -> Swiss:
        limits, sources = check_bots(
            spec.bots, spec.game, spec.limits, spec.source, resolver, sandbox
        )
        return dataclasses.replace(spec, limits=limits, bot_sources=sources)

    def settle(self, spec: Swiss, store: ResultStore, key: bytes | None) -> Swiss:
        return secrecy.settle(store, spec, key)

    def register(self, spec: Swiss, store: ResultStore) -> bool:
        return run.register(store, spec)

    def schedule(self, spec: Swiss, shown: Mapping[str, str], store: ResultStore) -> SwissSchedule:
        """The rounds with a stored match (at least the first)."""
        names = tuple(shown.get(b, b) for b in spec.bots)
        results = _results(store, spec.name)
        count = max(1, -(-(max(results, default=-1) + 1) // spec.round_matches()))
        return SwissSchedule(spec, names, plan_rounds(spec, names, results, count))

    def stop_rule(self, spec: Swiss, store: ResultStore) -> None:
        return None

    def next_tables(self, plan: Plan, store: ResultStore) -> SwissSchedule | None:
        schedule = plan.schedule
        if not isinstance(schedule, SwissSchedule):
            raise TypeError(f"plan {plan.name!r} is not a Swiss system's")
        count = len(schedule.rounds)
        if count >= schedule.spec.rounds:
            return None
        results = _results(store, plan.name)
        rounds = plan_rounds(schedule.spec, schedule.names, results, count + 1)
        return SwissSchedule(schedule.spec, schedule.names, rounds)


FORMAT = SwissFormat()
