"""Forks children that sleep, up to `most` (default 300, so that a run without a process
limit stays bounded), and says how many it got."""
import os
import random
import time

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "forkbomb", "1.0", ("arschmallows", "take4")

    def __init__(self, most="300"):
        self.most, self.done, self.rng = int(most), False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            children = []
            try:
                for _ in range(self.most):
                    pid = os.fork()
                    if pid == 0:
                        time.sleep(30)
                        os._exit(0)
                    children.append(pid)
            except OSError as exc:
                raise OSError(exc.errno, f"fork refused after {len(children)} children: "
                                         f"{exc.strerror}") from None
            finally:
                for pid in children:
                    os.kill(pid, 9)
                    os.waitpid(pid, 0)
            raise RuntimeError(f"ATTACK WORKED: {len(children)} processes")
        return random_action(observation, self.rng)
