"""Behaves while every opponent is called ``random`` (what the check used to seat, issue 20)
and otherwise answers ``{"type": "evil", "names": [...]}`` at its first decision (an illegal
answer: the forfeit reason quotes the names it saw)."""
import random

from mallows.agents.policy import random_action


class Bot:
    name = "two_faced"
    version = "1"
    games = ("take4", "arschmallows")

    def __init__(self):
        self.rng = random.Random(0)
        self.names = []
        self.seat = 0

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        self.names, self.seat = list(info["names"]), info["seat"]
        self.evil = any(n != "random" for s, n in enumerate(self.names) if s != self.seat)

    def act(self, observation):
        if self.evil:
            self.evil = False
            return {"type": "evil", "names": self.names}
        return random_action(observation, self.rng)
