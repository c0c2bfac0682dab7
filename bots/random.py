"""random: the baseline. Uniform over the legal actions, in every registered game (each game's
own random policy, ``mallows.agents.policy``).

At Arschmallows' end decision it calls only 1 time in 20 (so rounds last long enough to reach
every rule), and it answers the ``get_rid`` entry with a random ordered choice of two or more of
the offered slots. Seeded from its seat seed: the same match seed gives the same play.
Strength: the floor of every ladder. Speed: a few microseconds a decision.
Parameters: ``random:call=0.1`` sets the call probability (0..1; anything else is refused).
"""

import random

from mallows.agents.policy import CALL_PROBABILITY, EveryGame, random_action
from mallows.agents.kit import number_param


class Bot:
    name = "random"
    version = "1.0"
    games = EveryGame()  # every game in the registry, whenever asked

    def __init__(self, call: float = CALL_PROBABILITY):
        self.call = number_param("random", "call", call, 0.0, 1.0)  # nan, 2, -1: refused
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, observation: dict) -> dict:
        return random_action(observation, self.rng, self.call)
