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
most unsure first, with weights (what ``policy.extra_tables`` seats). A question's focus is
empty once it is answered.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

from mallows.results.plackett_luce import HistoryFit

DEFAULT_CERTAINTY = 0.95
#: A bot joins a question's focus when its share of the doubt is at least this part of what
#: the question may leave (1 - certainty): small enough to keep every real contender, large
#: enough to leave out bots the draws almost never confuse.
FOCUS_SHARE = 0.1


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
    probability: float            # the probability the question asks to reach ``certainty``
    explanation: str              # one line: answered or open, and why
    focus: tuple[str, ...] = ()   # bots still in doubt, most doubtful first (empty: answered)
    weights: tuple[float, ...] = ()  # how much doubt each focus bot carries (same order)
    anchor: str | None = None     # a bot every extra table for this question must seat


def label(q: Question) -> str:
    """A short name for a question: 'order at 95%', 'top 3 at 95%', 'place of x (+-1) at 95%'."""
    pct = f"{q.certainty * 100:g}%"
    if isinstance(q, FullOrder):
        return f"order at {pct}"
    if isinstance(q, TopK):
        return f"top {q.k}{' in order' if q.ordered else ''} at {pct}"
    return f"place of {q.bot} (+-{q.within}) at {pct}"


_KEYS = {"order": {"type", "certainty"}, "top": {"type", "k", "certainty", "ordered"},
         "place": {"type", "bot", "certainty", "within"}}


def parse_question(table: dict[str, Any]) -> Question:
    """A question from a ladder file's ``[[questions]]`` table; ``ValueError`` naming the key,
    what it must be and how to fix it."""
    if not isinstance(table, dict):
        raise ValueError(f"a question must be a table such as {{type = \"top\", k = 3}}, "
                         f"got {table!r}")
    kind = table.get("type")
    if kind not in _KEYS:
        raise ValueError(f"`questions.type` must be one of {', '.join(sorted(_KEYS))} "
                         f"(a full order, the top k, a bot's place), got {kind!r}")
    unknown = sorted(set(table) - _KEYS[kind])
    if unknown:
        raise ValueError(f"unknown key `questions.{unknown[0]}` in a {kind!r} question: it takes "
                         f"{', '.join(sorted(_KEYS[kind]))}")
    certainty = table.get("certainty", DEFAULT_CERTAINTY)
    if isinstance(certainty, bool) or not isinstance(certainty, (int, float)) \
            or not 0.5 <= certainty < 1:
        raise ValueError(f"`questions.certainty` must be a probability of 0.5 or more and below "
                         f"1 (for instance 0.95), got {certainty!r}")
    certainty = float(certainty)
    if kind == "order":
        return FullOrder(certainty)
    if kind == "top":
        k = table.get("k")
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"`questions.k` must be a whole number of 1 or more (how many "
                             f"places at the top), got {k!r}")
        ordered = table.get("ordered", False)
        if not isinstance(ordered, bool):
            raise ValueError(f"`questions.ordered` must be true or false, got {ordered!r}")
        return TopK(k, certainty, ordered)
    bot = table.get("bot")
    if not isinstance(bot, str) or not bot:
        raise ValueError(f"`questions.bot` must name an entrant (the bot whose place is asked), "
                         f"got {bot!r}")
    within = table.get("within", 1)
    if isinstance(within, bool) or not isinstance(within, int) or within < 0:
        raise ValueError(f"`questions.within` must be a whole number of 0 or more (how many "
                         f"places either side), got {within!r}")
    return Place(bot, certainty, within)


def check_question(q: Question, bots: Iterable[str]) -> None:
    """The checks that need the field: ``ValueError`` naming the problem and the fix."""
    field = list(bots)
    if isinstance(q, TopK) and q.k >= len(field):
        raise ValueError(f"`questions.k` = {q.k} asks for the top {q.k} of {len(field)} "
                         f"entrants: use a k below {len(field)}, or a full order question")
    if isinstance(q, Place) and q.bot not in field:
        raise ValueError(f"`questions.bot` = {q.bot!r} is not an entrant of this ladder: name "
                         f"one of {', '.join(sorted(field)) or '(none yet)'}")


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


def _open(q: Question, p: float, what: str, doubt: dict[str, float], anchor: str | None = None,
          keep: Iterable[str] = ()) -> Answer:
    floor = FOCUS_SHARE * (1 - q.certainty)
    chosen = {b: u for b, u in doubt.items() if u >= floor}
    for b in keep:  # the contenders the question turns on, even if the draws agree about them
        chosen.setdefault(b, doubt.get(b, floor))
    if anchor is not None:
        chosen.pop(anchor, None)
    focus = sorted(chosen, key=lambda b: (-chosen[b], b))
    if anchor is not None:
        focus = [anchor] + focus
        chosen[anchor] = max(chosen.values(), default=1.0)
    shown = ", ".join(f"{b} ({chosen[b]:.2f})" for b in focus[:6])
    more = f" and {len(focus) - 6} more" if len(focus) > 6 else ""
    return Answer(q, False, p, f"open: {what} = {p:.3f} < {q.certainty:g}; in doubt: {shown}"
                  f"{more}", tuple(focus), tuple(chosen[b] for b in focus), anchor)


def _adjacent_doubt(fit: HistoryFit, order: list[str]) -> dict[str, float]:
    """Per bot, the chance its pairs with its neighbours in ``order`` are the wrong way."""
    doubt: dict[str, float] = {b: 0.0 for b in order}
    for a, b in zip(order, order[1:]):
        u = 1.0 - fit.p_ahead(a, b)
        doubt[a] += u
        doubt[b] += u
    return doubt


def _full_order(q: FullOrder, fit: HistoryFit) -> Answer:
    order = fit.order()
    p = fit.p_order(order)
    what = "P(the whole order is right)"
    if len(order) < 2 or p >= q.certainty:
        return _done(q, p if len(order) >= 2 else 1.0, what)
    doubt = _adjacent_doubt(fit, order)
    worst = max(zip(order, order[1:]), key=lambda ab: 1 - fit.p_ahead(*ab))
    return _open(q, p, what, doubt, keep=worst)


def _top_k(q: TopK, fit: HistoryFit) -> Answer:
    order = fit.order()
    n = len(order)
    if q.k >= n and not q.ordered:
        return _done(q, 1.0, f"P(the top {q.k} are right)")
    k = min(q.k, n)
    top = order[:k]
    draws = fit.rank_draws
    cols = [fit.index(b) for b in top]
    ok = np.all(draws[:, cols] <= k, axis=1) if len(draws) else np.zeros(0, dtype=bool)
    if q.ordered:
        ok = ok & np.all(draws[:, cols] == np.arange(1, k + 1), axis=1)
    p = float(np.mean(ok)) if len(ok) else 0.0
    what = f"P(top {k}{' in order' if q.ordered else ''} = {', '.join(top)})"
    if p >= q.certainty:
        return _done(q, p, what)
    doubt = {}
    for b in order:
        inside = fit.p_rank_at_most(b, k)
        doubt[b] = min(inside, 1 - inside)
    if q.ordered:
        for b, u in _adjacent_doubt(fit, top).items():
            doubt[b] += u
    keep = order[max(k - 1, 0):k + 1]  # the two bots either side of the cutoff
    return _open(q, p, what, doubt, keep=keep)


def _place(q: Place, fit: HistoryFit) -> Answer:
    if q.bot not in fit.bots:
        return Answer(q, False, 0.0, f"open: {q.bot} has no result yet")
    order = fit.order()
    rank = order.index(q.bot) + 1
    col = fit.rank_draws[:, fit.index(q.bot)]
    p = float(np.mean(np.abs(col.astype(np.int64) - rank) <= q.within)) if len(col) else 0.0
    span = f"{max(rank - q.within, 1)}-{min(rank + q.within, len(order))}"
    what = f"P({q.bot} ranks {span if q.within else rank})"
    if p >= q.certainty:
        return _done(q, p, what)
    doubt = {}
    for b in order:
        if b != q.bot:
            ahead = fit.p_ahead(q.bot, b)
            doubt[b] = min(ahead, 1 - ahead)
    lo, hi = max(rank - q.within - 1, 1), min(rank + q.within + 1, len(order))
    keep = [b for b in order[lo - 1:hi] if b != q.bot]  # its neighbours just outside the window
    return _open(q, p, what, doubt, anchor=q.bot, keep=keep)
