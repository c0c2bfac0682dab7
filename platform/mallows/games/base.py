"""What every game is: a pure state machine, and where its randomness comes from.

A game never does I/O, never reads a clock, never touches global randomness. Its chance events
(deals, reshuffles, races) come from a ``Chance`` the match hands in: ``SeededChance`` draws them
from the match seed's streams (``mallows.seeding``); ``ReplayChance`` reads them back from a
record's events, so a record replays without its seed.
"""

from __future__ import annotations

from collections import deque
from typing import Any, Protocol, Sequence

from mallows import seeding


class State(Protocol):
    """The interface the runner drives. Sequential games have one seat in ``to_move``;
    simultaneous games list every seat that must still answer this step, and every one of them
    gets its observation before any of their answers is applied."""

    game: str
    players: int
    options: dict
    events: list[dict]  # record events so far (the runner inserts forfeit events)

    def to_move(self) -> tuple[int, ...]: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self, seat: int) -> list[dict]: ...
    def observation(self, seat: int) -> dict: ...
    def apply(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s answer. Any object is accepted as input: a malformed or illegal one
        raises ``IllegalAction`` with a message naming what is wrong, and leaves the state as it
        was."""
    def result(self, forfeits: Sequence[str | None]) -> dict:
        """The record's ``result``: ``ranks`` (forfeits applied) and the game's own keys."""
    def record_header(self) -> dict:
        """Extra top-level record keys (Arschmallows: ``{"rules": name}``)."""


class Chance(Protocol):
    def deal(self, round_: int, cards: Sequence) -> list: ...
    def reshuffle(self, round_: int, cards: Sequence) -> list: ...
    def race(self, round_: int, position: int, contenders: Sequence[int]) -> int: ...


class SeededChance:
    """Chance from a match seed: round r's deal depends only on (seed, r)."""

    def __init__(self, seed: int):
        self.seed = seed
        self._reshuffles: dict[int, Any] = {}
        self._races: dict[int, Any] = {}

    def deal(self, round_: int, cards: Sequence) -> list:
        order = seeding.deal_rng(self.seed, round_).permutation(len(cards))
        return [cards[i] for i in order]

    def reshuffle(self, round_: int, cards: Sequence) -> list:
        rng = self._reshuffles.get(round_)
        if rng is None:
            rng = self._reshuffles[round_] = seeding.reshuffle_rng(self.seed, round_)
        return [cards[i] for i in rng.permutation(len(cards))]

    def race(self, round_: int, position: int, contenders: Sequence[int]) -> int:
        rng = self._races.get(round_)
        if rng is None:
            rng = self._races[round_] = seeding.race_rng(self.seed, round_)
        return contenders[int(rng.integers(len(contenders)))]


class ReplayChance:
    """Chance read back from a record's events, in order: deals, reshuffles and races."""

    def __init__(self, events: Sequence[dict]):
        self._deals = deque(e["deck"] for e in events if e["type"] == "deal")
        self._reshuffles = deque(e["deck"] for e in events if e["type"] == "reshuffle")
        self._races = deque(e["winner"] for e in events if e["type"] == "race")

    def deal(self, round_: int, cards: Sequence) -> list:
        return list(self._deals.popleft())

    def reshuffle(self, round_: int, cards: Sequence) -> list:
        return list(self._reshuffles.popleft())

    def race(self, round_: int, position: int, contenders: Sequence[int]) -> int:
        return self._races.popleft()


def competition_ranks(keys: Sequence, forfeits: Sequence[str | None] = ()) -> list[int]:
    """Standard competition ranks (0 = first; ties share the better rank; 0, 0, 2).

    ``keys``: one sort key per seat, lower is better. A forfeited seat ranks below every seat that
    did not forfeit, and forfeited seats tie among themselves.
    """
    forfeited = [bool(forfeits[s]) if s < len(forfeits) else False for s in range(len(keys))]
    full = [(forfeited[s], () if forfeited[s] else keys[s]) for s in range(len(keys))]
    return [sum(1 for other in full if other < mine) for mine in full]
