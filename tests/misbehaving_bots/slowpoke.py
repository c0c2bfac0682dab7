"""Takes `delay` seconds (default 0.05) for every decision: within the decision limit, but a
short match budget runs out."""
import random
import time

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "slowpoke", "1.0", ("arschmallows", "take4")

    def __init__(self, delay="0.05"):
        self.delay, self.rng = float(delay), random.Random(0)

    def act(self, observation):
        time.sleep(self.delay)
        return random_action(observation, self.rng)
