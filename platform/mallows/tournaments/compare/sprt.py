"""The sequential test: is the mean of paired observations 0 or ``delta``? Pure: no I/O.

Observations take values on a finite grid (the possible place differences of a pair). The
test is Wald's SPRT with the *generalised* log-likelihood ratio of the exact model, a
multinomial over that grid (as fastchess and fishtest do for chess game pairs, whose outcomes
are the five "pentanomial" values), for

    H0: mean = mu0 (= 0, "A is not better")   against   H1: mean = mu1 (= delta).

For each hypothesis the likelihood is maximised over every distribution on the grid with that
mean (the shape of the distribution, its variance included, is a nuisance parameter); the
constrained maximum has the closed form ``q_i = p_i / (1 + lam (a_i - mu))`` (``p``: the
observed frequencies, ``a``: the grid) with one number ``lam`` found by bisection, and

    LLR = N * (L(mu0) - L(mu1)),   L(mu) = max_lam sum_i p_i log(1 + lam (a_i - mu)).

Every cell of the grid gets a tiny pseudo-count (``REGULARIZE``, as fishtest does) so that the
constrained maxima exist from the first observation on. The test stops at the first
observation where LLR <= log(beta / (1 - alpha)) (accept H0) or LLR >= log((1 - beta) / alpha)
(accept H1): Wald's bounds (Wald 1945), which keep the error rates at or below alpha and beta up
to the overshoot. Since the LLR grows with the observed mean, a true mean below 0 is accepted
as H1 less often than alpha, and one above delta accepted as H0 less often than beta.

``simulate`` runs many tests at once on synthetic data (numpy, vectorised over the runs): the
tests (tests/test_compare_stats.py) and the benchmark use it to measure the error rates and
the expected number of pairs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence
from statistics import NormalDist

import numpy as np
from numpy.typing import ArrayLike

REGULARIZE = 1e-3  # pseudo-count added to every cell of the grid
BISECTIONS = 48  # halvings of lam's interval: far below any LLR difference that matters
Z95 = NormalDist().inv_cdf(0.975)


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """(lower, upper): accept H0 at LLR <= lower, H1 at LLR >= upper."""
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def _profile(grid: np.ndarray, p: np.ndarray, mu: float) -> np.ndarray:
    """``max_lam sum_i p_i log(1 + lam (grid_i - mu))`` over the last axis of ``p``: minus the
    log-likelihood lost (per observation) by forcing the mean to ``mu``. Needs
    ``min(grid) < mu < max(grid)`` and every ``p_i > 0``."""
    d = grid - mu
    # 1 + lam * d_i > 0 for every i: lam in (-1 / max d, -1 / min d); the derivative
    # g(lam) = sum p d / (1 + lam d) falls from +inf to -inf across it: one root
    lo = np.full(p.shape[:-1], -1.0 / d.max())
    hi = np.full(p.shape[:-1], -1.0 / d.min())
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        g = (p * d / (1.0 + mid[..., None] * d)).sum(-1)
        up = g > 0
        lo = np.where(up, mid, lo)
        hi = np.where(up, hi, mid)
    lam = 0.5 * (lo + hi)
    return (p * np.log1p(lam[..., None] * d)).sum(-1)


def llr(grid: ArrayLike, counts: ArrayLike, mu0: float, mu1: float) -> np.ndarray | float:
    """The generalised LLR of mean ``mu1`` against ``mu0`` for ``counts`` (last axis: one count
    per grid value; leading axes: independent tests)."""
    grid = np.asarray(grid, dtype=float)
    c = np.asarray(counts, dtype=float) + REGULARIZE
    n = c.sum(-1)
    p = c / n[..., None]
    out = n * (_profile(grid, p, mu0) - _profile(grid, p, mu1))
    return float(out) if np.ndim(out) == 0 else out


def fixed_sample_size(
    sigma0: float, delta: float, alpha: float, beta: float, sigma1: float | None = None
) -> int:
    """Pairs a fixed-size one-sided z-test needs for the same errors: alpha at mean 0 (where
    the observations have standard deviation ``sigma0``), beta at mean ``delta`` (``sigma1``,
    default ``sigma0``): ``n = ((z_{1-alpha} sigma0 + z_{1-beta} sigma1) / delta) ** 2``."""
    sigma1 = sigma0 if sigma1 is None else sigma1
    z = NormalDist().inv_cdf
    return math.ceil(((z(1 - alpha) * sigma0 + z(1 - beta) * sigma1) / delta) ** 2)


@dataclass
class SequentialTest:
    """One running test. ``add(x)`` an observation (a value of ``grid``), read ``verdict``
    (``"H1"``, ``"H0"`` or ``None`` while undecided), ``llr``, ``mean``, ``half_width``."""

    grid: tuple[float, ...]
    delta: float
    alpha: float = 0.05
    beta: float = 0.05
    counts: list[int] = field(default_factory=list)
    n: int = 0
    total: float = 0.0
    squares: float = 0.0
    llr: float = 0.0
    verdict: str | None = None
    decided_at: int | None = None  # the observation that crossed a bound

    def __post_init__(self) -> None:
        check_parameters(self.grid, self.delta, self.alpha, self.beta)
        self.counts = [0] * len(self.grid)
        self._index = {float(v): i for i, v in enumerate(self.grid)}
        self.lower, self.upper = wald_bounds(self.alpha, self.beta)

    def add(self, x: float) -> None:
        """One more observation; once decided, the verdict stays (later ones are ignored)."""
        if self.verdict is not None:
            return
        i = self._index.get(float(x))
        if i is None:
            raise ValueError(f"observation {x} is not on the grid {self.grid}")
        self.counts[i] += 1
        self.n += 1
        self.total += x
        self.squares += x * x
        self.llr = float(llr(self.grid, self.counts, 0.0, self.delta))
        if self.llr >= self.upper:
            self.verdict, self.decided_at = "H1", self.n
        elif self.llr <= self.lower:
            self.verdict, self.decided_at = "H0", self.n

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else 0.0

    @property
    def half_width(self) -> float:
        """Half the 95% confidence interval of the mean (normal approximation)."""
        if self.n < 2:
            return math.inf
        var = max(0.0, (self.squares - self.n * self.mean**2) / (self.n - 1))
        return Z95 * math.sqrt(var / self.n)

    @property
    def progress(self) -> float:
        """How far the LLR has gone towards the bound it is heading for (1.0 = reached)."""
        return self.llr / self.upper if self.llr >= 0 else self.llr / self.lower


def check_parameters(grid: Sequence[float], delta: float, alpha: float, beta: float) -> None:
    """ValueError unless 0 < alpha, beta < 0.5 and 0 < delta < the grid's largest value."""
    for name, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, (int, float)) and 0 < value < 0.5):
            raise ValueError(f"{name} must be above 0 and below 0.5, got {value}: 0.05 is usual")
    top = max(grid)
    if not (isinstance(delta, (int, float)) and math.isfinite(delta) and 0 < delta < top):
        raise ValueError(
            f"delta must be above 0 and below {top:g} (the largest possible "
            f"difference per pair), got {delta}: e.g. 0.1 place per match"
        )


def tilted(grid: ArrayLike, base: ArrayLike, mean: float) -> np.ndarray:
    """The distribution on ``grid`` closest to ``base`` (exponential tilting) with the given
    mean: synthetic data with a known true effect and a realistic shape."""
    grid = np.asarray(grid, dtype=float)
    base = np.asarray(base, dtype=float) / np.sum(base)
    lo, hi = -50.0, 50.0
    for _ in range(200):
        theta = 0.5 * (lo + hi)
        w = base * np.exp(theta * (grid - grid.mean()))
        w /= w.sum()
        if (w * grid).sum() < mean:
            lo = theta
        else:
            hi = theta
    return w


def simulate(
    grid: ArrayLike,
    probs: ArrayLike,
    delta: float,
    alpha: float,
    beta: float,
    runs: int,
    max_pairs: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray]:
    """Run ``runs`` independent tests on observations drawn from ``probs`` over ``grid``.
    Returns (verdict per run: +1 H1, -1 H0, 0 undecided at ``max_pairs``; pairs used)."""
    grid = np.asarray(grid, dtype=float)
    check_parameters(tuple(grid), delta, alpha, beta)
    lower, upper = wald_bounds(alpha, beta)
    counts = np.zeros((runs, len(grid)))
    verdict = np.zeros(runs, dtype=int)
    pairs = np.full(runs, max_pairs)
    active = np.arange(runs)
    cdf = np.cumsum(probs) / np.sum(probs)
    for step in range(1, max_pairs + 1):
        if active.size == 0:
            break
        draws = np.minimum(
            np.searchsorted(cdf, rng.random(active.size), side="right"), len(grid) - 1
        )
        counts[active, draws] += 1
        value = llr(grid, counts[active], 0.0, delta)
        value = np.atleast_1d(value)
        up, down = value >= upper, value <= lower
        verdict[active[up]] = 1
        verdict[active[down]] = -1
        done = up | down
        pairs[active[done]] = step
        active = active[~done]
    return verdict, pairs
