"""TrueSkill for free-for-all matches (one bot per team), bit-identical to ``trueskill`` and
about 4 times faster. Pure: floats in, floats out.

``trueskill.TrueSkill.rate`` builds a general factor graph of objects for every match; the
coordinator of a large tournament spends most of its time there. ``rate`` below runs the very
same message schedule (trueskill 0.4.5, ``run_schedule``) on flat lists of (pi, tau) numbers,
performing the same floating-point operations in the same order and calling the environment's
own ``v``/``w`` functions, so every rating it returns equals the library's bit for bit (a
property test checks this against ``env.rate``). Anything unusual (a ``FloatingPointError`` the
library would raise, or a result that is not finite) raises, and the caller falls back to the
library, which handles it as it always did.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from trueskill import TrueSkill

INF = float("inf")
DELTA = 0.0001  # trueskill's min_delta
ITERATIONS = 10  # trueskill's cap on the team-difference loop


class Env:
    """The constants of one ``trueskill.TrueSkill`` environment that ``rate`` needs."""

    def __init__(self, env: TrueSkill):
        self.env = env
        self.tau2 = env.tau**2
        self.variance = env.beta**2
        if callable(env.draw_probability):
            raise TypeError("a dynamic draw probability is not supported by the fast path")
        # calc_draw_margin(p, size=2): both teams have one player
        self.draw_margin = env.ppf((env.draw_probability + 1) / 2.0) * math.sqrt(2) * env.beta
        from trueskill import backends

        # the float backend's cdf and pdf with mu 0, sigma 1, inlined (the same operations)
        default = env.cdf is backends.cdf and env.pdf is backends.pdf
        self.cdf = _cdf if default else env.cdf
        self.pdf = _pdf if default else env.pdf


SQRT2 = 1 * math.sqrt(2)  # backends.cdf: sigma * math.sqrt(2)
PDF_C = 1 / math.sqrt(2 * math.pi) * 1  # backends.pdf: 1 / math.sqrt(2 * math.pi) * abs(sigma)


def _cdf(x: float) -> float:
    """``trueskill.backends.cdf(x)`` (its erfc approximation, the same operations)."""
    y = -x / SQRT2
    z = abs(y)
    t = 1.0 / (1.0 + z / 2.0)
    r = t * math.exp(
        -z * z
        - 1.26551223
        + t
        * (
            1.00002368
            + t
            * (
                0.37409196
                + t
                * (
                    0.09678418
                    + t
                    * (
                        -0.18628806
                        + t
                        * (
                            0.27886807
                            + t
                            * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))
                        )
                    )
                )
            )
        )
    )
    return 0.5 * (2.0 - r if y < 0 else r)


def _pdf(x: float) -> float:
    """``trueskill.backends.pdf(x)``."""
    return PDF_C * math.exp(-(x**2 / 2))


def _mu(pi: float, tau: float) -> float:
    return pi and tau / pi  # Gaussian.mu


def _add_inv(pi_inv: float, coeff2: float, pi: float) -> float:
    """``pi_inv += coeff ** 2 / float(div.pi)`` as ``SumFactor.update`` does it."""
    if pi_inv == INF:
        return pi_inv
    try:
        return pi_inv + coeff2 / float(pi)
    except ZeroDivisionError:
        return INF


def rate(e: Env, ratings: list[tuple[float, float]], ranks: list[int]) -> list[tuple[float, float]]:
    """New (mu, sigma) per seat (as ``float(rating.mu), float(rating.sigma)`` of the library's
    result) for ``ratings`` = [(pi, tau)] by seat and ``ranks`` (0 = first; ties share)."""
    env = e.env
    n = len(ratings)
    order = sorted(range(n), key=lambda i: ranks[i])  # stable, as the library sorts
    srank = [ranks[i] for i in order]
    # variable values (pi, tau); messages, named by factor
    rv_pi, rv_tau = [0.0] * n, [0.0] * n  # rating variables
    pv_pi, pv_tau = [0.0] * n, [0.0] * n  # performance variables
    tp_pi, tp_tau = [0.0] * n, [0.0] * n  # team performance variables
    m = n - 1
    dv_pi, dv_tau = [0.0] * m, [0.0] * m  # team difference variables
    # messages: prior->rv, lik->rv, lik->pv, tperf->pv, tperf->tp, diff->tp (left/right), ...
    lik_rv = [[0.0, 0.0] for _ in range(n)]
    lik_pv = [[0.0, 0.0] for _ in range(n)]
    tpf_pv = [[0.0, 0.0] for _ in range(n)]
    tpf_tp = [[0.0, 0.0] for _ in range(n)]
    dif_tp = [[[0.0, 0.0], [0.0, 0.0]] for _ in range(m)]  # diff j -> tp j (0), tp j+1 (1)
    dif_dv = [[0.0, 0.0] for _ in range(m)]
    trn_dv = [[0.0, 0.0] for _ in range(m)]

    # rating layer: PriorFactor.down (update_value; its message is never read again)
    for k, i in enumerate(order):
        pi0, tau0 = ratings[i]
        sigma = math.sqrt(math.sqrt(1 / pi0) ** 2 + e.tau2)
        pi = sigma**-2
        rv_pi[k], rv_tau[k] = pi, pi * _mu(pi0, tau0)
    # perf layer: LikelihoodFactor.down -> update_message on the perf variable
    variance = e.variance
    for k in range(n):
        msg_pi, msg_tau = rv_pi[k] - lik_rv[k][0], rv_tau[k] - lik_rv[k][1]
        a = 1.0 / (1.0 + variance * msg_pi)
        old = lik_pv[k]
        new_pi, new_tau = a * msg_pi, a * msg_tau
        lik_pv[k] = [new_pi, new_tau]
        pv_pi[k], pv_tau[k] = pv_pi[k] - old[0] + new_pi, pv_tau[k] - old[1] + new_tau
    # team perf layer: SumFactor.down with one term, coefficient 1
    for k in range(n):
        div_pi, div_tau = pv_pi[k] - tpf_pv[k][0], pv_tau[k] - tpf_pv[k][1]
        mu = 0 + 1 * _mu(div_pi, div_tau)
        pi_inv = _add_inv(0, 1, div_pi)
        pi = 1.0 / pi_inv
        old = tpf_tp[k]
        tpf_tp[k] = [pi, pi * mu]
        tp_pi[k], tp_tau[k] = tp_pi[k] - old[0] + pi, tp_tau[k] - old[1] + pi * mu

    def diff_down(j: int) -> None:
        # SumFactor(dv_j, [tp_j, tp_j+1], [+1, -1]).down()
        mu, pi_inv = 0.0, 0.0  # (0 + x and 0.0 + x are the same float: bit-identical)
        for side, coeff in ((0, 1), (1, -1)):
            t = j + side
            d_pi, d_tau = tp_pi[t] - dif_tp[j][side][0], tp_tau[t] - dif_tp[j][side][1]
            mu += coeff * _mu(d_pi, d_tau)
            if pi_inv == INF:
                continue
            try:
                pi_inv += coeff**2 / float(d_pi)
            except ZeroDivisionError:
                pi_inv = INF
        pi = 1.0 / pi_inv
        tau = pi * mu
        old = dif_dv[j]
        dif_dv[j] = [pi, tau]
        dv_pi[j], dv_tau[j] = dv_pi[j] - old[0] + pi, dv_tau[j] - old[1] + tau

    def diff_up(j: int, index: int) -> None:
        # SumFactor(dv_j, [tp_j, tp_j+1], [+1, -1]).up(index): the new message to tp_j+index.
        # The library's coefficients are [1., 1.] (index 0) or [1., -1.] (index 1) over
        # vals = [dv_j, tp_j+1] (index 0) or [tp_j, dv_j] (index 1).
        a_pi, a_tau = dv_pi[j] - dif_dv[j][0], dv_tau[j] - dif_dv[j][1]
        other = j + 1 - index  # the term that is not being updated
        msg = dif_tp[j][1 - index]
        b_pi, b_tau = tp_pi[other] - msg[0], tp_tau[other] - msg[1]
        if index == 0:
            first_pi, first_tau, second_pi, second_tau, c2 = a_pi, a_tau, b_pi, b_tau, 1.0
        else:
            first_pi, first_tau, second_pi, second_tau, c2 = b_pi, b_tau, a_pi, a_tau, -1.0
        mu = 0 + 1.0 * _mu(first_pi, first_tau)
        mu += c2 * _mu(second_pi, second_tau)
        pi_inv = _add_inv(0, 1.0, first_pi)
        pi_inv = _add_inv(pi_inv, 1.0, second_pi)  # (+-1.) ** 2 == 1.
        pi = 1.0 / pi_inv
        tau = pi * mu
        t = j + index
        old = dif_tp[j][index]
        dif_tp[j][index] = [pi, tau]
        tp_pi[t], tp_tau[t] = tp_pi[t] - old[0] + pi, tp_tau[t] - old[1] + tau

    draw_margin = e.draw_margin
    cdf, pdf = e.cdf, e.pdf

    def trunc_up(j: int) -> float:
        msg = trn_dv[j]
        div_pi, div_tau = dv_pi[j] - msg[0], dv_tau[j] - msg[1]
        sqrt_pi = math.sqrt(div_pi)
        diff, margin = div_tau / sqrt_pi, draw_margin * sqrt_pi
        if srank[j] == srank[j + 1]:
            v, w = env.v_draw(diff, margin), env.w_draw(diff, margin)
        else:  # v_win once (w_win computes it again, to the same value)
            x = diff - margin
            denom = cdf(x)
            v = (pdf(x) / denom) if denom else -x
            w = v * (v + x)
            if not 0 < w < 1:
                raise FloatingPointError("w_win out of (0, 1)")
        denom = 1.0 - w
        pi, tau = div_pi / denom, (div_tau + sqrt_pi * v) / denom
        # update_value
        trn_dv[j] = [pi + msg[0] - dv_pi[j], tau + msg[1] - dv_tau[j]]
        pi_delta = abs(dv_pi[j] - pi)
        delta = 0.0 if pi_delta == INF else max(abs(dv_tau[j] - tau), math.sqrt(pi_delta))
        dv_pi[j], dv_tau[j] = pi, tau
        return delta

    for _ in range(ITERATIONS):
        if m == 1:
            diff_down(0)
            delta = trunc_up(0)
        else:
            delta = 0
            for j in range(m - 1):
                diff_down(j)
                delta = max(delta, trunc_up(j))
                diff_up(j, 1)
            for j in range(m - 1, 0, -1):
                diff_down(j)
                delta = max(delta, trunc_up(j))
                diff_up(j, 0)
        if delta <= DELTA:
            break
    diff_up(0, 0)
    diff_up(m - 1, 1)
    # team perf layer up: SumFactor(tp_k, [pv_k], (1,)).up(0) -> message to pv_k
    for k in range(n):
        d_pi, d_tau = tp_pi[k] - tpf_tp[k][0], tp_tau[k] - tpf_tp[k][1]
        mu = 0 + 1.0 * _mu(d_pi, d_tau)
        pi_inv = _add_inv(0, 1.0**2, d_pi)
        pi = 1.0 / pi_inv
        tau = pi * mu
        old = tpf_pv[k]
        tpf_pv[k] = [pi, tau]
        pv_pi[k], pv_tau[k] = pv_pi[k] - old[0] + pi, pv_tau[k] - old[1] + tau
    # perf layer up: LikelihoodFactor.up -> message to the rating variable
    out: list = [None] * n
    for k in range(n):
        msg_pi, msg_tau = pv_pi[k] - lik_pv[k][0], pv_tau[k] - lik_pv[k][1]
        a = 1.0 / (1.0 + variance * msg_pi)
        old = lik_rv[k]
        new_pi, new_tau = a * msg_pi, a * msg_tau
        pi, tau = rv_pi[k] - old[0] + new_pi, rv_tau[k] - old[1] + new_tau
        # Rating(float(var.mu), float(var.sigma)), then the caller's mu and sigma of that
        mu, sigma = float(_mu(pi, tau)), float(math.sqrt(1 / pi) if pi else INF)
        r_pi = sigma**-2
        r_tau = r_pi * mu
        mu2, sigma2 = _mu(r_pi, r_tau), math.sqrt(1 / r_pi)
        if not (math.isfinite(mu2) and math.isfinite(sigma2)):
            raise FloatingPointError("not finite")
        out[order[k]] = (mu2, sigma2)
    return out
