"""The whole-history rating: one Plackett-Luce fit over every match at once. Pure functions.

Online TrueSkill (``ratings``) reads the matches one after another, so its table depends on the
order they were played in and weighs each match by when it came. A standing ladder's final
order must not: ``fit_history`` maximises one likelihood over all the results together, so the
same set of matches in any order (and any seat order within a match) gives the bit-identical
fit (the matches are put into a canonical order and identical ones merged before any
arithmetic).

**Why Plackett-Luce, not TrueSkill Through Time.** A match's result is an order of places, and
Plackett-Luce is the likelihood of an order: the winner is picked from the table with
probability proportional to strength ``exp(theta)``, then the second from the rest, and so on.
Its log-likelihood is concave in the log-strengths, so with a Gaussian prior the posterior has
one mode, Newton's method finds it in a handful of iterations, and the Hessian at the mode is
exactly the Laplace approximation's precision: intervals, rank intervals and P(rank <= k) come
from one Cholesky factor. TrueSkill Through Time without drift fits the same kind of model
(a Thurstone order likelihood) by expectation propagation over a factor graph of every match:
an approximation of an approximation, iterated to convergence over all matches with no
convexity guarantee, and far slower in Python. Drift is the point of TTT and bots are fixed
programs (``ratings`` uses tau = 0 for the same reason), so the simpler exact-mode model wins.

**Ties** (shared places, which both games produce) use Breslow's rule from survival analysis:
each bot of a tied group is picked from the same remaining set, so a match with ranks
``[0, 0, 2]`` contributes ``w_a w_b / (w_a + w_b + w_c)^2 * w_c / w_c``. It keeps the
likelihood concave, is symmetric in the tied bots and needs no extra parameter; a tie is
evidence the tied bots are close.

**Prior.** ``theta ~ N(0, PRIOR_SD^2)`` independently: an unbeaten bot stays finite, a bot with
no match gets the prior (a wide interval), and the field's mean sits near 0. With hundreds of
matches per bot the prior hardly moves the mode.

**The computation.** Seats are sorted by place within each match, identical matches (the same
bots in the same places) merged with a count, and each Newton step is a few vectorised passes
over (matches x seats) arrays: the risk-set sums are reverse cumulative sums, the gradient and
the Hessian's diagonal cumulative sums of their inverses, the Hessian's off-diagonal one
``bincount`` over seat pairs. A step halves until the log-posterior rises, so it always
converges. Ranks come from ``draws`` samples of the Laplace approximation N(mode, H^-1), drawn
from a ``numpy`` generator seeded with ``seed`` (deterministic, never global randomness).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

import numpy as np

from mallows.results.interface import Result

PRIOR_SD = 3.0     # the prior's spread of log-strength: a 20x strength ratio is 1 sd
DRAWS = 4000       # Laplace samples for rank intervals (Monte Carlo error of a P: < 0.008)
LEVEL = 0.95
MAX_ITERATIONS = 100
TOLERANCE = 1e-9   # Newton stops when no log-strength moves more than this


@dataclass(frozen=True)
class BotRating:
    """One bot's line of the whole-history table."""

    rank: int                    # 1 = best, in the fitted order (rating, then name)
    bot: str
    rating: float                # posterior mode of the log-strength
    sd: float                    # its standard deviation (Laplace)
    low: float                   # the ``level`` interval of the rating
    high: float
    rank_low: int                # the ``level`` interval of the rank (1 = best)
    rank_high: int
    p_top: tuple[float, ...]     # p_top[k - 1] = P(rank <= k), k = 1..n
    matches: int
    mean_place: float            # 1 = first; 0.0 for a bot without a match


@dataclass(frozen=True, eq=False)
class HistoryFit:
    """The fit: modes, covariance and sampled ranks. Arrays are indexed like ``bots``."""

    bots: tuple[str, ...]        # sorted names
    theta: np.ndarray            # (n,) posterior mode
    cov: np.ndarray              # (n, n) Laplace covariance
    rank_draws: np.ndarray       # (draws, n) 1-based rank of each bot in each draw
    played: np.ndarray           # (n,) matches each bot played
    mean_place: np.ndarray       # (n,) mean 1-based place (0.0: no match)
    matches: int
    iterations: int
    level: float

    def index(self, bot: str) -> int:
        try:
            return self.bots.index(bot)
        except ValueError:
            raise KeyError(f"no bot {bot!r} in the fit") from None

    def order(self) -> list[str]:
        """Best first: by rating, then by name."""
        return [self.bots[i] for i in self._order()]

    def _order(self) -> list[int]:
        return sorted(range(len(self.bots)), key=lambda i: (-self.theta[i], self.bots[i]))

    def rank_of(self, bot: str) -> int:
        return self.order().index(bot) + 1

    def p_rank_at_most(self, bot: str, k: int) -> float:
        if not len(self.rank_draws):
            return 0.0
        return float(np.mean(self.rank_draws[:, self.index(bot)] <= k))

    def p_ahead(self, a: str, b: str) -> float:
        """P(``a`` is ranked ahead of ``b``)."""
        if not len(self.rank_draws):
            return 0.0
        i, j = self.index(a), self.index(b)
        return float(np.mean(self.rank_draws[:, i] < self.rank_draws[:, j]))

    def p_order(self, bots: Sequence[str]) -> float:
        """P(the draws rank ``bots`` in exactly this relative order, best first)."""
        if len(bots) < 2:
            return 1.0
        cols = self.rank_draws[:, [self.index(b) for b in bots]]
        return float(np.mean(np.all(np.diff(cols, axis=1) > 0, axis=1)))

    def p_top_set(self, k: int) -> float:
        """P(the top ``k`` of a draw are exactly the fitted top ``k``, in any order)."""
        if k >= len(self.bots):
            return 1.0
        top = self._order()[:k]
        return float(np.mean(np.all(self.rank_draws[:, top] <= k, axis=1)))

    def rows(self) -> list[BotRating]:
        n = len(self.bots)
        z = _z(self.level)
        sd = np.sqrt(np.clip(np.diag(self.cov), 0.0, None))
        tail = (1 - self.level) / 2
        out = []
        for rank, i in enumerate(self._order(), start=1):
            col = self.rank_draws[:, i]
            if len(col):
                lo, hi = np.quantile(col, [tail, 1 - tail], method="inverted_cdf")
                counts = np.bincount(col, minlength=n + 1)[1:]
                p_top = tuple(float(x) for x in np.cumsum(counts) / len(col))
            else:
                lo, hi, p_top = 1, n, tuple(0.0 for _ in range(n))
            played = int(self.played[i])
            out.append(BotRating(rank, self.bots[i], float(self.theta[i]), float(sd[i]),
                                 float(self.theta[i] - z * sd[i]),
                                 float(self.theta[i] + z * sd[i]), int(lo), int(hi), p_top,
                                 played, float(self.mean_place[i])))
        return out

    def rating(self, bot: str) -> BotRating:
        for row in self.rows():
            if row.bot == bot:
                return row
        raise KeyError(f"no bot {bot!r} in the fit")

    def row_dicts(self) -> list[dict]:
        """``rows()`` as plain values (lists, floats, ints) for storage and JSON."""
        return [{"rank": r.rank, "bot": r.bot, "rating": r.rating, "sd": r.sd, "low": r.low,
                 "high": r.high, "rank_low": r.rank_low, "rank_high": r.rank_high,
                 "p_top": list(r.p_top), "matches": r.matches, "mean_place": r.mean_place}
                for r in self.rows()]


def _z(level: float) -> float:
    """The standard normal quantile for a two-sided ``level`` interval (bisection on erf)."""
    import math

    lo, hi = 0.0, 10.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if math.erf(mid / math.sqrt(2)) < level:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class _Patterns:
    """Distinct matches in canonical form: seats sorted by (place, bot)."""

    bots: np.ndarray     # (U, S) bot index, padded with n
    start: np.ndarray    # (U, S) first sorted position of the seat's tie group
    end: np.ndarray      # (U, S) last sorted position of the seat's tie group
    valid: np.ndarray    # (U, S) bool: a real seat
    count: np.ndarray    # (U,) how many matches have this pattern
    pairs: np.ndarray    # (U, S, S) flat index b_j * (n + 1) + b_k


def _patterns(results: Iterable[Result], index: dict[str, int], n: int
              ) -> tuple[_Patterns, int, np.ndarray, np.ndarray]:
    rows_b: list[list[int]] = []
    rows_r: list[list[int]] = []
    width = 0
    for players, ranks in results:
        if len(players) != len(ranks):
            raise ValueError(f"{len(players)} players but {len(ranks)} ranks")
        if len(players) < 2:
            continue  # a match of one seat says nothing about strength
        rows_b.append([index[p] for p in players])
        rows_r.append([int(r) for r in ranks])
        width = max(width, len(players))
    played = np.zeros(n, dtype=np.int64)
    seated = np.zeros(n, dtype=np.int64)
    places = np.zeros(n, dtype=np.int64)
    m = len(rows_b)
    if not m:
        empty = np.zeros((0, 2), dtype=np.int64)
        return (_Patterns(empty, empty, empty, empty.astype(bool), np.zeros(0),
                          np.zeros((0, 2, 2), dtype=np.int64)), 0, played, places * 0.0)
    b = np.full((m, width), n, dtype=np.int64)
    r = np.full((m, width), np.iinfo(np.int32).max, dtype=np.int64)
    for i, (bb, rr) in enumerate(zip(rows_b, rows_r)):
        b[i, :len(bb)] = bb
        r[i, :len(rr)] = rr
    valid = b < n
    np.add.at(seated, b[valid], 1)
    np.add.at(places, b[valid], r[valid] + 1)
    for bb in rows_b:  # a bot seated twice (self-play) played one match
        played[list(set(bb))] += 1
    # canonical seat order: by place, then bot (the likelihood is symmetric within a tie)
    key = r * (n + 1) + b
    order = np.argsort(key, axis=1, kind="stable")
    b = np.take_along_axis(b, order, axis=1)
    r = np.take_along_axis(r, order, axis=1)
    # only the relative order of places matters: renumber them densely per match
    same = np.concatenate([np.zeros((m, 1), dtype=bool), r[:, 1:] == r[:, :-1]], axis=1)
    dense = np.cumsum(~same, axis=1) - 1
    # merge identical matches (np.unique sorts: the canonical match order)
    both = np.concatenate([b, dense], axis=1)
    uniq, count = np.unique(both, axis=0, return_counts=True)
    b, dense = uniq[:, :width], uniq[:, width:]
    valid = b < n
    pos = np.arange(width)
    start = np.empty_like(dense)
    end = np.empty_like(dense)
    for j in range(width):  # width is a table's seat count: a short loop
        eq = dense == dense[:, j:j + 1]
        start[:, j] = np.where(eq, pos, width).min(axis=1)
        end[:, j] = np.where(eq, pos, -1).max(axis=1)
    pairs = b[:, :, None] * (n + 1) + b[:, None, :]
    mean_place = places / np.maximum(seated, 1)
    return (_Patterns(b, start, end, valid, count.astype(np.float64), pairs), m, played,
            mean_place)


def _evaluate(theta: np.ndarray, pat: _Patterns, n: int, prior_var: float, hessian: bool
              ) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Log-posterior, its gradient and (if asked) its Hessian at ``theta``."""
    ext = np.append(theta, -np.inf)
    th = ext[pat.bots]
    shift = np.max(np.where(pat.valid, th, -np.inf), axis=1, keepdims=True)
    ex = np.where(pat.valid, np.exp(th - shift), 0.0)
    rev = np.cumsum(ex[:, ::-1], axis=1)[:, ::-1]          # sum of ex over positions >= j
    denom = np.take_along_axis(rev, pat.start, axis=1)     # the seat's risk set
    denom = np.where(pat.valid, denom, 1.0)
    c = pat.count[:, None]
    logp = np.where(pat.valid, th - shift - np.log(denom), 0.0)
    value = float(np.sum(c * logp)) - float(theta @ theta) / (2 * prior_var)
    inv = np.where(pat.valid, 1.0 / denom, 0.0)
    cum = np.cumsum(inv, axis=1)
    q = ex * np.take_along_axis(cum, pat.end, axis=1)      # expected picks of each seat
    w = c * (pat.valid - q)
    grad = np.bincount(pat.bots.ravel(), weights=w.ravel(), minlength=n + 1)[:n].astype(float)
    grad = grad - theta / prior_var
    if not hessian:
        return value, grad, None
    cum2 = np.cumsum(inv * inv, axis=1)
    lower = np.minimum(pat.end[:, :, None], pat.end[:, None, :])
    d = np.take_along_axis(cum2, lower.reshape(len(cum2), -1), axis=1).reshape(lower.shape)
    outer = (c[:, :, None] * ex[:, :, None] * ex[:, None, :]) * d
    flat = np.bincount(pat.pairs.ravel(), weights=outer.ravel(), minlength=(n + 1) ** 2)
    h = flat.astype(float).reshape(n + 1, n + 1)[:n, :n]
    diag = np.bincount(pat.bots.ravel(), weights=(c * q).ravel(), minlength=n + 1)[:n]
    h[np.diag_indices(n)] -= diag
    h[np.diag_indices(n)] -= 1.0 / prior_var
    return value, grad, h


def fit_history(results: Iterable[Result], bots: Iterable[str] = (), *,
                prior_sd: float = PRIOR_SD, draws: int = DRAWS, seed: int = 0,
                level: float = LEVEL) -> HistoryFit:
    """Fit Plackett-Luce (Breslow ties, Gaussian prior) to every result at once.

    ``results`` are ``(players by seat, 0-based competition ranks)`` in any order; ``bots``
    adds bots without a result. The fit is bit-identical for any order of the results and of
    the seats within each. ``draws`` Laplace samples (seeded with ``seed``) give the rank
    intervals and P(rank <= k)."""
    if not prior_sd > 0:
        raise ValueError(f"prior_sd must be above 0, got {prior_sd!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be above 0 and below 1, got {level!r}")
    results = list(results)
    names = set(bots)
    for players, _ in results:
        names.update(players)
    ordered = tuple(sorted(names))
    n = len(ordered)
    index = {name: i for i, name in enumerate(ordered)}
    pat, m, played, mean_place = _patterns(results, index, n)
    prior_var = prior_sd ** 2
    theta = np.zeros(n)
    iterations = 0
    if n and not m:
        cov = np.eye(n) * prior_var  # no match: the prior alone
    elif n:
        value, grad, h = _evaluate(theta, pat, n, prior_var, True)
        while iterations < MAX_ITERATIONS:
            iterations += 1
            assert h is not None
            step = np.linalg.solve(-h, grad)
            scale = 1.0
            while True:
                trial = theta + scale * step
                new_value, new_grad, new_h = _evaluate(trial, pat, n, prior_var, True)
                if new_value >= value - 1e-12 * abs(value) or scale < 1e-6:
                    break
                scale /= 2
            moved = float(np.max(np.abs(trial - theta)))
            theta, value, grad, h = trial, new_value, new_grad, new_h
            if moved < TOLERANCE:
                break
        assert h is not None
        cov = np.linalg.inv(-h)
        cov = (cov + cov.T) / 2
    if not n:
        cov = np.zeros((0, 0))
    rank_draws = _rank_draws(theta, cov, draws, seed, ordered)
    # Places only tell strengths apart up to a common shift (the prior alone pins the mean,
    # and the mode's mean is 0): report ratings against the field's mean, so an interval
    # holds what the matches say about a bot, not the prior's doubt about the whole field.
    centre = np.eye(n) - 1.0 / n if n else cov
    cov = centre @ cov @ centre
    return HistoryFit(ordered, theta - theta.mean() if n else theta, cov, rank_draws, played,
                      mean_place, m, iterations, level)


def _rank_draws(theta: np.ndarray, cov: np.ndarray, draws: int, seed: int,
                names: tuple[str, ...]) -> np.ndarray:
    n = len(theta)
    if not n or draws <= 0:
        return np.zeros((0, n), dtype=np.int16)
    rng = np.random.Generator(np.random.PCG64(seed))
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        vals, vecs = np.linalg.eigh(cov)
        chol = vecs * np.sqrt(np.clip(vals, 0, None))
    sample = theta + rng.standard_normal((draws, n)) @ chol.T
    # rank 1 = highest; equal samples (never in practice) broken by name, as the fitted order
    by_name = np.arange(n)
    order = np.lexsort((np.broadcast_to(by_name, sample.shape), -sample), axis=1)
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(1, n + 1)[None, :], axis=1)
    return ranks.astype(np.int16 if n < 32000 else np.int32)
