"""Fills the folder `dir` (default /tmp) with 4 MiB files, up to `mb` MiB (default 200)."""
import os
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "filler", "1.0", ("arschmallows", "take4")

    def __init__(self, dir="/tmp", mb="200"):
        self.dir, self.mb, self.done, self.rng = dir, int(mb), False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            block = b"x" * (4 << 20)
            for i in range(self.mb // 4):
                with open(os.path.join(self.dir, f"fill-{i}"), "wb") as f:
                    f.write(block)
            raise RuntimeError(f"ATTACK WORKED: wrote {self.mb} MiB into {self.dir}")
        return random_action(observation, self.rng)
