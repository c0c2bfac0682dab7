"""The sequential test of ``mallows compare``, on synthetic paired data (no games): its error
rates hold at the nominal alpha and beta, it needs far fewer pairs than a fixed-size test of
the same errors, and its likelihood ratio is the exact constrained maximum it claims to be."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mallows.tournaments.compare.sprt import (
    REGULARIZE,
    SequentialTest,
    _profile,
    fixed_sample_size,
    llr,
    simulate,
    tilted,
    wald_bounds,
)

ALPHA = BETA = 0.05
RUNS = 2000
# z for a one-sided 99% bound on a simulated rate: a rate within it is "within the
# simulation's own confidence interval" of the nominal one
Z = 2.326

# (label, grid of pair values, base shape, delta): the pair grids mallows compare uses
SCENARIOS = [
    # two seats: the mean of the two seatings' place differences (fastchess's pentanomial)
    ("2 seats", [-1, -0.5, 0, 0.5, 1], [1, 4, 10, 4, 1], 0.15),
    # four seats: B's place minus A's place, -3..3, mostly small
    ("4 seats", list(range(-3, 4)), [1, 2, 4, 6, 4, 2, 1], 0.3),
    # mostly identical outcomes (strong duplicate correlation): a small, noisy variance
    ("mostly ties", [-1, -0.5, 0, 0.5, 1], [1, 2, 40, 2, 1], 0.08),
]


def _sd(grid, p, mean):
    grid = np.asarray(grid, dtype=float)
    return math.sqrt(float((p * grid**2).sum()) - mean**2)


@pytest.mark.parametrize("label,grid,base,delta", SCENARIOS, ids=[s[0] for s in SCENARIOS])
def test_error_rates_and_expected_pairs(label, grid, base, delta):
    rng = np.random.default_rng(20261130)
    rows, sds = {}, {}
    for effect in (0.0, delta):
        p = tilted(grid, base, effect)
        assert abs(float((p * np.asarray(grid)).sum()) - effect) < 1e-9
        verdict, pairs = simulate(grid, p, delta, ALPHA, BETA, RUNS, 50_000, rng)
        assert (verdict == 0).sum() == 0, "every simulated test must reach a verdict"
        rows[effect] = ((verdict == 1).mean(), pairs.mean())
        sds[effect] = _sd(grid, p, effect)
    false_positive, asn0 = rows[0.0]
    power, asn1 = rows[delta]
    fixed = fixed_sample_size(sds[0.0], delta, ALPHA, BETA, sds[delta])
    print(
        f"\n{label}: false positives {false_positive:.4f} (alpha {ALPHA}), power {power:.4f} "
        f"(1 - beta {1 - BETA}), mean pairs {asn0:.0f} at effect 0 / {asn1:.0f} at delta; "
        f"a fixed-size test needs {fixed}"
    )
    se_a = math.sqrt(ALPHA * (1 - ALPHA) / RUNS)
    se_b = math.sqrt(BETA * (1 - BETA) / RUNS)
    assert false_positive <= ALPHA + Z * se_a, (label, false_positive)
    assert power >= 1 - BETA - Z * se_b, (label, power)
    # the point of a sequential test: well below the fixed-size test of the same errors
    assert asn0 < 0.7 * fixed and asn1 < 0.7 * fixed, (label, asn0, asn1, fixed)


def test_negative_effect_is_rarely_h1_and_big_effect_is_fast():
    grid, base, delta = SCENARIOS[0][1:]
    rng = np.random.default_rng(7)
    verdict, _ = simulate(grid, tilted(grid, base, -delta), delta, ALPHA, BETA, 1000, 50_000, rng)
    assert (verdict == 1).mean() < 0.01  # far below alpha: H0 is "not better", not "equal"
    verdict, pairs = simulate(
        grid, tilted(grid, base, 4 * delta), delta, ALPHA, BETA, 1000, 50_000, rng
    )
    assert (verdict == 1).all() and pairs.mean() < 40


def test_identical_play_accepts_h0_and_never_h1():
    """Two copies of a deterministic bot: every pair differs by exactly 0. The variance is 0,
    which a plain normal approximation cannot divide by; the exact model accepts H0."""
    test = SequentialTest(grid=(-1, -0.5, 0, 0.5, 1), delta=0.1)
    for _ in range(10_000):
        test.add(0)
        if test.verdict:
            break
    assert test.verdict == "H0"
    assert 5 <= test.decided_at <= 100
    assert test.mean == 0 and test.half_width == 0


def test_profile_is_the_constrained_maximum():
    """Brute force over every distribution on a 3-point grid with the required mean."""
    grid = np.array([-1.0, 0.0, 2.0])
    p = np.array([0.2, 0.5, 0.3])
    for mu in (-0.5, 0.0, 0.3, 1.2):
        # q = (x, y, z): x + y + z = 1, -x + 2 z = mu  ->  one free parameter z
        zs = np.linspace(1e-9, 1, 2_000_001)
        xs = 2 * zs - mu
        ys = 1 - xs - zs
        ok = (xs > 0) & (ys > 0)
        q = np.stack([xs[ok], ys[ok], zs[ok]], -1)
        best = (p * np.log(q)).sum(-1).max()
        lost = float((p * np.log(p)).sum()) - best
        assert _profile(grid, p, mu) == pytest.approx(lost, abs=1e-8)


def test_llr_matches_the_normal_approximation_for_many_pairs():
    grid = np.arange(-3, 4, dtype=float)
    p = tilted(grid, [1, 2, 4, 6, 4, 2, 1], 0.12)
    counts = np.round(p * 100_000)
    n = counts.sum()
    mean = (counts * grid).sum() / n
    var = (counts * grid**2).sum() / n - mean**2
    delta = 0.05
    approx = n * delta * (mean - delta / 2) / var
    assert llr(grid, counts, 0.0, delta) == pytest.approx(approx, rel=0.02)
    # and the sign follows the mean
    assert llr(grid, counts, 0.0, 0.3) < 0 < llr(grid, counts, 0.0, 0.1)


def test_wald_bounds_and_parameter_checks():
    lower, upper = wald_bounds(0.05, 0.05)
    assert lower == pytest.approx(-2.944, abs=1e-3) and upper == pytest.approx(2.944, abs=1e-3)
    for bad in (
        dict(delta=0),
        dict(delta=1.0),
        dict(delta=-0.1),
        dict(alpha=0),
        dict(beta=0.5),
        dict(delta=float("nan")),
    ):
        kwargs = dict(grid=(-1, 0, 1), delta=0.1) | bad
        with pytest.raises(ValueError):
            SequentialTest(**kwargs)
    test = SequentialTest(grid=(-1, 0, 1), delta=0.1)
    with pytest.raises(ValueError):
        test.add(0.5)
    assert REGULARIZE < 0.01
