"""Allocates memory at decision `at` (default 2), 64 MiB at a time and touching every page,
until its memory limit stops it (a MemoryError, which bothost reports) or it holds `limit_mb`
(default 1024: without a limit it then plays on, and the test expecting a forfeit fails)."""
import random

from mallows.agents.policy import random_action

CHUNK = 64 * 1024 * 1024


class Bot:
    name, version, games = "hog", "1.0", ("arschmallows", "take4")

    def __init__(self, at="2", limit_mb="1024"):
        self.at, self.limit, self.n, self.rng = int(at), int(limit_mb), 0, random.Random(0)

    def act(self, observation):
        self.n += 1
        if self.n == self.at:
            hoard = []
            while len(hoard) * 64 < self.limit:  # without a limit it stops at limit_mb and plays on
                hoard.append(b"\x01" * CHUNK)
        return random_action(observation, self.rng)
