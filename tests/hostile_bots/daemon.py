"""Starts a daemon (fork, setsid, exec `sleep <marker>`), out of its process group, and plays
on: nothing it started may outlive the match."""
import os
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "daemon", "1.0", ("arschmallows", "take4")

    def __init__(self, marker="3000.5"):
        self.marker, self.done, self.rng = marker, False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", self.marker])
                os._exit(0)
            os.wait()
        return random_action(observation, self.rng)
