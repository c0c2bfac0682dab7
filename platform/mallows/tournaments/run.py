"""Running a tournament: plan, execute, store, rate, resume.

``run_tournament(t, store, executor)`` plays every scheduled match of a checked ``Tournament``
not yet in the store (schedule -> executor -> store, one commit per finished match) and rates
the results in schedule order as they arrive; ``refresh_ratings`` / ``ensure_ratings`` keep the
stored leaderboards in step with the stored matches (after a kill, a rerun recomputes them), and
``board`` reads one up to date (computed in memory, not written, from a read-only store).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from mallows.errors import MallowsError
from mallows.results.ratings import TRUESKILL as RATING_SYSTEM
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


def _tournament_rows(store, name: str) -> tuple[str, list]:
    """Tournament ``name``'s game and leaderboard, rated from storage with its parameters."""
    row = store.tournament(name)
    definition = json.loads(row["definition"])
    params = definition.get("ratings") or RATING_SYSTEM.defaults()
    return row["game"], RATING_SYSTEM.leaderboard(store.results(tournament=name), params,
                                                  bots=definition.get("bots", ()))


def _save(store, scope: str, name: str, game: str, rows, stamp: int) -> None:
    store.save_ratings(scope, name, game, [RATING_SYSTEM.row_dict(r) for r in rows], stamp)


def refresh_ratings(store, name: str, rows=None) -> list:
    """Store the ratings of tournament ``name`` (``rows`` if already computed over every stored
    match in schedule order, else recomputed from storage) and of its game (over all the
    game's tournaments, with the default parameters). Returns the tournament's rows."""
    row = store.tournament(name)
    game = row["game"]
    params = json.loads(row["definition"]).get("ratings") or RATING_SYSTEM.defaults()
    count = store.count_matches(name)
    if rows is None:
        rows = _tournament_rows(store, name)[1]
    _save(store, "tournament", name, game, rows, count)
    game_count = store.count_game_matches(game)
    if (game_count == count and params == RATING_SYSTEM.defaults()
            and all(r.matches for r in rows)):
        game_rows = rows  # the game's only results, rated the same way: the same table
    else:
        game_rows = RATING_SYSTEM.leaderboard(store.results(game=game))
    _save(store, "game", game, game, game_rows, game_count)
    return rows


def ensure_ratings(store, scope: str, name: str) -> None:
    """Recompute a stored leaderboard if matches were added since (e.g. after kill -9)."""
    if not store.ratings_stale(scope, name):
        return
    if scope == "tournament":
        refresh_ratings(store, name)
    else:
        _save(store, "game", name, name, RATING_SYSTEM.leaderboard(store.results(game=name)),
              store.count_game_matches(name))


def board(store, scope: str, name: str) -> list[dict]:
    """Leaderboard (``scope`` 'tournament' or 'game', ``name``) as the store's rows, up to date
    with the stored matches. A stale one is recomputed and stored; in a store open read-only
    it is recomputed in memory and returned, not written."""
    if not store.readonly:
        ensure_ratings(store, scope, name)
        return store.ratings(scope, name)
    if not store.ratings_stale(scope, name):
        return store.ratings(scope, name)
    if scope == "tournament":
        game, rows = _tournament_rows(store, name)
    else:
        game, rows = name, RATING_SYSTEM.leaderboard(store.results(game=name))
    return [{**RATING_SYSTEM.row_dict(r), "scope": scope, "name": name, "game": game,
             "updated": None} for r in rows]


def run_tournament(t: Tournament, store, executor, on_start=None, on_outcome=None
                   ) -> RunSummary:
    """Play every scheduled match of ``t`` not yet in ``store``. ``on_start(total, already)``
    and ``on_outcome(outcome, spec, rater)`` drive a progress display. The ratings are built
    as results arrive, in schedule order (the rating system's ``rater``), so the rater's leader
    is the leader of every match up to the first one still missing."""
    t0 = time.perf_counter()
    summary = RunSummary(executor=executor.describe())
    register(store, t)
    specs = schedule(t)
    done = store.done_indices(t.name)
    todo = [s for s in specs if s.index not in done]
    by_index = {s.index: s for s in todo}
    summary.total, summary.already = len(specs), len(specs) - len(todo)
    r0 = time.perf_counter()
    rater = RATING_SYSTEM.rater(t.ratings, t.bots, expected=[s.index for s in specs])
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
