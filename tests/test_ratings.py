"""Ratings: schedule order, forfeits last, sorting, head-to-head, parameters."""

import random

import pytest

from mallows.results.ratings import DEFAULT_PARAMS, Rater, head_to_head, leaderboard


def results(n=60, seed=3):
    rng = random.Random(seed)
    bots = ["strong", "mid", "weak", "worst"]
    out = []
    for _ in range(n):
        seats = rng.sample(bots, 3)
        strength = {b: -i + rng.random() * 1.5 for i, b in enumerate(bots)}
        order = sorted(seats, key=lambda b: -strength[b])
        out.append((seats, [order.index(b) for b in seats]))
    return out


def test_sorted_by_conservative_rating_and_counts():
    rows = leaderboard(results())
    assert [r.rank for r in rows] == [1, 2, 3, 4]
    cons = [r.conservative for r in rows]
    assert cons == sorted(cons, reverse=True)
    for r in rows:
        assert r.conservative == pytest.approx(r.mu - 3 * r.sigma)
    assert rows[0].bot == "strong" and rows[-1].bot == "worst"
    assert sum(r.matches for r in rows) == 60 * 3
    assert sum(r.wins for r in rows) == 60  # no ties in these results


def test_same_results_same_table_and_order_matters():
    res = results()
    assert leaderboard(res) == leaderboard(list(res))
    shuffled = list(res)
    random.Random(1).shuffle(shuffled)
    # TrueSkill is order dependent: that is why tables are always rated in schedule order
    assert [r.mu for r in leaderboard(shuffled)] != [r.mu for r in leaderboard(res)]


def test_forfeit_counts_as_last_place():
    # the record's ranks already put a forfeited seat last: seat 0 forfeited
    res = [(["x", "y", "z"], [2, 0, 1])] * 5
    rows = {r.bot: r for r in leaderboard(res)}
    assert rows["x"].mean_place == 3 and rows["x"].wins == 0
    assert rows["y"].wins == 5
    assert rows["x"].mu < rows["z"].mu < rows["y"].mu


def test_ties_share_a_place_and_draws_update():
    rows = {r.bot: r for r in leaderboard([(["a", "b", "c"], [0, 1, 1])])}
    assert rows["b"].mu == pytest.approx(rows["c"].mu, rel=1e-3)  # message passing: ~equal
    assert rows["a"].mu > rows["b"].mu
    assert rows["b"].mean_place == 2


def test_defaults_and_parameters():
    assert 0 < DEFAULT_PARAMS["draw_probability"] < 0.1
    assert DEFAULT_PARAMS["tau"] == 0
    res = results(20)
    assert leaderboard(res, {"mu": 100.0, "sigma": 30.0})[0].mu > 50
    rows = leaderboard(res, bots=["idle"])
    idle = [r for r in rows if r.bot == "idle"][0]
    assert idle.matches == 0 and idle.mu == DEFAULT_PARAMS["mu"]


def test_head_to_head_mean_place_and_share_ahead():
    res = [(["a", "b"], [0, 1]), (["b", "a"], [0, 1]), (["a", "b", "c"], [0, 2, 1])]
    h = head_to_head(res)
    assert h["a"]["b"].matches == 3
    assert h["a"]["b"].mean_place == pytest.approx((1 + 2 + 1) / 3)
    assert h["a"]["b"].ahead == pytest.approx(2 / 3)
    assert h["b"]["a"].ahead == pytest.approx(1 / 3)
    assert h["c"]["b"].matches == 1 and h["c"]["b"].ahead == 1
    assert "c" not in h["a"] or h["a"]["c"].matches == 1


def test_rater_fed_in_any_order_equals_the_schedule_order_table():
    res = results()
    order = list(range(len(res)))
    random.Random(7).shuffle(order)
    rater = Rater(expected=range(len(res)))
    first_gap = min(order[:10]) if 0 not in order[:10] else None
    for i in order[:10]:
        rater.add(i, *res[i])
    if first_gap is not None:
        assert rater.rated == 0  # nothing is rated before index 0 arrives
    for i in order[10:]:
        rater.add(i, *res[i])
    assert rater.complete() and rater.rated == len(res)
    assert rater.rows() == leaderboard(res)  # bit-identical, not approximately
    name, value = rater.leader()
    assert name == "strong" and value == leaderboard(res)[0].conservative
