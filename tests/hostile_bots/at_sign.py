"""Behaves unless its own name has an ``@`` (as a submitted ``NAME@N`` in a tournament, which
the check used never to show, issue 32): then answers ``{"type": "evil", "name": ...}`` at
its first decision (an illegal answer the forfeit reason quotes)."""
import random

from mallows.agents.policy import random_action


class Bot:
    name = "at_sign"
    version = "1"
    games = ("take4", "arschmallows")

    def __init__(self):
        self.rng = random.Random(0)
        self.evil = False
        self.me = ""

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        self.me = info["names"][info["seat"]]
        self.evil = "@" in self.me

    def act(self, observation):
        if self.evil:
            self.evil = False
            return {"type": "evil", "name": self.me}
        return random_action(observation, self.rng)
