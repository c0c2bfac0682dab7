"""Arschmallows' 62 cards: their values, how many of each, and which are action cards.

A card is just its value here. Within a round the engine names each card by its position in
the round's dealt deck (its *card id*, 0..61), so that what a seat knows can follow the card
when it moves; ``VALUES`` is the deck handed to the chance in a fixed order before shuffling.
"""

from __future__ import annotations

from typing import Sequence

SPY = 9
EXCHANGE = 10
PLAY_TWICE = 11
ACTION_VALUES = frozenset({SPY, EXCHANGE, PLAY_TWICE})
ACTION_NAMES = {SPY: "Spy", EXCHANGE: "Exchange", PLAY_TWICE: "Play twice"}

#: value -> number of copies (RULES.md 1.1).
COUNTS = {-4: 1, -2: 1, **{v: 4 for v in range(0, 8)}, 8: 8, SPY: 8, EXCHANGE: 8, PLAY_TWICE: 4}

#: The whole deck, lowest value first: the order handed to the chance before a shuffle.
VALUES = tuple(v for v, k in sorted(COUNTS.items()) for _ in range(k))
DECK_SIZE = len(VALUES)
assert DECK_SIZE == 62


def is_deck(values: Sequence[int]) -> bool:
    """True when ``values`` holds exactly the 62 cards (any order)."""
    return len(values) == DECK_SIZE and sorted(values) == list(VALUES)
