"""Raises ValueError in act() at decision `at`."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "raiser", "1.0", ("arschmallows", "take4")

    def __init__(self, at="2"):
        self.at, self.n, self.rng = int(at), 0, random.Random(0)

    def act(self, observation):
        self.n += 1
        if self.n == self.at:
            raise ValueError("raiser gives up on purpose")
        return random_action(observation, self.rng)
