"""Running a tournament: plan, execute, store, rate, resume.

``run_tournament(t, store, executor)`` plays every scheduled match of a checked ``Tournament``
not yet in the store (schedule -> executor -> store, one commit per finished match) and rates
the results in schedule order as they arrive; ``refresh_ratings`` / ``ensure_ratings`` keep the
stored leaderboards in step with the stored matches (after a kill, a rerun recomputes them).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from mallows.errors import MallowsError
from mallows.results.store import MatchRow, StorageError
from mallows.tournaments.schedule import match_id, schedule
from mallows.tournaments.spec import Tournament, diff_definitions


class MatchFailed(MallowsError):
    """A match raised inside the engine or the runner (not a bot failure: those are forfeits)."""


@dataclass
class RunSummary:
    total: int = 0
    already: int = 0      # stored before this run
    played: int = 0       # played and stored by this run
    wall: float = 0.0
    storage_seconds: float = 0.0
    ratings_seconds: float = 0.0
    executor: str = ""


def register(store, t: Tournament) -> bool:
    """Record ``t`` in ``store``; True if new, False if stored with the same definition (a
    resume). A stored tournament of the same name with another definition is refused, listing
    what changed."""
    row = store.tournament(t.name)
    if row is not None:
        if row["digest"] != t.digest():
            changes = diff_definitions(json.loads(row["definition"]), t.definition())
            raise StorageError(
                f"tournament {t.name!r} is already in {store.path} with a different "
                f"definition; changed: {'; '.join(changes)}. Its matches were played under "
                f"the old definition, so it cannot resume: give the file a new `name`, "
                f"restore the old values, or use another --db")
        return False
    store.add_tournament(t.name, t.game, json.dumps(t.definition(), sort_keys=True),
                         t.digest(), t.source, t.match_count(), dict(t.bot_sources))
    return True


def match_row(tournament: str, game: str, spec, outcome) -> MatchRow:
    """The store's row for a played match: the schedule's place plus the outcome."""
    return MatchRow(match_id(tournament, spec.index), tournament, spec.index, game, spec.table,
                    spec.rotation, spec.deal, spec.seed, outcome.players, outcome.ranks,
                    outcome.forfeits, outcome.record_json, outcome.seconds)


def jobs_for(t: Tournament, specs) -> list:
    from mallows.tournaments.executor import Job
    return [Job(index=s.index, game=t.game, options=t.effective_options, seed=s.seed,
                seats=s.seats, limits=dict(t.limits)) for s in specs]


def refresh_ratings(store, name: str, rows=None) -> list:
    """Store the ratings of tournament ``name`` (``rows`` if already computed over every stored
    match in schedule order, else recomputed from storage) and of its game (over all the
    game's tournaments, with the default parameters). Returns the tournament's rows."""
    from mallows.results.ratings import DEFAULT_PARAMS, leaderboard

    row = store.tournament(name)
    definition = json.loads(row["definition"])
    game = row["game"]
    params = definition.get("ratings") or dict(DEFAULT_PARAMS)
    count = store.count_matches(name)
    if rows is None:
        rows = leaderboard(store.results(tournament=name), params,
                           bots=definition.get("bots", ()))
    store.save_ratings("tournament", name, game, rows, stamp=count)
    game_count = store.count_game_matches(game)
    if game_count == count and params == DEFAULT_PARAMS and all(r.matches for r in rows):
        game_rows = rows  # the game's only results, rated the same way: the same table
    else:
        game_rows = leaderboard(store.results(game=game))
    store.save_ratings("game", game, game, game_rows, stamp=game_count)
    return rows


def ensure_ratings(store, scope: str, name: str) -> None:
    """Recompute a stored leaderboard if matches were added since (e.g. after kill -9)."""
    from mallows.results.ratings import leaderboard

    if not store.ratings_stale(scope, name):
        return
    if scope == "tournament":
        refresh_ratings(store, name)
    else:
        store.save_ratings("game", name, name, leaderboard(store.results(game=name)),
                           stamp=store.count_game_matches(name))


def run_tournament(t: Tournament, store, executor, on_start=None, on_outcome=None
                   ) -> RunSummary:
    """Play every scheduled match of ``t`` not yet in ``store``. ``on_start(total, already)``
    and ``on_outcome(outcome, spec, rater)`` drive a progress display. The ratings are built
    as results arrive, in schedule order (``ratings.Rater``), so the rater's leader is the
    leader of every match up to the first one still missing."""
    from mallows.results.ratings import Rater

    t0 = time.perf_counter()
    summary = RunSummary(executor=executor.describe())
    register(store, t)
    specs = schedule(t)
    done = store.done_indices(t.name)
    todo = [s for s in specs if s.index not in done]
    by_index = {s.index: s for s in todo}
    summary.total, summary.already = len(specs), len(specs) - len(todo)
    r0 = time.perf_counter()
    rater = Rater(t.ratings, t.bots, expected=[s.index for s in specs])
    for index, players, ranks in store.indexed_results(t.name):
        rater.add(index, players, ranks)
    summary.ratings_seconds += time.perf_counter() - r0
    if on_start:
        on_start(summary.total, summary.already)
    failure = None
    try:
        for outcome in executor.run(jobs_for(t, todo)):
            spec = by_index[outcome.index]
            if outcome.error is not None:
                failure = failure or (spec, outcome.error)
                continue
            s0 = time.perf_counter()
            store.add_match(match_row(t.name, t.game, spec, outcome))
            r0 = time.perf_counter()
            summary.storage_seconds += r0 - s0
            rater.add(spec.index, outcome.players, outcome.ranks)
            summary.ratings_seconds += time.perf_counter() - r0
            summary.played += 1
            if on_outcome:
                on_outcome(outcome, spec, rater)
    finally:
        r0 = time.perf_counter()
        covered = rater.rated == store.count_matches(t.name)
        refresh_ratings(store, t.name, rater.rows() if covered else None)
        summary.ratings_seconds += time.perf_counter() - r0
        summary.wall = time.perf_counter() - t0
    if failure is not None:
        spec, error = failure
        raise MatchFailed(
            f"match {match_id(t.name, spec.index)} ({', '.join(spec.seats)}, seed {spec.seed}) "
            f"failed: {error.strip()}\nThe other finished matches are stored; fix the cause "
            f"and rerun the same command to play what is missing")
    if store.count_matches(t.name) == summary.total:
        store.mark_finished(t.name)
    return summary
