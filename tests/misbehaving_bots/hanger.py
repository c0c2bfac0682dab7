"""Never answers decision `at`: it sleeps (and ignores SIGTERM, so only SIGKILL stops it)."""
import random
import signal
import time

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "hanger", "1.0", ("arschmallows", "take4")

    def __init__(self, at="2"):
        self.at, self.n, self.rng = int(at), 0, random.Random(0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def act(self, observation):
        self.n += 1
        if self.n == self.at:
            time.sleep(3600)
        return random_action(observation, self.rng)
