"""The random policy, from an observation alone.

Used by the shipped ``random`` bot and by the runner for a seat that has forfeited. It is
uniform over ``legal_actions``, with two exceptions that keep rounds long enough to reach every
rule: at Arschmallows' end decision it calls with probability ``call_probability`` (1 in 20), and
a ``get_rid`` entry is expanded into a random ordered choice of two or more of its slots.
"""

from __future__ import annotations

import random

__all__ = ["CALL_PROBABILITY", "random_action"]

CALL_PROBABILITY = 1 / 20


def random_action(observation: dict, rng: random.Random,
                  call_probability: float = CALL_PROBABILITY) -> dict:
    legal = observation["legal_actions"]
    if observation.get("phase") == "end":
        wanted = "call" if rng.random() < call_probability else "pass"
        for action in legal:
            if action["type"] == wanted:
                return action
    action = legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
    if action["type"] == "get_rid":
        slots = list(action["choose_from"])
        rng.shuffle(slots)
        return {"type": "get_rid", "slots": slots[: rng.randint(2, len(slots))]}
    return action
