"""Starves its opponents (as the bot of issue 19 did): at its first decision it starts
`children` processes, each in a session of its own (so, without a CPU group, each is its own
scheduler group), each spinning on every CPU it can set itself to, and plays on at once; the
children never stop."""
import os
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "cpuhog", "1.0", ("arschmallows", "take4")

    def __init__(self, children="48"):
        self.children, self.started, self.rng = int(children), False, random.Random(0)

    def act(self, observation):
        if not self.started:
            self.started = True
            for _ in range(self.children):
                try:
                    pid = os.fork()
                except OSError:
                    break  # the process limit
                if pid == 0:
                    try:
                        os.setsid()
                        os.sched_setaffinity(0, range(os.cpu_count() or 1))
                    except OSError:
                        pass
                    while True:
                        pass
        return random_action(observation, self.rng)
