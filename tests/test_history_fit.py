"""The whole-history rating (``mallows.results.plackett_luce``): order independence, ties, the
likelihood it maximises, intervals, and recovery of a known order beside online TrueSkill."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mallows.tournaments.ladder.simulate import balanced_round, even_field, kendall_tau
from mallows.results.plackett_luce import PRIOR_SD, Folded, fit_history
from mallows.results.ratings import leaderboard


def simulated(n_bots=8, matches=240, seed=0, spread=1.0, luck=2.0, tie=0.5, seats=4):
    rng = random.Random(seed)
    field = even_field(n_bots, spread, luck, tie)
    out: list = []
    while len(out) < matches:
        for table in balanced_round(list(field.skills), seats, rng):
            out.append((table, field.play(table, rng)))
    return field, out[:matches]


def naive_log_likelihood(theta: dict[str, float], results) -> float:
    """Plackett-Luce with Breslow ties, written out seat by seat: each seat is picked from
    every seat placed no better than it (its own tie group included)."""
    total = 0.0
    for players, ranks in results:
        for p, r in zip(players, ranks):
            risk = [q for q, s in zip(players, ranks) if s >= r]
            total += theta[p] - math.log(sum(math.exp(theta[q]) for q in risk))
    return total


def naive_log_posterior(
    theta: dict[str, float], results, both_ways=True, prior_sd=PRIOR_SD
) -> float:
    """Read down the places (the winner picked first by strength) and, ``both_ways``, up them
    (the last picked first by weakness: strengths exp(-theta), places reversed), averaged."""
    value = naive_log_likelihood(theta, results)
    if both_ways:
        up = naive_log_likelihood(
            {b: -t for b, t in theta.items()}, [(p, [-r for r in ranks]) for p, ranks in results]
        )
        value = (value + up) / 2
    return value - sum(t * t for t in theta.values()) / (2 * prior_sd**2)


def test_the_fit_is_bit_identical_for_any_order_of_matches_and_seats():
    _, res = simulated(seed=4)
    fit = fit_history(res)
    rng = random.Random(9)
    for _ in range(3):
        shuffled = list(res)
        rng.shuffle(shuffled)
        reseated = []
        for players, ranks in shuffled:
            seats = list(range(len(players)))
            rng.shuffle(seats)
            reseated.append(([players[i] for i in seats], [ranks[i] for i in seats]))
        other = fit_history(reseated)
        assert np.array_equal(other.theta, fit.theta)
        assert np.array_equal(other.cov, fit.cov)
        assert np.array_equal(other.rank_draws, fit.rank_draws)
        assert other.row_dicts() == fit.row_dicts()


def test_online_trueskill_does_depend_on_the_order():
    # the control for the test above: the same reshuffles move TrueSkill's numbers
    _, res = simulated(seed=4)
    shuffled = list(res)
    random.Random(9).shuffle(shuffled)
    assert [r.mu for r in leaderboard(res)] != [r.mu for r in leaderboard(shuffled)]


@pytest.mark.parametrize("both_ways", [True, False])
def test_the_mode_maximises_plackett_luce_with_breslow_ties(both_ways):
    _, res = simulated(n_bots=5, matches=60, seed=2, tie=1.0)
    assert any(len(set(r)) < len(r) for _, r in res), "the sample must hold ties"
    fit = fit_history(res, draws=0, both_ways=both_ways)
    theta = dict(zip(fit.bots, fit.theta))
    best = naive_log_posterior(theta, res, both_ways)
    rng = random.Random(1)
    for _ in range(20):
        moved = {b: t + rng.gauss(0, 0.05) for b, t in theta.items()}
        assert naive_log_posterior(moved, res, both_ways) < best
    # and the gradient of the written-out posterior vanishes there
    for b in fit.bots:
        h = 1e-5
        up = dict(theta, **{b: theta[b] + h})
        down = dict(theta, **{b: theta[b] - h})
        slope = (
            naive_log_posterior(up, res, both_ways) - naive_log_posterior(down, res, both_ways)
        ) / (2 * h)
        assert abs(slope) < 1e-4, (b, slope)
    # the two readings are different objectives: each one's mode is not the other's
    other = dict(zip(fit.bots, fit_history(res, draws=0, both_ways=not both_ways).theta))
    assert naive_log_posterior(other, res, both_ways) < best - 1e-6


def test_tied_bots_are_rated_alike_and_a_tie_is_not_a_win():
    tied = [(["a", "b", "c"], [0, 0, 2])] * 20
    fit = fit_history(tied, draws=0)
    r = {row.bot: row.rating for row in fit.rows()}
    assert r["a"] == pytest.approx(r["b"], abs=1e-12)
    assert r["a"] > r["c"]
    # against a clean a > b > c, the tie leaves a and b closer together
    clean = fit_history([(["a", "b", "c"], [0, 1, 2])] * 20, draws=0)
    rc = {row.bot: row.rating for row in clean.rows()}
    assert rc["a"] - rc["b"] > r["a"] - r["b"] + 1.0


def test_an_unbeaten_bot_stays_finite_and_a_newcomer_without_matches_gets_the_prior():
    fit = fit_history([(["a", "b"], [0, 1])] * 50, bots=["new"])
    rows = {row.bot: row for row in fit.rows()}
    assert all(math.isfinite(row.rating) and math.isfinite(row.sd) for row in rows.values())
    assert rows["a"].rating > rows["b"].rating
    new = rows["new"]
    assert new.matches == 0 and new.mean_place == 0.0
    assert new.sd > rows["a"].sd
    assert (new.rank_low, new.rank_high) == (1, 3)  # could be anywhere
    assert rows["a"].p_top[0] > 0.5 and rows["b"].p_top[-1] == 1.0


def test_intervals_shrink_with_matches_and_rank_probabilities_are_cumulative():
    _, few = simulated(matches=40, seed=1)
    _, many = simulated(matches=800, seed=1)
    a, b = fit_history(few), fit_history(many)
    assert max(r.sd for r in b.rows()) < min(r.sd for r in a.rows())
    for row in b.rows():
        assert list(row.p_top) == sorted(row.p_top) and row.p_top[-1] == 1.0
        assert row.low < row.rating < row.high
        assert row.rank_low <= row.rank <= row.rank_high or row.p_top[row.rank - 1] < 0.5
    top = b.order()[0]
    assert b.p_rank_at_most(top, 1) == b.rating(top).p_top[0]
    assert b.p_ahead(top, b.order()[-1]) > 0.99


def test_empty_and_one_seat_results_and_bad_input():
    assert fit_history([]).rows() == []
    assert fit_history([(["solo"], [0])]).rating("solo").matches == 0
    with pytest.raises(ValueError, match="players but"):
        fit_history([(["a", "b"], [0])])
    with pytest.raises(ValueError, match="prior_sd"):
        fit_history([], prior_sd=0)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.permutations(["a", "b", "c", "d"]),
            st.lists(st.integers(0, 3), min_size=4, max_size=4),
        ),
        min_size=1,
        max_size=12,
    ),
    st.randoms(use_true_random=False),
)
def test_property_any_order_any_ties_gives_the_same_fit(matches, rng):
    res = [(list(p)[:3], sorted(r)[:3]) for p, r in matches]
    shuffled = list(res)
    rng.shuffle(shuffled)
    a, b = fit_history(res, draws=200), fit_history(shuffled, draws=200)
    assert np.array_equal(a.theta, b.theta) and np.array_equal(a.rank_draws, b.rank_draws)
    assert np.all(np.isfinite(a.theta)) and abs(float(np.mean(a.theta))) < 1e-9


def test_recovers_a_known_order_at_least_as_well_as_online_trueskill():
    # 8 bots, balanced 4-seat tables; over several fields the whole-history order agrees with
    # the truth at least as well as TrueSkill's, in the played order and shuffled
    fit_tau, played_tau, shuffled_tau = [], [], []
    for seed in range(6):
        field, res = simulated(n_bots=8, matches=200, seed=seed)
        truth = field.truth()
        fit_tau.append(kendall_tau(fit_history(res, draws=0).order(), truth))
        played_tau.append(kendall_tau([r.bot for r in leaderboard(res)], truth))
        shuffled = list(res)
        random.Random(seed).shuffle(shuffled)
        shuffled_tau.append(kendall_tau([r.bot for r in leaderboard(shuffled)], truth))
    assert sum(fit_tau) / 6 > 0.85
    assert sum(fit_tau) >= sum(played_tau) - 1e-9
    assert sum(fit_tau) >= sum(shuffled_tau) - 1e-9


def test_mixed_table_sizes_and_a_bot_in_two_seats():
    # two- to four-seat matches in one fit, and self-play (a bot in two seats of one match)
    res = [
        (["a", "b"], [0, 1]),
        (["a", "b", "c"], [1, 0, 2]),
        (["c", "d", "a", "b"], [0, 1, 2, 3]),
        (["a", "a", "d"], [0, 2, 1]),
        (["b", "d"], [0, 0]),
    ] * 5
    fit = fit_history(res, draws=500)
    rows = {r.bot: r for r in fit.rows()}
    assert rows["a"].matches == 20 and rows["d"].matches == 15
    assert all(math.isfinite(r.rating) for r in rows.values())
    theta = dict(zip(fit.bots, fit.theta))
    best = naive_log_posterior(theta, res)
    for b in fit.bots:  # the mode of the written-out posterior, table sizes mixed
        for h in (1e-3, -1e-3):
            assert naive_log_posterior(dict(theta, **{b: theta[b] + h}), res) < best
    reordered = list(reversed(res))
    assert np.array_equal(fit_history(reordered, draws=500).theta, fit.theta)


def test_the_intervals_are_the_curvature_of_the_written_out_posterior():
    # the Laplace covariance (centred on the field's mean) against a numeric Hessian of the
    # seat-by-seat posterior at the mode, ties, mixed table sizes and self-play included
    res = [
        (["a", "b", "c"], [0, 0, 2]),
        (["c", "d"], [0, 1]),
        (["a", "d", "b", "c"], [3, 0, 1, 2]),
        (["b", "b", "d"], [0, 1, 1]),
    ] * 4
    fit = fit_history(res, draws=0)
    theta = dict(zip(fit.bots, fit.theta))
    n, e = len(fit.bots), 1e-4

    def at(a, b, da, db):
        t = dict(theta)
        t[a] += da
        t[b] += db
        return naive_log_posterior(t, res)

    hess = np.zeros((n, n))
    for i, a in enumerate(fit.bots):
        for j, b in enumerate(fit.bots):
            hess[i, j] = (at(a, b, e, e) - at(a, b, e, -e) - at(a, b, -e, e) + at(a, b, -e, -e)) / (
                4 * e * e
            )
    centre = np.eye(n) - 1.0 / n
    expected = centre @ np.linalg.inv(-hess) @ centre
    assert np.allclose(fit.cov, expected, atol=1e-5)


def test_expected_place_against_the_field_ranks_what_the_raw_mean_place_cannot():
    """The issue's case: a bot that met the weak ones has the better raw mean place than a
    stronger bot that met the strong ones; the fit's expected place against the whole field
    puts them in the fit's order, and for 2 seats is 1 + the mean P(an opponent is ahead)."""
    results: list = []

    def duel(a: str, b: str, a_wins: int, b_wins: int) -> None:
        results.extend([((a, b), [0, 1])] * a_wins + [((a, b), [1, 0])] * b_wins)

    duel("strong", "y", 40, 10)  # y mostly meets the strong bot and mostly loses
    duel("y", "x", 7, 3)  # ... but beats x
    duel("x", "weak", 35, 15)  # x mostly meets the weak bot and mostly wins
    fit = fit_history(results)
    rows = {r.bot: r for r in fit.rows()}
    assert rows["x"].mean_place < rows["y"].mean_place  # the raw figure misleads
    assert fit.rank_of("y") < fit.rank_of("x")
    assert fit.expected_place("y", 2) < fit.expected_place("x", 2)
    order = sorted(fit.bots, key=lambda b: fit.expected_place(b, 2))
    assert order == fit.order()
    i = fit.index("y")
    ahead = [1 / (1 + math.exp(fit.theta[i] - fit.theta[j])) for j in range(4) if j != i]
    assert fit.expected_place("y", 2) == pytest.approx(1 + sum(ahead) / 3)
    assert fit.expected_place("y", 4) == pytest.approx(1 + sum(ahead))
    assert 1.0 < fit.expected_place("strong", 3) < fit.expected_place("weak", 3) < 3.0


def _fit_arrays(fit):
    return fit.theta, fit.cov, fit.rank_draws, fit.played, fit.mean_place


@settings(max_examples=20, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c", "d", "e"]), min_size=1, max_size=5),
            st.lists(st.integers(0, 4), min_size=5, max_size=5),
        ),
        min_size=0,
        max_size=40,
    ),
    st.integers(1, 7),
)
def test_property_folding_in_chunks_gives_the_fit_of_all_at_once(matches, chunk):
    """The fold merges each chunk of results into the distinct matches so far; any chunk size
    (merges after every result, or none) gives the bit-identical fit, over mixed table sizes,
    self-play seats and one-seat matches."""
    res = []
    for players, raw in matches:
        r = raw[: len(players)]
        res.append((players, [sorted(r).index(x) for x in r]))
    folded = Folded()
    folded.CHUNK = chunk
    for players, ranks in res:
        folded.add(players, ranks)
    whole, bit_by_bit = fit_history(res, draws=100), fit_history(folded, draws=100)
    assert whole.bots == bit_by_bit.bots and whole.matches == bit_by_bit.matches
    for x, y in zip(_fit_arrays(whole), _fit_arrays(bit_by_bit)):
        assert x.shape == y.shape and np.array_equal(x, y)


def test_the_fold_holds_the_distinct_matches_not_every_match():
    """30,000 results among 4 bots at 2 seats have at most 48 distinct outcomes (16 seatings,
    3 results each): the fold keeps at most two chunks beside those, and its fit is that of
    all the results at once."""
    rng = random.Random(7)
    bots = ["a", "b", "c", "d"]
    folded = Folded()
    res = []
    for i in range(30_000):
        pair = [rng.choice(bots), rng.choice(bots)]
        ranks = rng.choice([[0, 1], [1, 0], [0, 0]])
        folded.add(pair, ranks)
        res.append((pair, ranks))
        if i % 500 == 0:
            kept = sum(len(c) for parts in folded._rows.values() for _, _, c in parts)
            assert kept <= 3 * 4 * 4 + 2 * Folded.CHUNK
    assert folded.matches == 30_000
    a, b = fit_history(res, draws=200), fit_history(folded, draws=200)
    assert np.array_equal(a.theta, b.theta) and np.array_equal(a.played, b.played)


@given(st.lists(st.integers(min_value=0, max_value=60), max_size=200))
def test_the_raters_index_runs_are_the_set_of_indexes_added(indexes):
    """``HistoryRater.seen`` holds runs of indexes, not one entry per match: it answers as a
    set would, and its runs stay sorted, disjoint and apart (two touching runs are one)."""
    from mallows.results.history_rating import Indexes

    runs, plain = Indexes(), set()
    for i in indexes:
        assert runs.add(i) == (i not in plain)
        plain.add(i)
    assert len(runs) == len(plain)
    assert all((i in runs) == (i in plain) for i in range(-1, 62))
    assert all(s < e for s, e in zip(runs.starts, runs.ends))
    assert all(e < s for e, s in zip(runs.ends, runs.starts[1:]))


def test_a_whole_run_in_near_order_is_a_few_index_runs_and_each_result_counts_once():
    from mallows.results.history_rating import PLACKETT_LUCE

    rater = PLACKETT_LUCE.rater({}, ["a", "b"])
    order = [i + (1 if i % 2 == 0 else -1) for i in range(100_000)]  # pairs swapped
    for i in order + order[:500]:  # and the first 500 again: a stored feed overlapping
        rater.add(i, ["a", "b"] if i % 3 else ["b", "a"], [0, 1])
    assert rater.rated == 100_000
    assert len(rater.seen.starts) == 1 and len(rater.seen) == 100_000
