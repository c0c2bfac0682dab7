"""The coordinator's parts: batch sizing from measured match times, the rating thread (same
table as rating in line, whatever the arrival order, failed matches skipped, repeats ignored),
and resuming through the lazy schedule with gaps anywhere."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from mallows.results.ratings import Rater, leaderboard
from mallows.results.store import Store
from mallows.runner import cluster as ex
from mallows.tournaments.live import LiveRatings


def test_batches_are_sized_from_the_measured_match_time():
    assert ex.batch_size_for(None, 8, None) == ex.FIRST_BATCH  # nothing measured yet
    assert ex.batch_size_for(None, 8, 0.5) == round(ex.BATCH_SECONDS / 0.5)
    assert ex.batch_size_for(None, 8, 30.0) == 1  # slow matches: one a task
    assert ex.batch_size_for(None, 8, 1e-6) == ex.MAX_BATCH  # quick ones: capped
    # towards the end a batch is a fraction of each CPU's share of what is left
    assert ex.batch_size_for(48, 8, 0.001) == 2
    assert ex.batch_size_for(1, 8, 0.001) == 1


def results(n: int, seed: int = 1):
    rng = random.Random(seed)
    bots = [f"b{i}" for i in range(6)]
    out = []
    for _ in range(n):
        seats = rng.sample(bots, 4)
        out.append((seats, [rng.randint(0, 3) for _ in seats]))
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), failed=st.sets(st.integers(0, 79), max_size=5))
def test_rating_thread_equals_rating_in_line_whatever_the_arrival(seed, failed):
    res = results(80, seed)
    expected = leaderboard([r for i, r in enumerate(res) if i not in failed])
    order = list(range(80))
    random.Random(seed).shuffle(order)
    live = LiveRatings(Rater(expected=range(80)))
    for start in range(0, 80, 7):  # arriving groups, out of order, some repeated
        group = [(i, None, None) if i in failed else (i, *res[i]) for i in order[start : start + 7]]
        live.add(group)
        live.add(group[:2])
    rater = live.finish()
    assert rater.complete() and rater.rated == 80 - len(failed)
    assert rater.rows() == expected


def test_rating_thread_rates_the_stored_results_first_and_ignores_the_overlap():
    res = results(30)
    stored = [(i, *res[i]) for i in range(20)]
    live = LiveRatings(Rater(expected=range(30)), stored=lambda: iter(stored))
    live.add([(i, *res[i]) for i in range(15, 30)])  # overlaps the stored 15..19
    assert live.finish().rows() == leaderboard(res)
    assert live.played == 15


def test_an_error_in_the_rating_thread_reaches_the_coordinator():
    live = LiveRatings(Rater(expected=range(3)))
    live.add([(0, ["a", "b"], [0])])  # two players, one rank
    with pytest.raises(ValueError, match="2 players but 1 ranks"):
        live.finish()


def test_missing_indices_walks_the_gaps_in_chunks(tmp_path):
    from mallows.tournaments.run import match_row, register
    from mallows.tournaments.roundrobin.schedule import schedule
    from mallows.tournaments.roundrobin.spec import parse_tournament
    from mallows.runner.worker import Outcome

    t = parse_tournament(
        {
            "name": "g",
            "game": "take4",
            "players": 2,
            "deals": 40,
            "seed": 1,
            "secret": False,  # scheduled directly, without a key
            "bots": ["random", "greedy"],
        }
    )
    store = Store(tmp_path / "g.db")
    register(store, t)
    specs = schedule(t)
    kept = [i for i in range(len(specs)) if i % 7 in (0, 1, 5)]
    store.add_matches(
        [
            match_row(
                t.name,
                t.game,
                specs[i],
                Outcome(i, '{"x":1}', ["random", "greedy"], [0, 1], 0, 0.0),
            )
            for i in kept
        ]
    )
    missing = [i for i in range(len(specs)) if i not in kept]
    assert list(store.missing_indices(t.name, len(specs), chunk=3)) == missing
    assert list(store.missing_indices(t.name, len(specs))) == missing
    assert list(store.missing_indices(t.name, 10, chunk=2)) == [i for i in missing if i < 10]
