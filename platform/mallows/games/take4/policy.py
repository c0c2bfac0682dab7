"""Take4's random policy: a uniformly random pick among the filled positions. What the
``random`` bot plays, and the runner for a seat that has forfeited."""

from __future__ import annotations

import random
from typing import Any, Mapping


def random_action(observation: Mapping, rng: random.Random, **_: Any) -> dict:
    legal = observation["legal_actions"]
    return legal[rng.randrange(len(legal))] if len(legal) > 1 else legal[0]
