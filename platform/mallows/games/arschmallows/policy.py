"""Arschmallows' random policy: what the ``random`` bot plays, and the runner for a seat that
has forfeited.

Uniform over ``legal_actions``, with two exceptions that keep rounds long enough to reach every
rule: at the end decision it calls with probability ``call_probability`` (1 in 20), and a
``get_rid`` entry is expanded into a random ordered choice of two or more of its slots.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

CALL_PROBABILITY = 1 / 20


def random_action(
    observation: Mapping, rng: random.Random, call_probability: float = CALL_PROBABILITY, **_: Any
) -> dict:
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
