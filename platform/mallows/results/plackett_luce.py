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

**Read both ways.** Plackett-Luce read down the places (the winner picked first) is the model
of a race won by the best luck (Gumbel noise): it learns most from who won and least from who
came last. A card game's last place says as much as its first (an Arschmallows total is a sum
of cards), so by default (``both_ways``) the fit maximises the mean of that log-likelihood and
the one read up the places (the last place picked first, by weakness ``exp(-theta)``): a
composite likelihood, concave as each half is, symmetric in first and last. On a simulated
Thurstone field (Gaussian luck, TrueSkill's own model) reading down only recovers the true
order worse than online TrueSkill, both ways as well as it; on a Gumbel field reading down
only is best and both ways still matches TrueSkill (``benchmarks/bench_ladder.py`` prints
the figures). ``both_ways=False`` gives the plain model.

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

import math

from dataclasses import dataclass
from itertools import chain
from typing import Iterable, Sequence

import numpy as np

from mallows.results.interface import Result

PRIOR_SD = 3.0  # the prior's spread of log-strength: a 20x strength ratio is 1 sd
DRAWS = 4000  # Laplace samples for rank intervals (Monte Carlo error of a P: < 0.008)
LEVEL = 0.95
MAX_ITERATIONS = 100
TOLERANCE = 1e-9  # Newton stops when no log-strength moves more than this


@dataclass(frozen=True)
class BotRating:
    """One bot's line of the whole-history table."""

    rank: int  # 1 = best, in the fitted order (rating, then name)
    bot: str
    rating: float  # posterior mode of the log-strength
    sd: float  # its standard deviation (Laplace)
    low: float  # the ``level`` interval of the rating
    high: float
    rank_low: int  # the ``level`` interval of the rank (1 = best)
    rank_high: int
    p_top: tuple[float, ...]  # p_top[k - 1] = P(rank <= k), k = 1..n
    matches: int
    mean_place: float  # 1 = first; 0.0 for a bot without a match


@dataclass(frozen=True, eq=False)
class HistoryFit:
    """The fit: modes, covariance and sampled ranks. Arrays are indexed like ``bots``."""

    bots: tuple[str, ...]  # sorted names
    theta: np.ndarray  # (n,) posterior mode
    cov: np.ndarray  # (n, n) Laplace covariance
    rank_draws: np.ndarray  # (draws, n) 1-based rank of each bot in each draw
    played: np.ndarray  # (n,) matches each bot played
    mean_place: np.ndarray  # (n,) mean 1-based place (0.0: no match)
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

    def expected_place(self, bot: str, players: int) -> float:
        """The fit's expected place (1 = first) of ``bot`` at a table of ``players`` seats
        whose other seats are drawn at random from the rest of the field: 1 plus, per other
        seat, the mean over the field of P(that bot finishes ahead), which under
        Plackett-Luce is ``w_j / (w_i + w_j)`` whatever else sits at the table. Unlike the raw
        mean place it does not depend on whom the bot happened to meet."""
        i = self.index(bot)
        others = [j for j in range(len(self.bots)) if j != i]
        if not others or players < 2:
            return 1.0
        ahead = [1.0 / (1.0 + math.exp(self.theta[i] - self.theta[j])) for j in others]
        return 1.0 + (players - 1) * sum(ahead) / len(ahead)

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
            out.append(
                BotRating(
                    rank,
                    self.bots[i],
                    float(self.theta[i]),
                    float(sd[i]),
                    float(self.theta[i] - z * sd[i]),
                    float(self.theta[i] + z * sd[i]),
                    int(lo),
                    int(hi),
                    p_top,
                    played,
                    float(self.mean_place[i]),
                )
            )
        return out

    def rating(self, bot: str) -> BotRating:
        for row in self.rows():
            if row.bot == bot:
                return row
        raise KeyError(f"no bot {bot!r} in the fit")

    def row_dicts(self) -> list[dict]:
        """``rows()`` as plain values (lists, floats, ints) for storage and JSON."""
        return [
            {
                "rank": r.rank,
                "bot": r.bot,
                "rating": r.rating,
                "sd": r.sd,
                "low": r.low,
                "high": r.high,
                "rank_low": r.rank_low,
                "rank_high": r.rank_high,
                "p_top": list(r.p_top),
                "matches": r.matches,
                "mean_place": r.mean_place,
            }
            for r in self.rows()
        ]


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

    bots: np.ndarray  # (U, S) bot index, padded with n
    start: np.ndarray  # (U, S) first sorted position of the seat's tie group
    end: np.ndarray  # (U, S) last sorted position of the seat's tie group
    valid: np.ndarray  # (U, S) bool: a real seat
    count: np.ndarray  # (U,) how many matches have this pattern
    pairs: np.ndarray  # (U, P) flat index b_j * (n + 1) + b_k of the seat pairs j < k
    first: np.ndarray  # (P,) j of each pair
    second: np.ndarray  # (P,) k of each pair
    lower: np.ndarray  # (U, P) flat index into a (U, S) array: row, end of the j-k pair's
    # better tie group (the last seat that can pick both)
    start_at: np.ndarray  # (U, S) flat index of each seat's ``start`` in a (U, S) array
    end_at: np.ndarray  # (U, S) flat index of each seat's ``end``


PAD_RANK = np.iinfo(np.int32).max  # the place of a padding seat: behind every real one


class Folded:
    """Results folded as they arrive, so a fit over 10^5 or 10^6 matches holds the distinct
    matches (in canonical form, with a count each) and per-bot sums, never the matches
    themselves: ``add`` one result, ``matches`` so far, ``bots`` met so far.

    Results are gathered ``CHUNK`` at a time, then each chunk is turned into arrays indexed by
    the order bots were first met, put into a canonical form that depends only on the match
    (seats sorted by place, then bot; places renumbered densely) and merged with what came
    before. ``fit_history`` renumbers the bots by name at the end and canonicalises again, so
    the fit is bit-identical to one over every match at once, in any order."""

    CHUNK = 4096

    def __init__(self) -> None:
        self.index: dict[str, int] = {}  # bot -> index, in the order first met
        self._folded = 0  # matches of two seats or more folded so far
        self._buffer: list[tuple[Sequence[str], Sequence[int]]] = []
        self._rows: dict[int, list[tuple[np.ndarray, np.ndarray, np.ndarray]]] = {}
        self._kept: dict[int, int] = {}  # rows per width at the last merge
        self._seated = np.zeros(0, dtype=np.int64)
        self._played = np.zeros(0, dtype=np.int64)
        self._places = np.zeros(0, dtype=np.float64)

    @property
    def bots(self) -> list[str]:
        return list(self.index)

    @property
    def matches(self) -> int:
        """Matches of two seats or more added (one seat says nothing of strength)."""
        return self._folded + len(self._buffer)

    def add(self, players: Sequence[str], ranks: Sequence[int]) -> None:
        if len(players) != len(ranks):
            raise ValueError(f"{len(players)} players but {len(ranks)} ranks")
        for name in players:
            if name not in self.index:
                self.index[name] = len(self.index)
        if len(players) > 1:
            self._buffer.append((players, ranks))
            if len(self._buffer) >= self.CHUNK:
                self._flush()

    def _flush(self) -> None:
        some, self._buffer = self._buffer, []
        if not some:
            return
        n = len(self.index)
        self._grow(n)
        for w in sorted({len(players) for players, _ in some}):
            these = [res for res in some if len(res[0]) == w]
            k = len(these)
            seats = chain.from_iterable([players for players, _ in these])
            b = np.fromiter(map(self.index.__getitem__, seats), np.int64, count=k * w)
            b = b.reshape(k, w)
            places = chain.from_iterable([ranks for _, ranks in these])
            r = np.fromiter(places, np.int64, count=k * w).reshape(k, w)
            seated, played, placed = _counts(b, r, n)
            self._seated += seated
            self._played += played
            self._places += placed
            self._folded += k
            cb, dense = _canonical(b, r, n)
            rows, counts = _merge(cb, dense, np.ones(k, dtype=np.int64))
            self._rows.setdefault(w, []).append((rows[:, :w], rows[:, w:], counts))
            total = sum(len(c) for _, _, c in self._rows[w])
            if total > 2 * self._kept.get(w, 0) + self.CHUNK:  # merge what was gathered
                parts = self._rows[w]
                rows, counts = _merge(
                    np.concatenate([p[0] for p in parts]),
                    np.concatenate([p[1] for p in parts]),
                    np.concatenate([p[2] for p in parts]),
                )
                self._rows[w] = [(rows[:, :w], rows[:, w:], counts)]
                self._kept[w] = len(counts)

    def _grow(self, n: int) -> None:
        extra = n - len(self._seated)
        if extra > 0:
            self._seated = np.concatenate([self._seated, np.zeros(extra, dtype=np.int64)])
            self._played = np.concatenate([self._played, np.zeros(extra, dtype=np.int64)])
            self._places = np.concatenate([self._places, np.zeros(extra)])

    def arrays(
        self, ordered: tuple[str, ...]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(bots, places, counts, played, mean place): the distinct matches as (U, S) arrays
        over the bots numbered as in ``ordered`` (padded with ``len(ordered)`` at
        ``PAD_RANK``), each with its count; and per bot in ``ordered`` its matches and mean
        1-based place (0.0 without a match)."""
        self._flush()
        n = len(ordered)
        self._grow(len(self.index))
        position = {name: i for i, name in enumerate(ordered)}
        to = np.array([position[name] for name in self.index] + [n], dtype=np.int64)
        seated = np.zeros(n, dtype=np.int64)
        played = np.zeros(n, dtype=np.int64)
        places = np.zeros(n)
        at = to[: len(self.index)]
        seated[at], played[at], places[at] = self._seated, self._played, self._places
        mean_place = places / np.maximum(seated, 1)
        widths = sorted(self._rows)
        if not widths:
            none = np.zeros((0, 2), dtype=np.int64)
            return none, none, np.zeros(0, dtype=np.int64), played, mean_place
        width = max(widths)
        parts_b, parts_r, parts_c = [], [], []
        for w in widths:
            for b, dense, counts in self._rows[w]:
                pb = np.full((len(b), width), n, dtype=np.int64)
                pr = np.full((len(b), width), PAD_RANK, dtype=np.int64)
                pb[:, :w] = to[b]
                pr[:, :w] = dense
                parts_b.append(pb)
                parts_r.append(pr)
                parts_c.append(counts)
        return (
            np.concatenate(parts_b),
            np.concatenate(parts_r),
            np.concatenate(parts_c),
            played,
            mean_place,
        )


def _counts(b: np.ndarray, r: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per bot over the matches ``b``/``r`` (bots below ``n``): its seats, the matches it
    played (a bot seated twice, in self-play, played one match) and the sum of its 1-based
    places over its seats."""
    valid = b < n
    seated = np.bincount(b[valid], minlength=n + 1)[:n]
    places = np.bincount(b[valid], weights=(r[valid] + 1).astype(float), minlength=n + 1)[:n]
    sb = np.sort(b, axis=1)
    first = np.concatenate([np.ones((len(sb), 1), dtype=bool), sb[:, 1:] != sb[:, :-1]], axis=1)
    played = np.bincount(sb[first & (sb < n)], minlength=n + 1)[:n]
    return seated.astype(np.int64), played.astype(np.int64), places


def _canonical(b: np.ndarray, r: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each match in canonical seat order, by place then bot (the likelihood is symmetric
    within a tie), with its places renumbered densely (only their relative order matters)."""
    m = len(b)
    order = np.argsort(r * (n + 1) + b, axis=1, kind="stable")
    b = np.take_along_axis(b, order, axis=1)
    r = np.take_along_axis(r, order, axis=1)
    same = np.concatenate([np.zeros((m, 1), dtype=bool), r[:, 1:] == r[:, :-1]], axis=1)
    return b, np.cumsum(~same, axis=1) - 1


def _merge(b: np.ndarray, dense: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Identical canonical matches merged, their counts summed: (rows ``[bots | places]``
    sorted as ``np.unique`` sorts them, counts)."""
    uniq, inverse = np.unique(np.concatenate([b, dense], axis=1), axis=0, return_inverse=True)
    summed = np.bincount(inverse.ravel(), weights=count, minlength=len(uniq))
    return uniq, summed.astype(np.int64)


def _patterns(b: np.ndarray, r: np.ndarray, n: int, weight: np.ndarray) -> _Patterns:
    """The distinct matches in canonical form (see ``_Patterns``), each with its count: the
    matches ``b``/``r``, match ``i`` standing for ``weight[i]`` identical ones."""
    m, width = b.shape
    if not m:
        empty = np.zeros((0, width), dtype=np.int64)
        none = np.zeros(0, dtype=np.int64)
        return _Patterns(
            empty,
            empty,
            empty,
            empty.astype(bool),
            np.zeros(0),
            empty[:, :0],
            none,
            none,
            empty[:, :0],
            empty,
            empty,
        )
    b, dense = _canonical(b, r, n)
    # merge identical matches (np.unique sorts: the canonical match order), through one
    # integer key per match when the seats' (bot, place) pairs fit 63 bits
    radix = (n + 1) * width
    if width * np.log2(radix) < 63:
        key = np.zeros(m, dtype=np.int64)
        for j in range(width):
            key = key * radix + (b[:, j] * width + dense[:, j])
        uniq_key, inverse = np.unique(key, return_inverse=True)
        count = np.bincount(inverse.ravel(), weights=weight, minlength=len(uniq_key))
        digits = np.empty((len(uniq_key), width), dtype=np.int64)
        rest = uniq_key.copy()
        for j in range(width - 1, -1, -1):
            digits[:, j] = rest % radix
            rest //= radix
        b, dense = digits // width, digits % width
    else:
        uniq, count = _merge(b, dense, weight)
        b, dense = uniq[:, :width], uniq[:, width:]
    pos = np.arange(width)
    start = np.empty_like(dense)
    end = np.empty_like(dense)
    for j in range(width):  # width is a table's seat count: a short loop
        eq = dense == dense[:, j : j + 1]
        start[:, j] = np.where(eq, pos, width).min(axis=1)
        end[:, j] = np.where(eq, pos, -1).max(axis=1)
    first, second = np.triu_indices(width, k=1)
    pairs = b[:, first] * (n + 1) + b[:, second]
    row = (np.arange(len(b)) * width)[:, None]
    lower = row + np.minimum(end[:, first], end[:, second])
    return _Patterns(
        b,
        start,
        end,
        b < n,
        count.astype(np.float64),
        pairs,
        first,
        second,
        lower,
        row + start,
        row + end,
    )


def _log_likelihood(
    theta: np.ndarray, pat: _Patterns, n: int, hessian: bool
) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Plackett-Luce (Breslow ties) log-likelihood of ``pat``, its gradient and (if asked)
    its Hessian at ``theta``."""
    if not len(pat.count):
        return 0.0, np.zeros(n), (np.zeros((n, n)) if hessian else None)
    ext = np.append(theta, -np.inf)
    th = ext[pat.bots]
    shift = np.max(np.where(pat.valid, th, -np.inf), axis=1, keepdims=True)
    ex = np.where(pat.valid, np.exp(th - shift), 0.0)
    rev = np.cumsum(ex[:, ::-1], axis=1)[:, ::-1]  # sum of ex over positions >= j
    denom = rev.ravel()[pat.start_at]  # the seat's risk set
    denom = np.where(pat.valid, denom, 1.0)
    c = pat.count[:, None]
    logp = np.where(pat.valid, th - shift - np.log(denom), 0.0)
    value = float(np.sum(c * logp))
    inv = np.where(pat.valid, 1.0 / denom, 0.0)
    cum = np.cumsum(inv, axis=1)
    q = ex * cum.ravel()[pat.end_at]  # expected picks of each seat
    w = c * (pat.valid - q)
    grad = np.bincount(pat.bots.ravel(), weights=w.ravel(), minlength=n + 1)[:n].astype(float)
    if not hessian:
        return value, grad, None
    # the Hessian: -sum over picks of (diag(p) - p p^T); the p p^T part of seats j and k sums
    # ex_j ex_k / denom_i^2 over the picks i that can take both (cumulative sums of 1/denom^2)
    cum2 = np.cumsum(inv * inv, axis=1)
    self_ = c * ex * ex * cum2.ravel()[pat.end_at]  # the pairs j = k
    cross = c * ex[:, pat.first] * ex[:, pat.second] * cum2.ravel()[pat.lower]
    flat = np.bincount(pat.pairs.ravel(), weights=cross.ravel(), minlength=(n + 1) ** 2)
    upper = flat.astype(float).reshape(n + 1, n + 1)[:n, :n]
    h = upper + upper.T  # j < k and k < j alike
    diag = np.bincount(pat.bots.ravel(), weights=(self_ - c * q).ravel(), minlength=n + 1)
    h[np.diag_indices(n)] += diag[:n]
    return value, grad, h


def _objective(
    theta: np.ndarray, down: _Patterns, up: _Patterns | None, n: int, prior_var: float
) -> tuple[float, np.ndarray, np.ndarray]:
    """The log-posterior: the Plackett-Luce log-likelihood read down the places (``down``)
    or, with ``up``, the mean of it and the one read up them, plus the Gaussian prior."""
    value, grad, h = _log_likelihood(theta, down, n, True)
    assert h is not None
    if up is not None:
        v2, g2, h2 = _log_likelihood(-theta, up, n, True)
        assert h2 is not None
        value, grad, h = (value + v2) / 2, (grad - g2) / 2, (h + h2) / 2
    value -= float(theta @ theta) / (2 * prior_var)
    grad = grad - theta / prior_var
    h = h.copy()
    h[np.diag_indices(n)] -= 1.0 / prior_var
    return value, grad, h


def fit_history(
    results: Iterable[Result] | Folded,
    bots: Iterable[str] = (),
    *,
    prior_sd: float = PRIOR_SD,
    draws: int = DRAWS,
    seed: int = 0,
    level: float = LEVEL,
    both_ways: bool = True,
) -> HistoryFit:
    """Fit Plackett-Luce (Breslow ties, Gaussian prior) to every result at once.

    ``results`` are ``(players by seat, 0-based competition ranks)`` in any order; ``bots``
    adds bots without a result. The fit is bit-identical for any order of the results and of
    the seats within each. ``draws`` Laplace samples (seeded with ``seed``) give the rank
    intervals and P(rank <= k). ``both_ways`` (the default) reads each order from the top
    and from the bottom (see the module docstring); False: from the top only."""
    if not prior_sd > 0:
        raise ValueError(f"prior_sd must be above 0, got {prior_sd!r}")
    if not 0 < level < 1:
        raise ValueError(f"level must be above 0 and below 1, got {level!r}")
    if isinstance(results, Folded):
        folded = results
    else:
        folded = Folded()
        for players, ranks in results:
            folded.add(players, ranks)
    ordered = tuple(sorted(set(bots) | set(folded.index)))
    n = len(ordered)
    b, r, weight, played, mean_place = folded.arrays(ordered)
    m = folded.matches
    down = _patterns(b, r, n, weight)
    up = _patterns(b, np.where(b < n, -r, PAD_RANK), n, weight) if both_ways else None
    prior_var = prior_sd**2
    theta = np.zeros(n)
    iterations = 0
    if n and not m:
        cov = np.eye(n) * prior_var  # no match: the prior alone
    elif n:
        value, grad, h = _objective(theta, down, up, n, prior_var)
        while iterations < MAX_ITERATIONS:
            iterations += 1
            step = np.linalg.solve(-h, grad)
            scale = 1.0
            while True:  # Newton's step, halved until the posterior rises (it is concave)
                trial = theta + scale * step
                new_value, new_grad, new_h = _objective(trial, down, up, n, prior_var)
                if new_value >= value - 1e-12 * abs(value) or scale < 1e-6:
                    break
                scale /= 2
            moved = float(np.max(np.abs(trial - theta)))
            theta, value, grad, h = trial, new_value, new_grad, new_h
            if moved < TOLERANCE:
                break
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
    return HistoryFit(
        ordered,
        theta - theta.mean() if n else theta,
        cov,
        rank_draws,
        played,
        mean_place,
        m,
        iterations,
        level,
    )


def _rank_draws(
    theta: np.ndarray, cov: np.ndarray, draws: int, seed: int, names: tuple[str, ...]
) -> np.ndarray:
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
