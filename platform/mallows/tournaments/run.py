"""The one run loop: plan, execute, store, rate, resume.

``execute(plan, store, executor, stop=None)`` plays every scheduled match of a ``Plan``
(``tournaments.plan.prepare``) not yet in the store (lazy schedule -> executor -> store, one
commit per arriving batch) and rates the results in schedule order in a thread beside it
(``live``), until the schedule is done or the ``stop`` rule decides (a comparison's sequential
test: ``mallows.tournaments.compare.run``). A tournament and a comparison differ only in their
schedule and their stop rule. ``run_tournament(t, store, executor)`` is ``prepare`` then
``execute``. ``refresh_ratings`` /
``ensure_ratings`` keep the stored leaderboards in step with the stored matches (after a kill, a
rerun recomputes them), and ``board`` reads one up to date (computed in memory, not written,
from a read-only store).
"""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from mallows.botname import is_person
from mallows.errors import MatchFailed
from mallows.results.leaderboard import leaderboard, played, played_dicts
from mallows.results.ratings import system
from mallows.results.store import MatchRow, StorageError
from mallows.tournaments.plan import Plan, prepare
from mallows.tournaments.seating import match_id
from mallows.tournaments.format import EpochFormat, Spec, StopRule, diff_definitions
from mallows.results.interface import ResultStore
from mallows.seeding import UNKEYED

if TYPE_CHECKING:
    from pathlib import Path

    from mallows.agents.registry import Resolver
    from mallows.results.ratings import Row
    from mallows.runner.executor import Executor
    from mallows.runner.worker import Job, Outcome
    from mallows.tournaments.seating import MatchSpec

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores


@dataclass
class RunSummary:
    total: int = 0
    already: int = 0  # stored before this run
    played: int = 0  # played and stored by this run
    wall: float = 0.0
    storage_seconds: float = 0.0
    ratings_seconds: float = 0.0
    executor: str = ""
    stopped: bool = False  # the stop rule decided before the schedule was done


class Recordable(Protocol):
    """What ``add_run`` records of any format's run: its name, game, where its bots were found,
    and its definition with that definition's digest."""

    @property
    def name(self) -> str: ...
    @property
    def game(self) -> str: ...
    @property
    def bot_sources(self) -> dict: ...
    def definition(self) -> dict: ...
    def digest(self) -> str: ...


class Registrable(Recordable, Protocol):
    """What ``register`` records of a round robin's run: also where it came from and its
    matches."""

    @property
    def source(self) -> str: ...
    def match_count(self) -> int: ...


def register(store: ResultStore, t: Registrable) -> bool:
    """Record ``t`` in ``store``; True if new, False if stored with the same definition (a
    resume). A stored tournament of the same name with another definition is refused, listing
    what changed."""
    row = store.tournament(t.name)
    if row is not None and row["digest"] != t.digest() and store.count_matches(t.name) == 0:
        store.remove_tournament(t.name)  # nothing was played under the old definition
        row = None
    if row is not None:
        if row["digest"] != t.digest():
            changes = diff_definitions(json.loads(row["definition"]), t.definition())
            raise StorageError(
                f"tournament {t.name!r} is already in {store.path} with a different "
                f"definition; changed: {'; '.join(changes)}. Its matches were played under "
                f"the old definition, so it cannot resume: give the file a new `name`, "
                f"restore the old values, or use another --db"
            )
        return False
    add_run(store, t, t.source, t.match_count())
    return True


def add_run(store: ResultStore, t: Recordable, source: str, total: int) -> None:
    """Record the new run ``t`` (any format's): its canonical definition and digest, where it
    came from (``source``), its matches planned so far (``total``), where each bot was found."""
    store.add_tournament(
        t.name,
        t.game,
        json.dumps(t.definition(), sort_keys=True),
        t.digest(),
        source,
        total,
        dict(t.bot_sources),
    )


def match_row(tournament: str, game: str, spec: MatchSpec, outcome: Outcome) -> MatchRow:
    """The store's row for a played match: the schedule's place plus the outcome (a failed
    match has none: its error is reported, nothing stored)."""
    if outcome.players is None or outcome.ranks is None or outcome.record_json is None:
        raise ValueError(f"match {spec.index} failed ({outcome.error}): it has no row to store")
    return MatchRow(
        match_id(tournament, spec.index),
        tournament,
        spec.index,
        game,
        spec.table,
        spec.rotation,
        spec.deal,
        spec.seed,
        outcome.players,
        outcome.ranks,
        outcome.forfeits,
        outcome.record_json,
        outcome.seconds,
    )


LARGE_RUN = 100_000  # matches left from which ``tournament run`` prints an estimate first


@dataclass
class Estimate:
    remaining: int  # matches still to play
    db_bytes: int  # what they will add to the database, about
    match_seconds: float | None  # one match, timed in this process (None: could not play it)

    def describe(self, workers: int, db: str | Path) -> str:
        from mallows.results.codec import human_bytes

        text = (
            f"{self.remaining:,} matches to play: about {human_bytes(self.db_bytes)} more in {db}"
        )
        if self.match_seconds is not None:
            seconds = self.remaining * self.match_seconds / max(1, workers)
            text += (
                f"; one match took {self.match_seconds:.3f} s here, so about "
                f"{_duration(seconds)} on {workers} worker{'s' if workers != 1 else ''} "
                f"(the progress bar's ETA follows the measured rate)"
            )
        return text


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"


def check_free_space(
    plan: Plan, store: ResultStore, db: str | Path, free: int | None = None
) -> None:
    """Refuse (``StorageError``, exit 2) a run whose matches left would need more than the free
    space of the disk holding ``db`` (``free``: that figure, measured when not given), before
    it plays one: the figures in the message. What is stored stays."""
    import os
    import shutil

    from mallows.errors import StorageError
    from mallows.results.codec import estimated_bytes, human_bytes

    remaining = plan.total - store.count_matches(plan.name)
    if remaining <= 0:
        return
    need = estimated_bytes(plan.game, plan.run.players, remaining)
    if free is None:
        try:
            free = shutil.disk_usage(os.path.dirname(os.path.realpath(db)) or ".").free
        except OSError:
            return  # no figure to compare with: the disk-full path stays the guard
    if need > free:
        raise StorageError(
            f"{remaining:,} matches to play need about {human_bytes(need)} more in {db}, and "
            f"the disk holding it has {human_bytes(free)} free: free some space, give a --db "
            f"on a larger disk, or play fewer deals (the matches stored stay)"
        )


def estimate(plan: Plan, store: ResultStore) -> Estimate:
    """The size and, from one match played here, the duration of what is left of ``plan``
    (prepared in ``store``). The timed match is the first missing one and is stored, so the
    run does not play it again."""
    from mallows.results.codec import estimated_bytes
    from mallows.runner.worker import play_job

    total = plan.total
    remaining = total - store.count_matches(plan.name)
    seconds = None
    index = next(store.missing_indices(plan.name, total), None)
    players = plan.run.players
    if index is not None:
        spec = next(plan.schedule.specs([index]))
        outcome = play_job(plan.job(spec))
        if outcome.error is None:
            store.add_matches([match_row(plan.name, plan.game, spec, outcome)])
            seconds = outcome.seconds
    return Estimate(remaining, estimated_bytes(plan.game, players, remaining), seconds)


def jobs_for(run: Plan | Spec, specs: Iterable[MatchSpec]) -> list[Job]:
    """Jobs for ``specs``: a ``Plan``'s (its roster and limits), or, for a run not planned
    (benchmarks, tests), with its limits checked here and names the registry resolves."""
    if isinstance(run, Plan):
        return run.jobs(specs)
    from mallows.agents.protocol import Limits
    from mallows.runner.worker import Job

    limits = Limits.from_dict(run.limits)
    return [
        Job(
            index=s.index,
            game=run.game,
            options=run.effective_options,
            seed=s.seed,
            seats=tuple(s.seats),
            limits=limits,
            chance=getattr(run, "chance", UNKEYED),
        )
        for s in specs
    ]


def _stored(store: ResultStore, name: str) -> dict:
    """The stored row of tournament ``name`` (one the caller knows is there)."""
    row = store.tournament(name)
    if row is None:
        raise StorageError(
            f"{store.path} has no tournament {name!r}: see mallows tournament "
            f"list --db {store.path}"
        )
    return row


def _tournament_rows(store: ResultStore, name: str) -> tuple[str, list]:
    """Tournament ``name``'s game and leaderboard, rated from storage with its parameters."""
    row = _stored(store, name)
    definition = json.loads(row["definition"])
    params = definition.get("ratings") or RATING_SYSTEM.defaults()
    return row["game"], leaderboard(store.results(tournament=name), params)


def _save(
    store: ResultStore, scope: str, name: str, game: str, rows: Iterable[Row], stamp: int
) -> None:
    store.save_ratings(scope, name, game, [RATING_SYSTEM.row_dict(r) for r in rows], stamp)


def refresh_ratings(store: ResultStore, name: str, rows: Sequence[Row] | None = None) -> list:
    """Store the ratings of tournament ``name`` (``rows`` if already computed over every stored
    match in schedule order, else recomputed from storage) and of its game (over all the
    game's tournaments, with the default parameters). Returns the tournament's rows."""
    row = _stored(store, name)
    game = row["game"]
    params = json.loads(row["definition"]).get("ratings") or RATING_SYSTEM.defaults()
    count = store.count_matches(name)
    rows = _tournament_rows(store, name)[1] if rows is None else played(rows)
    _save(store, "tournament", name, game, rows, count)
    game_count = store.count_game_matches(game)
    if (
        game_count == count
        and params == RATING_SYSTEM.defaults()
        and not any(is_person(r.bot) for r in rows)
    ):
        # (a person's matches stay off the game's board: store.results(game=...) leaves them)
        game_rows = rows  # the game's only results, rated the same way: the same table
    else:
        game_rows = leaderboard(store.results(game=game))
    _save(store, "game", game, game, game_rows, game_count)
    return rows


def ensure_ratings(store: ResultStore, scope: str, name: str) -> None:
    """Recompute a stored leaderboard if matches were added since (e.g. after kill -9)."""
    if not store.ratings_stale(scope, name):
        return
    if scope == "tournament":
        refresh_ratings(store, name)
    else:
        _save(
            store,
            "game",
            name,
            name,
            leaderboard(store.results(game=name)),
            store.count_game_matches(name),
        )


def game_board_with_humans(store: ResultStore, game: str) -> list[dict]:
    """A game's leaderboard with the matches people played (``human`` seats) counted too,
    computed in memory (the stored game boards are the bots')."""
    rows = leaderboard(store.results(game=game, humans=True))
    return [
        {**RATING_SYSTEM.row_dict(r), "scope": "game", "name": game, "game": game, "updated": None}
        for r in rows
    ]


def board(store: ResultStore, scope: str, name: str) -> list[dict]:
    """Leaderboard (``scope`` 'tournament' or 'game', ``name``) as the store's rows, up to date
    with the stored matches. A stale one is recomputed and stored; in a store open read-only
    it is recomputed in memory and returned, not written."""
    if not store.readonly:
        ensure_ratings(store, scope, name)
        return played_dicts(store.ratings(scope, name))
    if not store.ratings_stale(scope, name):
        return played_dicts(store.ratings(scope, name))  # a table stored by an older version
    if scope == "tournament":
        game, rows = _tournament_rows(store, name)
    else:
        game, rows = name, leaderboard(store.results(game=name))
    return [
        {**RATING_SYSTEM.row_dict(r), "scope": scope, "name": name, "game": game, "updated": None}
        for r in rows
    ]


def run_tournament(
    t: Spec,
    store: ResultStore,
    executor: Executor,
    on_start: Callable | None = None,
    on_outcome: Callable | None = None,
    resolver: Resolver | None = None,
    key: bytes | None = None,
) -> RunSummary:
    """``prepare`` (check, register and pin ``t`` once) then ``execute``. ``key``: the secret
    key (``--key``), so that runs into fresh databases play the very same matches."""
    return execute(
        prepare(t, store, resolver, key=key),
        store,
        executor,
        on_start=on_start,
        on_outcome=on_outcome,
    )


def execute(
    plan: Plan,
    store: ResultStore,
    executor: Executor,
    stop: StopRule | None = None,
    on_start: Callable | None = None,
    on_outcome: Callable | None = None,
    rate: bool = True,
) -> RunSummary:
    """Play every scheduled match of ``plan`` not yet in ``store``, until ``stop`` (if any)
    decides. ``on_start(total, already)`` and ``on_outcome(outcome, spec, live)`` (once per
    match, as it arrives) drive a progress display; ``live`` is a ``LiveRatings``:
    ``live.leader()`` is the leader of every match up to the first one still missing (rated in
    schedule order by the rating system's ``rater``), ``live.played`` and ``live.rate`` count
    arrivals (matches/s over the last seconds).

    The schedule is walked lazily: jobs are made as the executor asks for them, for the
    indices the store is missing (found in chunks), so memory does not grow with the run.
    Each batch the executor hands back is committed in one transaction before anything else
    happens to it; rating runs in a thread beside it. When ``stop`` decides, the executor's
    stream is left: what is still in flight is abandoned. A match that fails is reported
    after the run (``MatchFailed``); with a stop rule, the run stops at it. ``rate=False``
    (a ladder's epoch: it refits everything itself and stores its leaderboard once, at the
    end of its run) leaves the stored matches unread and the stored leaderboard as it is."""
    from mallows.tournaments.live import LiveRatings

    t0 = time.perf_counter()
    stop = stop if stop is not None else plan.format.stop_rule(plan.run, store)
    summary = RunSummary(executor=executor.describe())
    summary.total = plan.total
    summary.already = store.count_matches(plan.name)
    if stop is not None:
        stop.replay(store, plan.name)
    rater = RATING_SYSTEM.rater(plan.ratings, plan.bots, expected=range(summary.total))

    def stored() -> Iterator[
        tuple[int, list[str], list[int]]
    ]:  # in the rating thread: its own connection, read-only
        opener: Any = type(store)  # the store's own class, opened again
        reader = opener(store.path, readonly=True)
        try:
            yield from reader.indexed_results(plan.name)
        finally:
            reader.close()

    live = LiveRatings(rater, stored if summary.already and rate else None)
    if on_start:
        on_start(summary.total, summary.already)
    in_flight: dict = {}  # index -> spec, for jobs handed to the executor

    def jobs() -> Iterator[Job]:
        for spec in plan.schedule.specs(store.missing_indices(plan.name, summary.total)):
            if stop is not None and stop.decided:
                return
            in_flight[spec.index] = spec
            yield plan.job(spec)

    failure = None
    try:
        if stop is None or not stop.decided:
            stream = executor.run_batches(jobs(), summary.total - summary.already)
            try:
                for outcomes in stream:
                    arrived = [(in_flight.pop(o.index), o) for o in outcomes]
                    for spec, outcome in arrived:
                        if outcome.error is not None:
                            failure = failure or (spec, outcome.error)
                    s0 = time.perf_counter()
                    store.add_matches(
                        [
                            match_row(plan.name, plan.game, spec, o)
                            for spec, o in arrived
                            if o.error is None
                        ]
                    )
                    summary.storage_seconds += time.perf_counter() - s0
                    live.add(
                        [
                            (spec.index, o.players, o.ranks)
                            if o.error is None
                            else (spec.index, None, None)
                            for spec, o in arrived
                        ]
                    )
                    summary.played += sum(1 for _, o in arrived if o.error is None)
                    for spec, outcome in arrived:
                        if outcome.error is None:
                            if stop is not None:
                                stop.add(spec, outcome)
                            if on_outcome:
                                on_outcome(outcome, spec, live)
                    if stop is not None and (stop.decided or failure is not None):
                        break  # leave the stream: what is in flight is abandoned
            finally:
                close = getattr(stream, "close", None)
                if close is not None:
                    close()
        summary.stopped = stop is not None and stop.decided
    finally:
        rater = live.finish()
        r0 = time.perf_counter()
        if rate:
            covered = rater.rated == store.count_matches(plan.name)
            refresh_ratings(store, plan.name, rater.rows() if covered else None)
        summary.ratings_seconds += live.seconds + time.perf_counter() - r0
        summary.wall = time.perf_counter() - t0
    if failure is not None:
        spec, error = failure
        where = "; ".join(
            f"{s} is {plan.sources[s]}"
            for s in spec.seats
            if plan.sources.get(s) and plan.sources[s] != s
        )  # shown: where from
        raise MatchFailed(
            f"match {match_id(plan.name, spec.index)} ({', '.join(spec.seats)}, seed "
            f"{spec.seed}) failed: {error.strip()}"
            + (f" ({where})" if where else "")
            + "\nThe other finished matches are stored; fix the cause and rerun the same "
            "command to play what is missing"
        )
    if store.count_matches(plan.name) == summary.total:
        store.mark_finished(plan.name)
    return summary


def run_epochs(
    plan: Plan,
    store: ResultStore,
    executor: Executor,
    on_outcome: Callable | None = None,
    rate: bool = True,
) -> RunSummary:
    """Play a ``plan`` of an epoch format (``format.EpochFormat``: epochs, rounds) to its end:
    the tables planned so far, then, once every match of them is stored, the tables its format
    plans next from what is stored (``next_tables``), until it plans none or its stop rule
    decides. Each epoch is ``execute``; a run killed at any moment and run again plays what is
    missing of the stored epochs and goes on with the very tables it would have played."""
    fmt = plan.format
    if not isinstance(fmt, EpochFormat):
        raise TypeError(f"format {plan.kind!r} plans no epochs: run it with execute")
    total = RunSummary(executor=executor.describe())
    first = True
    while True:
        summary = execute(plan, store, executor, on_outcome=on_outcome, rate=rate)
        total.total = summary.total
        total.already += summary.already if first else 0
        first = False
        total.played += summary.played
        for part in ("wall", "storage_seconds", "ratings_seconds"):
            setattr(total, part, getattr(total, part) + getattr(summary, part))
        if summary.stopped:
            total.stopped = True
            break
        schedule = fmt.next_tables(plan, store)
        if schedule is None:
            break
        plan = dataclasses.replace(plan, schedule=schedule)
    store.update_tournament(plan.name, total=total.total, finished=not total.stopped)
    return total
