"""Ratings: schedule order, forfeits last, sorting, head-to-head, parameters."""

import dataclasses
import random

import pytest
from hypothesis import given, settings, strategies as st

from conftest import field_results
from mallows.results.ratings import DEFAULT_PARAMS, Rater, head_to_head, leaderboard


def results(n=60, seed=3):
    return field_results(n, seed)


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


# -- exact TrueSkill numbers, computed independently -----------------------------------------
#
# ``expectation_propagation`` below is TrueSkill for one-player teams written from the paper
# (Herbrich, Minka, Graepel, "TrueSkill: A Bayesian Skill Rating System", NIPS 2006): skills
# N(mu, sigma^2 + tau^2), performances N(skill, beta^2), one difference factor per adjacent
# pair in finishing order (a win: d > eps; a shared place: |d| <= eps), messages passed along
# the chain until they settle. It is checked first against numbers published for Microsoft's
# TrueSkill calculator (as reproduced in the trueskill package's documentation and test suite:
# library defaults mu 25, sigma 25/3, beta 25/6, tau 25/300, draw probability 0.10), then used
# for cases with our own parameters. Our side is ``TRUESKILL.leaderboard`` (the trueskill
# package behind the ``RatingSystem`` interface).

from statistics import NormalDist  # noqa: E402 (the section's own imports)

from mallows.results.ratings import TRUESKILL  # noqa: E402

N01 = NormalDist()
LIBRARY_DEFAULTS = {
    "mu": 25.0,
    "sigma": 25 / 3,
    "beta": 25 / 6,
    "tau": 25 / 300,
    "draw_probability": 0.10,
}


def _truncate(mean, var, eps, tie):
    """Moments of N(mean, var) truncated to d > eps (a win) or |d| <= eps (a shared place)."""
    c = var**0.5
    t, e = mean / c, eps / c
    if tie:
        z = N01.cdf(e - t) - N01.cdf(-e - t)
        v = (N01.pdf(-e - t) - N01.pdf(e - t)) / z
        w = v * v + ((e - t) * N01.pdf(e - t) + (e + t) * N01.pdf(e + t)) / z
    else:
        v = N01.pdf(t - e) / N01.cdf(t - e)
        w = v * (v + t - e)
    return mean + c * v, var * (1 - w)


def expectation_propagation(ratings, ranks, mu, sigma, beta, tau, draw_probability):
    n = len(ratings)
    eps = N01.inv_cdf((draw_probability + 1) / 2) * 2**0.5 * beta
    order = sorted(range(n), key=lambda i: ranks[i])
    prior = [(m, s * s + tau * tau + beta * beta) for m, s in ratings]  # performances
    up = [(0.0, 0.0)] * (n - 1)  # (precision, precision*mean): diff k -> order[k]
    down = [(0.0, 0.0)] * (n - 1)  # diff k -> order[k + 1]

    def times(*gaussians):  # product of (mean, var) and natural-parameter messages
        pi = tau_ = 0.0
        for g in gaussians:
            pi, tau_ = pi + g[0], tau_ + g[1]
        return tau_ / pi, 1 / pi

    def natural(mean, var):
        return 1 / var, mean / var

    for _ in range(200):
        for k in list(range(n - 1)) + list(range(n - 2, -1, -1)):
            a, b = order[k], order[k + 1]
            ma, va = times(natural(*prior[a]), *([down[k - 1]] if k > 0 else []))
            mb, vb = times(natural(*prior[b]), *([up[k + 1]] if k + 1 < n - 1 else []))
            md, vd = ma - mb, va + vb
            nm, nv = _truncate(md, vd, eps, ranks[a] == ranks[b])
            pi = 1 / nv - 1 / vd
            msg_mean, msg_var = (nm / nv - md / vd) / pi, 1 / pi  # truncation -> d
            up[k] = natural(mb + msg_mean, vb + msg_var)
            down[k] = natural(ma - msg_mean, va + msg_var)
    out = []
    for i, (m, s) in enumerate(ratings):
        k = order.index(i)
        messages = ([down[k - 1]] if k > 0 else []) + ([up[k]] if k < n - 1 else [])
        pm, pv = times(*messages)
        post_mean, post_var = times(natural(m, s * s + tau * tau), natural(pm, pv + beta * beta))
        out.append((post_mean, post_var**0.5))
    return out


def two_player_closed_form(winner, loser, beta, tau, draw_probability, drawn=False):
    """The paper's update for two players in closed form (eq. for v and w)."""
    (mw, sw), (ml, sl) = winner, loser
    sw2, sl2 = sw * sw + tau * tau, sl * sl + tau * tau
    c2 = 2 * beta * beta + sw2 + sl2
    eps = N01.inv_cdf((draw_probability + 1) / 2) * 2**0.5 * beta
    mean, var = _truncate(mw - ml, c2, eps, drawn)
    c = c2**0.5
    v = (mean - (mw - ml)) / c  # the v of the paper, recovered from the moments
    w = 1 - var / c2
    return (
        (mw + sw2 / c * v, (sw2 * (1 - sw2 / c2 * w)) ** 0.5),
        (ml - sl2 / c * v, (sl2 * (1 - sl2 / c2 * w)) ** 0.5),
    )


def ours(players, ranks, params):
    rows = {r.bot: r for r in TRUESKILL.leaderboard([(players, ranks)], params)}
    return [(rows[p].mu, rows[p].sigma) for p in players]


def flat(pairs):
    return [x for pair in pairs for x in pair]


def prior(params, n):
    return [(params["mu"], params["sigma"])] * n


@pytest.mark.parametrize(
    "ranks, published",
    [
        ([0, 1], [(29.396, 7.171), (20.604, 7.171)]),
        ([0, 0], [(25.000, 6.458), (25.000, 6.458)]),
        ([0, 1, 2, 3], [(33.207, 6.348), (27.401, 5.787), (22.599, 5.787), (16.793, 6.348)]),
        ([0, 0, 0], [(25.000, 5.698), (25.000, 5.695), (25.000, 5.698)]),
    ],
)
def test_the_independent_computation_gives_the_published_numbers(ranks, published):
    mine = expectation_propagation(prior(LIBRARY_DEFAULTS, len(ranks)), ranks, **LIBRARY_DEFAULTS)
    players = [f"p{i}" for i in range(len(ranks))]
    for got, theirs, (m, s) in zip(mine, ours(players, ranks, LIBRARY_DEFAULTS), published):
        # published to three decimals by calculators that stop iterating once messages move
        # less than 1e-4; the all-tied case is the one where that shows in the third decimal
        assert got == pytest.approx((m, s), abs=1e-3)
        assert theirs == pytest.approx((m, s), abs=1e-3)


@pytest.mark.parametrize("drawn", [False, True])
def test_one_on_one_matches_the_closed_form_with_our_defaults(drawn):
    p = TRUESKILL.defaults()
    ranks = [0, 0] if drawn else [0, 1]
    expected = two_player_closed_form(
        (25.0, 25 / 3), (25.0, 25 / 3), p["beta"], p["tau"], p["draw_probability"], drawn
    )
    assert flat(ours(["w", "l"], ranks, p)) == pytest.approx(flat(expected), rel=1e-6)
    # an uneven pair: the favourite loses
    prior_rows = [(["a", "b"], [0, 1])] * 3  # a ahead three times
    rows = {r.bot: r for r in TRUESKILL.leaderboard(prior_rows, p)}
    start = [(rows["b"].mu, rows["b"].sigma), (rows["a"].mu, rows["a"].sigma)]
    upset = {r.bot: r for r in TRUESKILL.leaderboard(prior_rows + [(["b", "a"], ranks)], p)}
    want = two_player_closed_form(
        start[0], start[1], p["beta"], p["tau"], p["draw_probability"], drawn
    )
    assert [upset["b"].mu, upset["b"].sigma, upset["a"].mu, upset["a"].sigma] == pytest.approx(
        flat(want), rel=1e-6
    )


def test_a_four_player_ranking_with_a_tie_matches_the_paper_with_our_defaults():
    p = TRUESKILL.defaults()
    ranks = [1, 0, 1, 3]  # seat 1 first, seats 0 and 2 share second, seat 3 last
    expected = expectation_propagation(prior(p, 4), ranks, **p)
    got = ours(["a", "b", "c", "d"], ranks, p)
    assert flat(got) == pytest.approx(flat(expected), abs=1e-4)
    assert got[0][0] == pytest.approx(got[2][0], abs=1e-3) and got[1][0] > got[0][0] > got[3][0]


def test_the_tournament_guide_shows_the_rating_systems_defaults_and_ranges():
    import re
    import tomllib

    from conftest import REPO

    guide = (REPO / "tournaments" / "README.md").read_text()
    block = guide.split("[ratings]", 1)[1].split("```", 1)[0]
    shown = tomllib.loads(block.split("\n", 1)[1])
    assert shown.keys() == TRUESKILL.defaults().keys()
    assert shown == pytest.approx(TRUESKILL.defaults(), abs=1e-6)
    spans = {p.name: p.span() for p in TRUESKILL.params if p.low != float("-inf")}
    prose = " ".join(guide.split())
    for name, span in spans.items():
        assert re.search(rf"`{name}`( and `\w+`)? {re.escape(span)}", prose), (name, span)
    for p in TRUESKILL.params:  # every range is enforced as written
        if p.low != float("-inf"):
            bad = p.low if p.low_open else p.low - 1
            with pytest.raises(ValueError, match=re.escape(f"`ratings.{p.name}` must be")):
                TRUESKILL.check_params({p.name: bad})


# -- the fast free-for-all path is the library, bit for bit -----------------------------------


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    n=st.integers(2, 7),
    params=st.sampled_from(
        [None, {"tau": 0.083, "draw_probability": 0.1}, {"beta": 1.0, "draw_probability": 0.5}]
    ),
)
def test_fast_ffa_rating_is_bit_identical_to_trueskill(data, n, params):
    from mallows.results import ffa
    from mallows.results.ratings import make_env

    env = make_env(params)
    mus = data.draw(st.lists(st.floats(-50, 100), min_size=n, max_size=n))
    sigmas = data.draw(st.lists(st.floats(0.01, 20), min_size=n, max_size=n))
    ranks = data.draw(st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    ratings = [env.create_rating(m, s) for m, s in zip(mus, sigmas)]
    try:
        lib = [
            (float(g[0].mu), float(g[0].sigma))
            for g in env.rate([(r,) for r in ratings], ranks=ranks)
        ]
    except (FloatingPointError, ZeroDivisionError, ValueError):
        lib = None  # the Rater falls back to the library here, so the fast path may raise too
    try:
        fast = ffa.rate(ffa.Env(env), [(r.pi, r.tau) for r in ratings], ranks)
    except (FloatingPointError, ZeroDivisionError, ValueError):
        assert lib is None
        return
    if lib is not None:
        assert fast == lib  # exact float equality, every seat


def test_rater_tables_equal_the_library_path_on_a_long_sequence():
    import random
    from mallows.results import ratings as R

    rng = random.Random(5)
    bots = [f"b{i}" for i in range(7)]
    results = []
    for _ in range(600):
        seats = rng.sample(bots, rng.choice([2, 3, 4, 5]))
        results.append((seats, [rng.randint(0, len(seats) - 1) for _ in seats]))
    fast = R.leaderboard(results)
    slow = R.Rater()
    slow._fast = None  # the library for every match
    for players, ranks in results:
        slow.add(None, players, ranks)
    assert [dataclasses.asdict(r) for r in fast] == [dataclasses.asdict(r) for r in slow.rows()]


@settings(max_examples=2000, deadline=None)
@given(x=st.floats(-1e6, 1e6, allow_nan=False))
def test_fast_ffa_inlined_cdf_and_pdf_are_the_backends(x):
    from trueskill import backends
    from mallows.results import ffa

    assert ffa._cdf(x) == backends.cdf(x) and ffa._pdf(x) == backends.pdf(x)
