"""Writes a last word to stderr, then exits with status 3 in act() at decision `at`."""
import os
import random
import sys

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "exiter", "1.0", ("arschmallows", "take4")

    def __init__(self, at="2"):
        self.at, self.n, self.rng = int(at), 0, random.Random(0)

    def act(self, observation):
        self.n += 1
        if self.n == self.at:
            print("exiter: out of ideas, leaving", file=sys.stderr, flush=True)
            os._exit(3)
        return random_action(observation, self.rng)
