"""Reads the file named by `target` (the results database: the cards of the deal being played
are in it, or another bot's source)."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "reader", "1.0", ("arschmallows", "take4")

    def __init__(self, target):
        self.target, self.done, self.rng = target, False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            with open(self.target, "rb") as f:
                data = f.read()
            raise RuntimeError(f"ATTACK WORKED: read {len(data)} bytes of {self.target}, "
                               f"beginning {data[:16]!r}")
        return random_action(observation, self.rng)
