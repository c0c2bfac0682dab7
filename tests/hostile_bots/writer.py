"""Appends a line to the file named by `target` (the project, bots/, the results database,
/root...)."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "writer", "1.0", ("arschmallows", "take4")

    def __init__(self, target):
        self.target, self.done, self.rng = target, False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            with open(self.target, "a") as f:
                f.write("# written by a hostile bot\n")
            raise RuntimeError(f"ATTACK WORKED: appended to {self.target}")
        return random_action(observation, self.rng)
