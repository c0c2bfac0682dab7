"""An honest bot that computes for its answer: `work` rounds of arithmetic per decision (about
60 ms of CPU at the default on a laptop), then a random legal action."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "honest_cpu", "1.0", ("arschmallows", "take4")

    def __init__(self, work="400000"):
        self.work, self.rng = int(work), random.Random(0)

    def act(self, observation):
        x = 0
        for i in range(self.work):
            x = (x * 31 + i) % 1000003
        self.last = x
        return random_action(observation, self.rng)
