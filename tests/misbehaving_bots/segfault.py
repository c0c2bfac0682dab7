"""Dies of SIGSEGV in act() at decision `at` (a native crash, as a buggy extension would)."""
import os
import random
import signal
import sys

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "segfault", "1.0", ("arschmallows", "take4")

    def __init__(self, at="2"):
        self.at, self.n, self.rng = int(at), 0, random.Random(0)

    def act(self, observation):
        self.n += 1
        if self.n == self.at:
            print("segfault: dereferencing a null pointer", file=sys.stderr, flush=True)
            signal.signal(signal.SIGSEGV, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGSEGV)
        return random_action(observation, self.rng)
