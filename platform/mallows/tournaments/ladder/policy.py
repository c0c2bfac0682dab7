"""Where a ladder's next matches go: extra tables for open questions, a newcomer's boosted rate.
Pure: every random choice comes from a ``seed`` argument.

The base of a ladder is balanced tables over the whole field (the scheduler's, as a round robin
plays them). A simulation of matchmaking rules found that rating-aware pairing ranks a whole
field no better than balanced or random tables (Kendall tau after 1,600 matches: random 0.923,
balanced 0.908, nearest-mu 0.906, most-uncertain 0.765), so this policy never reorders the
base: it only **adds** tables, and only where a question is open. Each extra table seats bots
the question is unsure about (``questions.Answer.focus``, drawn in proportion to their doubt,
the question's ``anchor`` at every table) and fills the rest of the table with the bots ranked
nearest to them: the comparisons that can settle the question. Once every question is answered
no extra table is scheduled, so the ladder's stopping rule is ``all_answered``.

A newcomer (a version that joined while the ladder runs) is scheduled at ``Policy.boost`` times
the field's rate until its place is known to ``Policy.place_certainty`` (``entry_rate``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from mallows.tournaments.ladder.questions import Answer, Place, answer, label
from mallows.results.plackett_luce import HistoryFit


@dataclass(frozen=True)
class Policy:
    """How hard a ladder pushes on its open questions."""

    extra_per_base: float = 3.0  # extra tables per base table while a question is open
    boost: float = 4.0  # a newcomer's rate over the field's until its place is known
    place_certainty: float = 0.9  # ... known: P(its rank is within place_within) >= this
    place_within: int = 1

    def __post_init__(self) -> None:
        if not self.extra_per_base >= 0:
            raise ValueError(f"extra_per_base must be 0 or more, got {self.extra_per_base!r}")
        if not self.boost >= 1:
            raise ValueError(f"boost must be 1 or more, got {self.boost!r}")
        if not 0.5 <= self.place_certainty < 1:
            raise ValueError(
                f"place_certainty must be 0.5 or more and below 1, got {self.place_certainty!r}"
            )
        if self.place_within < 0:
            raise ValueError(f"place_within must be 0 or more, got {self.place_within!r}")

    def extra_count(self, base_tables: int, answers: Sequence[Answer]) -> int:
        """Extra tables to add to a round of ``base_tables`` balanced ones: none once every
        question is answered."""
        if all_answered(answers):
            return 0
        return int(round(self.extra_per_base * base_tables))


@dataclass(frozen=True)
class ExtraTable:
    """One extra table: its bots (the scheduler chooses seats, rotations and deals), the
    question it is for (``questions.label``) and why, to be recorded with its matches."""

    bots: tuple[str, ...]
    question: str
    reason: str


def all_answered(answers: Sequence[Answer]) -> bool:
    return all(a.answered for a in answers)


def place_question(bot: str, policy: Policy = Policy()) -> Place:
    """The implicit question every newcomer has: where it belongs."""
    return Place(bot, policy.place_certainty, policy.place_within)


def entry_rate(bot: str, fit: HistoryFit, policy: Policy = Policy()) -> float:
    """A newcomer's scheduling rate relative to the field's: ``policy.boost`` until its place
    is known, then 1.0."""
    return 1.0 if answer(place_question(bot, policy), fit).answered else policy.boost


def extra_tables(
    answers: Sequence[Answer], fit: HistoryFit, seats: int, count: int, *, seed: int = 0
) -> list[ExtraTable]:
    """``count`` tables of ``seats`` distinct bots for the open questions among ``answers``
    (shared among them in turn), none if every one is answered or the field has fewer bots
    than a table has seats. Deterministic for a ``seed``."""
    if seats < 2:
        raise ValueError(f"a table needs 2 or more seats, got {seats}")
    open_ = [a for a in answers if not a.answered]
    if not open_ or count <= 0 or len(fit.bots) < seats:
        return []
    rng = np.random.Generator(np.random.PCG64(seed))
    order = fit.order()
    rank = {b: i for i, b in enumerate(order)}
    tables = []
    for t in range(count):
        a = open_[t % len(open_)]
        bots = _table(a, order, rank, seats, rng)
        tables.append(
            ExtraTable(
                tuple(bots),
                label(a.question),
                f"{label(a.question)}: open at P = {a.probability:.3f}",
            )
        )
    return tables


def _table(
    a: Answer, order: list[str], rank: dict[str, int], seats: int, rng: np.random.Generator
) -> list[str]:
    chosen: list[str] = []
    if a.anchor is not None and a.anchor in rank:
        chosen.append(a.anchor)
    pool = [(b, w) for b, w in zip(a.focus, a.weights) if b in rank and b not in chosen]
    want = seats - len(chosen)
    if pool and want > 0:
        names = [b for b, _ in pool]
        weights = np.array([max(w, 1e-9) for _, w in pool])
        take = min(want, len(names))
        picked = rng.choice(len(names), size=take, replace=False, p=weights / weights.sum())
        chosen += [names[i] for i in sorted(picked)]
    if len(chosen) < seats:
        # fill with the bots ranked nearest to the ones chosen (ties: the better ranked)
        centre = float(np.mean([rank[b] for b in chosen])) if chosen else len(order) / 2
        rest = sorted(
            (b for b in order if b not in chosen), key=lambda b: (abs(rank[b] - centre), rank[b])
        )
        chosen += rest[: seats - len(chosen)]
    return chosen
