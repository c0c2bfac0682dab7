"""The random policy, from an observation alone: the dispatcher to each game's own.

Used by the shipped ``random`` bot and by the runner for a seat that has forfeited. The game is
read from ``observation["game"]`` and its ``random_action`` (``mallows.games.base.Game``) picks
the move, drawing only from ``rng``: the same seed gives the same moves. Arschmallows' policy
calls at the end decision with probability ``call_probability`` (``CALL_PROBABILITY``, 1 in 20)
and expands a ``get_rid`` entry into a random ordered choice of two or more of its slots; every
other game ignores ``call_probability``.
"""

from __future__ import annotations

import random
from typing import Any

from mallows.games import game_ids, get_game
from mallows.games.arschmallows.policy import CALL_PROBABILITY

__all__ = ["CALL_PROBABILITY", "EveryGame", "random_action"]


def random_action(
    observation: dict, rng: random.Random, call_probability: float = CALL_PROBABILITY, **params: Any
) -> dict:
    """A random legal action for the observation's seat, from its game's policy."""
    return get_game(observation["game"]).random_action(
        observation, rng, call_probability=call_probability, **params
    )


class EveryGame:
    """A bot's ``games`` attribute meaning every registered game, read when asked (so a game
    registered after the bot was loaded counts too): ``games = EveryGame()``. For bots that
    play through ``random_action`` and so play whatever the registry holds."""

    def __get__(self, obj: Any, cls: Any = None) -> tuple[str, ...]:
        return tuple(game_ids())
