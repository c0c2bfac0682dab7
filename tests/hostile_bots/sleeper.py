"""Plays fair while the file ``flag`` does not say ``wake`` (as when it is checked), then
answers ``{"type": "sleeper"}`` at its first decision of every match (an illegal answer): a bot
that passed its check and misbehaves later, for ``tests/test_ladder_checks.py``."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "sleeper", "1", ("take4", "arschmallows")

    def __init__(self, flag=""):
        self.flag = flag
        self.rng = random.Random(0)
        self.armed = False

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        try:
            with open(self.flag) as f:
                self.armed = f.read().strip() == "wake"
        except OSError:
            self.armed = False

    def act(self, observation):
        if self.armed:
            self.armed = False
            return {"type": "sleeper"}
        return random_action(observation, self.rng)
