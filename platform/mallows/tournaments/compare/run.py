"""Running a comparison: the shared plan and run loop (``tournaments.plan.prepare``,
``tournaments.run.execute``) with the comparison's schedule of pairs and its stop rule, the
sequential test (``SprtStop``), stopping as soon as it decides. Its bots are pinned like a
tournament's: a changed bot on a rerun is refused before any match, with the same message.

The test reads the pairs in schedule order, never in arrival order: an observation is added
only when every earlier pair is complete, and the verdict is the first bound crossed in that
order. So a comparison killed at any moment and run again (it replays what is stored, plays
what is missing) ends with the same verdict at the same pair, whatever the executor, worker
count or finishing order. Matches that finish after the deciding pair (they were in flight)
are stored too, and ignored by the test.

Matches go to the executor as it asks for them, in small Ray tasks (``BATCH_MATCHES``: one
pair a task) so that little is in flight when the test decides; leaving the executor's stream
early abandons what is still in flight.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

from typing import TYPE_CHECKING, Callable


from mallows.botname import short
from mallows.tournaments.compare.spec import Comparison, CompareError, from_definition
from mallows.tournaments.compare.sprt import SequentialTest
from mallows.tournaments.plan import Plan, prepare
from mallows.tournaments.run import MatchFailed, execute
from mallows.results.interface import ResultStore

if TYPE_CHECKING:
    from mallows.agents.registry import Resolver
    from mallows.runner.executor import Executor
    from mallows.runner.worker import Outcome
    from mallows.tournaments.seating import MatchSpec

BATCH_MATCHES = 2  # matches per Ray task: one pair


@dataclass
class CompareResult:
    test: SequentialTest
    verdict: str | None  # "H1", "H0", or None (the cap came first)
    pairs: int  # pairs the test used
    stored: int = 0  # matches of this comparison in the store
    played: int = 0  # played by this run
    already: int = 0  # stored before this run
    wall: float = 0.0
    executor: str = ""
    lost_batches: int = 0
    counts: dict = field(default_factory=dict)
    a: str = ""  # A's and B's shown names
    b: str = ""
    #: matches of this run in which A (resp. B) forfeited, and the first reason given
    forfeits: dict = field(default_factory=lambda: {"A": 0, "B": 0})
    forfeit_reasons: dict = field(default_factory=dict)

    @property
    def matches(self) -> int:
        """Matches the verdict rests on: two a pair."""
        return 2 * self.pairs


def _advance(
    c: Comparison,
    ranks: dict,
    test: SequentialTest,
    p: int,
    on_pair: Callable[[int], None] | None = None,
) -> int:
    """Feed ``test`` the complete pairs from pair ``p`` on, in schedule order, up to the first
    incomplete one, the verdict or the cap; return the next pair to read. A pair read is taken
    out of ``ranks``: what stays is only what came ahead of its turn, so memory does not grow
    with the matches read."""
    while test.verdict is None and p < c.max_pairs and 2 * p in ranks and 2 * p + 1 in ranks:
        test.add(c.observation(p, ranks.pop(2 * p), ranks.pop(2 * p + 1)))
        p += 1
        if on_pair:
            on_pair(p)
    return p


def _read_stored(c: Comparison, store: ResultStore, test: SequentialTest) -> tuple[int, int, dict]:
    """Stream the stored matches of ``c`` (by index) into ``test``: (the next pair to read,
    matches stored, the ranks stored ahead of that pair). Nothing is kept once read, so a
    resume over 10^5 stored matches holds one chunk of them, not all."""
    ranks: dict[int, list] = {}
    p = stored = 0
    for idx, _players, r in store.indexed_results(c.name):
        stored += 1
        if test.verdict is None and idx >= 2 * p and idx < 2 * c.max_pairs:
            ranks[idx] = r
            p = _advance(c, ranks, test, p)
    return p, stored, ranks


def _count_forfeits(roles: dict, record: dict, result: CompareResult) -> None:
    reasons = record["result"].get("forfeits") or []
    for seat, reason in enumerate(reasons):
        role = roles.get(record["players"][seat])
        if reason and role:
            result.forfeits[role] += 1
            result.forfeit_reasons.setdefault(role, str(reason))


def stored_test(store: ResultStore, name: str) -> tuple[Comparison, SequentialTest]:
    """The comparison ``name`` and its test over the stored pairs (for reports and ``tournament
    show``): ``test.verdict`` is None while undecided."""
    row = store.tournament(name)
    if row is None:
        raise CompareError(f"no comparison {name!r} in {store.path}")
    c = from_definition(json.loads(row["definition"]))
    test = SequentialTest(c.grid, c.delta, c.alpha, c.beta)
    _read_stored(c, store, test)
    return c, test


def verdict_head(c: Comparison, test: SequentialTest) -> str | None:
    """The verdict in words, the bots by their short names (a path by its base name); None
    while undecided."""
    a, b = short(c.a), short(c.b)
    if test.verdict == "H1":
        return f"H1 accepted: {a} is better than {b} by at least {c.delta:g} place per match"
    if test.verdict == "H0":
        return f"H0 accepted: {a} is not better than {b} by {c.delta:g} place per match"
    return None


def verdict_text(c: Comparison, test: SequentialTest) -> str:
    """One line: the verdict (or its absence) with the estimate."""
    head = verdict_head(c, test) or f"no verdict yet ({test.n} of at most {c.max_pairs} pairs)"
    interval = f" +/- {test.half_width:.3f}" if test.n > 1 else ""
    a, b = short(c.a), short(c.b)
    return (
        f"{head}; {a} better than {b} by {test.mean:+.3f}{interval} places per match "
        f"(95%) "
        f"over {test.n} pairs = {2 * test.n} matches; LLR {test.llr:.2f} "
        f"({test.lower:.2f}, {test.upper:.2f}), alpha {c.alpha:g}, beta {c.beta:g}"
    )


def comparison_of(plan: Plan) -> Comparison:
    """The comparison ``plan`` runs (a plan of another format here is a caller's bug)."""
    if not isinstance(plan.run, Comparison):
        raise TypeError(f"plan {plan.name!r} runs a {plan.kind}, not a comparison")
    return plan.run


def needs_matches(c: Comparison | Plan, store: ResultStore) -> bool:
    """False when the stored matches already decide ``c`` (or reach its cap): a rerun then
    needs no executor."""
    c = comparison_of(c) if isinstance(c, Plan) else c
    test = SequentialTest(c.grid, c.delta, c.alpha, c.beta)
    p, _, _ = _read_stored(c, store, test)
    return test.verdict is None and p < c.max_pairs


class SprtStop:
    """The comparison's stop rule for ``execute``: the sequential test over the pairs in
    schedule order, decided at its first bound crossed (or at the cap)."""

    def __init__(
        self,
        c: Comparison,
        result: CompareResult,
        on_pair: Callable[[CompareResult], None] | None = None,
    ) -> None:
        self.c, self.result, self.on_pair = c, result, on_pair
        self.ranks: dict[int, list] = {}
        self.roles = {result.a: "A", result.b: "B"}

    @property
    def decided(self) -> bool:
        return self.result.test.verdict is not None or self.result.pairs >= self.c.max_pairs

    def _pair_read(self, p: int) -> None:
        self.result.pairs = p
        if self.on_pair:
            self.on_pair(self.result)

    def replay(self, store: ResultStore, name: str) -> None:
        self.result.pairs, self.result.already, self.ranks = _read_stored(
            self.c, store, self.result.test
        )

    def add(self, spec: MatchSpec, outcome: Outcome) -> None:
        if self.decided or outcome.ranks is None:
            return  # in flight when the test decided (stored, not read), or failed (not stored)
        record = outcome.record
        if outcome.forfeits and record is not None:
            _count_forfeits(self.roles, record, self.result)
        self.ranks[spec.index] = outcome.ranks
        _advance(self.c, self.ranks, self.result.test, self.result.pairs, self._pair_read)


def run_comparison(
    c: Comparison | Plan,
    store: ResultStore,
    executor: Executor,
    on_pair: Callable[[CompareResult], None] | None = None,
    on_start: Callable[[CompareResult], None] | None = None,
    resolver: Resolver | None = None,
) -> CompareResult:
    """Play ``c`` until its test decides or ``max_matches`` is reached. ``c``: a ``Plan``
    (``prepare``d already: the CLI does, to refuse changed bots before starting an executor)
    or a ``Comparison`` (prepared here). ``on_start(result)`` once the stored pairs are
    replayed; ``on_pair(result)`` after each pair the test reads."""
    t0 = time.perf_counter()
    plan = c if isinstance(c, Plan) else prepare(c, store, resolver)
    return _run(plan, comparison_of(plan), store, executor, on_pair, on_start, t0)


def _run(
    plan: Plan,
    c: Comparison,
    store: ResultStore,
    executor: Executor,
    on_pair: Callable[[CompareResult], None] | None,
    on_start: Callable[[CompareResult], None] | None,
    t0: float,
) -> CompareResult:
    test = SequentialTest(c.grid, c.delta, c.alpha, c.beta)
    result = CompareResult(
        test, None, 0, executor=executor.describe(), a=plan.shown[c.a], b=plan.shown[c.b]
    )
    stop = SprtStop(c, result, on_pair)

    def started(total: int, already: int) -> None:
        if on_start:
            on_start(result)

    try:
        summary = execute(plan, store, executor, stop, on_start=started)
        result.played = summary.played
    except MatchFailed as exc:
        raise CompareError(str(exc)) from None
    finally:
        result.stored = store.count_matches(c.name)
        result.lost_batches = getattr(executor, "lost_batches", 0)
        result.verdict = test.verdict
        result.counts = {v: n for v, n in zip(c.grid, test.counts)}
        if test.verdict is not None:
            store.update_tournament(c.name, total=result.stored, finished=True)
        elif result.pairs >= c.max_pairs:
            store.update_tournament(
                c.name, total=max(result.stored, 2 * c.max_pairs), finished=True
            )
        result.wall = time.perf_counter() - t0
    return result
