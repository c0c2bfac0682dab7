"""A ladder's questions and when each is answered, read off the whole-history fit. Pure.

Three kinds, each to a stated certainty (a probability under the fit's Laplace approximation,
estimated from its sampled ranks):

- ``FullOrder(certainty)``: P(the fitted order of the whole field is exactly right) >= certainty.
  Joint, not pair by pair: twenty adjacent pairs each 95% sure make a much less sure order.
- ``TopK(k, certainty, ordered)``: P(the fitted top k are exactly the top k) >= certainty, as a
  set (a cutoff: who goes through) or, ``ordered``, in that order too.
- ``Place(bot, certainty, within)``: P(the bot's rank is within ``within`` places of its fitted
  rank) >= certainty: "where a newcomer belongs". ``within = 0`` asks for its exact rank.

``answer(question, fit)`` says whether it is answered, the probability it reached, a one-line
explanation for a status view, and its ``focus``: the bots the question is still unsure about,
most unsure first, with weights (what ``policy.extra_tables`` seats). A bot's weight is the
share of the sampled draws that break the claim with that bot out of place (for a top k: on
the wrong side of the cutoff; for a place: on the wrong side of the bot asked about; for an
order: at another rank), so the doubt that matters is weighed, not every bot that moves: a
newcomer's next neighbour may swap with it freely when the question allows +-1, the bot two
places away may not. A question's focus is empty once it is answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from mallows.results.plackett_luce import HistoryFit

DEFAULT_CERTAINTY = 0.95
#: A question's focus is the fewest most doubtful bots that together carry this share of its
#: doubt. Not a floor per bot: in a large field many bots with wide intervals each break a
#: top-3 claim rarely and together often (a 10% floor per bot left them out, and a 32-bot
#: ladder needed 3x more matches), while in a small field a low floor seats bots that hardly
#: matter (a 1% floor cost a 16-bot ladder 40% more matches than 10%).
FOCUS_COVER = 0.95


@dataclass(frozen=True)
class FullOrder:
    certainty: float = DEFAULT_CERTAINTY


@dataclass(frozen=True)
class TopK:
    k: int
    certainty: float = DEFAULT_CERTAINTY
    ordered: bool = False


@dataclass(frozen=True)
class Place:
    bot: str
    certainty: float = DEFAULT_CERTAINTY
    within: int = 1


Question = FullOrder | TopK | Place


@dataclass(frozen=True)
class Answer:
    """Where a question stands under one fit."""

    question: Question
    answered: bool
    probability: float  # the probability the question asks to reach ``certainty``
    explanation: str  # one line: answered or open, and why
    focus: tuple[str, ...] = ()  # bots still in doubt, most doubtful first (empty: answered)
    weights: tuple[float, ...] = ()  # how much doubt each focus bot carries (same order)
    anchor: str | None = None  # a bot every extra table for this question must seat


def label(q: Question) -> str:
    """A short name for a question: 'order at 95%', 'top 3 at 95%', 'exact place of x at 95%',
    'place of x to within 1 at 95%'."""
    pct = f"{q.certainty * 100:g}%"
    if isinstance(q, FullOrder):
        return f"order at {pct}"
    if isinstance(q, TopK):
        return f"top {q.k}{' in order' if q.ordered else ''} at {pct}"
    if q.within == 0:
        return f"exact place of {q.bot} at {pct}"
    return f"place of {q.bot} to within {q.within} at {pct}"


_KEYS = {
    "order": {"type", "certainty"},
    "top": {"type", "k", "certainty", "ordered"},
    "place": {"type", "bot", "certainty", "within"},
}


def parse_question(table: dict[str, Any]) -> Question:
    """A question from a ladder file's ``[[questions]]`` table; ``ValueError`` naming the key,
    what it must be and how to fix it."""
    if not isinstance(table, dict):
        raise ValueError(
            f'a question must be a table such as {{type = "top", k = 3}}, got {table!r}'
        )
    kind = table.get("type")
    if kind not in _KEYS:
        raise ValueError(
            f"`questions.type` must be one of {', '.join(sorted(_KEYS))} "
            f"(a full order, the top k, a bot's place), got {kind!r}"
        )
    unknown = sorted(set(table) - _KEYS[kind])
    if unknown:
        raise ValueError(
            f"unknown key `questions.{unknown[0]}` in a {kind!r} question: it takes "
            f"{', '.join(sorted(_KEYS[kind]))}"
        )
    certainty = table.get("certainty", DEFAULT_CERTAINTY)
    if (
        isinstance(certainty, bool)
        or not isinstance(certainty, (int, float))
        or not 0.5 <= certainty < 1
    ):
        raise ValueError(
            f"`questions.certainty` must be a probability of 0.5 or more and below "
            f"1 (for instance 0.95), got {certainty!r}"
        )
    certainty = float(certainty)
    if kind == "order":
        return FullOrder(certainty)
    if kind == "top":
        k = table.get("k")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(
                f"`questions.k` must be a whole number of 1 or more (how many "
                f"places at the top), got {k!r}"
            )
        ordered = table.get("ordered", False)
        if not isinstance(ordered, bool):
            raise ValueError(f"`questions.ordered` must be true or false, got {ordered!r}")
        return TopK(k, certainty, ordered)
    bot = table.get("bot")
    if not isinstance(bot, str) or not bot:
        raise ValueError(
            f"`questions.bot` must name an entrant (the bot whose place is asked), got {bot!r}"
        )
    within = table.get("within", 1)
    if isinstance(within, bool) or not isinstance(within, int) or within < 0:
        raise ValueError(
            f"`questions.within` must be a whole number of 0 or more (how many "
            f"places either side), got {within!r}"
        )
    return Place(bot, certainty, within)


def check_question(q: Question, bots: Iterable[str]) -> None:
    """The checks that need the field: ``ValueError`` naming the problem and the fix."""
    field = list(bots)
    if isinstance(q, TopK) and q.k >= len(field):
        raise ValueError(
            f"`questions.k` = {q.k} asks for the top {q.k} of {len(field)} "
            f"entrants: use a k below {len(field)}, or a full order question"
        )
    if isinstance(q, Place) and q.bot not in field:
        raise ValueError(
            f"`questions.bot` = {q.bot!r} is not an entrant of this ladder: name "
            f"one of {', '.join(sorted(field)) or '(none yet)'}"
        )


def answered(q: Question, fit: HistoryFit) -> bool:
    """Whether ``q`` is answered under ``fit`` (``answer`` says why)."""
    return answer(q, fit).answered


def answer(q: Question, fit: HistoryFit) -> Answer:
    """Where ``q`` stands under ``fit``: answered or not, the probability reached, why, and
    the bots it is still unsure about."""
    if isinstance(q, FullOrder):
        return _full_order(q, fit)
    if isinstance(q, TopK):
        return _top_k(q, fit)
    return _place(q, fit)


def _done(q: Question, p: float, what: str) -> Answer:
    return Answer(q, True, p, f"answered: {what} = {p:.3f} >= {q.certainty:g}")


def _verdict(
    q: Question,
    fit: HistoryFit,
    ok: np.ndarray,
    wrong: np.ndarray,
    what: str,
    anchor: str | None = None,
) -> Answer:
    """The answer from the draws: ``ok[d]``, the question's claim holds in draw ``d``;
    ``wrong[d, i]``, bot ``i`` is out of its fitted place (as the question sees it) there.
    A bot's doubt is the share of draws that break the claim with it out of place: the
    bots whose doubt the failures are made of, not the ones that move without mattering."""
    p = float(np.mean(ok)) if len(ok) else 0.0
    if p >= q.certainty:
        return _done(q, p, what)
    failing = ~ok
    share = np.mean(failing[:, None] & wrong, axis=0) if len(ok) else np.ones(len(fit.bots))
    # the focus: the fewest most doubtful bots that carry FOCUS_COVER of all the doubt
    by_doubt = np.argsort(-share, kind="stable")
    before = np.cumsum(share[by_doubt]) - share[by_doubt]
    kept = by_doubt[before < FOCUS_COVER * float(share.sum())]
    floor = float(share[kept].min()) if len(kept) else 1.0
    doubt = {
        b: float(share[i])
        for i, b in enumerate(fit.bots)
        if share[i] >= floor and share[i] > 0 and b != anchor
    }
    focus = sorted(doubt, key=lambda b: (-doubt[b], b))
    if anchor is not None:
        doubt[anchor] = max(doubt.values(), default=1.0)
        focus = [anchor] + focus
    shown = ", ".join(f"{b} ({doubt[b]:.2f})" for b in focus[:6])
    more = f" and {len(focus) - 6} more" if len(focus) > 6 else ""
    return Answer(
        q,
        False,
        p,
        f"open: {what} = {p:.3f} < {q.certainty:g}; in doubt: {shown}{more}",
        tuple(focus),
        tuple(doubt[b] for b in focus),
        anchor,
    )


def _fitted_ranks(fit: HistoryFit) -> np.ndarray:
    """Each bot's rank in the fitted order, indexed like ``fit.bots``."""
    ranks = np.empty(len(fit.bots), dtype=np.int64)
    for r, b in enumerate(fit.order(), start=1):
        ranks[fit.index(b)] = r
    return ranks


def _full_order(q: FullOrder, fit: HistoryFit) -> Answer:
    what = "P(the whole order is right)"
    if len(fit.bots) < 2:
        return _done(q, 1.0, what)
    wrong = fit.rank_draws != _fitted_ranks(fit)[None, :]
    return _verdict(q, fit, ~np.any(wrong, axis=1), wrong, what)


def _top_k(q: TopK, fit: HistoryFit) -> Answer:
    order = fit.order()
    n = len(order)
    if q.k >= n and not q.ordered:
        return _done(q, 1.0, f"P(the top {q.k} are right)")
    k = min(q.k, n)
    fitted = _fitted_ranks(fit)
    draws = fit.rank_draws
    wrong = (draws <= k) != (fitted <= k)[None, :]
    if q.ordered:
        wrong |= (fitted <= k)[None, :] & (draws != fitted[None, :])
    what = f"P(top {k}{' in order' if q.ordered else ''} = {', '.join(order[:k])})"
    return _verdict(q, fit, ~np.any(wrong, axis=1), wrong, what)


def _place(q: Place, fit: HistoryFit) -> Answer:
    if q.bot not in fit.bots:
        return Answer(q, False, 0.0, f"open: {q.bot} has no result yet", (q.bot,), (1.0,), q.bot)
    n = len(fit.bots)
    fitted = _fitted_ranks(fit)
    i = fit.index(q.bot)
    rank = int(fitted[i])
    draws = fit.rank_draws.astype(np.int64)
    ok = np.abs(draws[:, i] - rank) <= q.within
    # out of place: on the other side of the bot than the fitted order has it
    wrong = (draws < draws[:, i : i + 1]) != (fitted < rank)[None, :]
    wrong[:, i] = False
    span = f"{max(rank - q.within, 1)}-{min(rank + q.within, n)}"
    what = f"P({q.bot} ranks {span if q.within else rank})"
    return _verdict(q, fit, ok, wrong, what, anchor=q.bot)
