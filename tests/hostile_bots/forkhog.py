"""Forks `children` processes (default 4) that each fill `mb` MiB (default 150) and wait: each
stays under a per-process memory limit, all of them together do not."""
import os
import random
import select
import signal
import time

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "forkhog", "1.0", ("arschmallows", "take4")

    def __init__(self, children="4", mb="150"):
        self.children, self.mb = int(children), int(mb)
        self.done, self.rng = False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            r, w = os.pipe()
            pids = []
            for _ in range(self.children):
                pid = os.fork()
                if pid == 0:
                    hoard = bytearray(self.mb << 20)
                    for i in range(0, len(hoard), 4096):
                        hoard[i] = 1
                    os.write(w, b"x")
                    time.sleep(30)
                    os._exit(0)
                pids.append(pid)
            os.close(w)
            held, dead = 0, {}
            while held + len(dead) < self.children:  # each child reports, or is killed
                if select.select([r], [], [], 0.1)[0]:
                    held += len(os.read(r, 64))
                for pid in pids:
                    if pid not in dead and os.waitpid(pid, os.WNOHANG)[0]:
                        dead[pid] = True
            for pid in pids:
                if pid not in dead:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
            statuses = f"{len(dead)} killed"
            if held < self.children:
                raise MemoryError(f"only {held} of {self.children} children filled {self.mb} "
                                  f"MiB; the others were killed")
            raise RuntimeError(f"ATTACK WORKED: {held} processes held {held * self.mb} MiB "
                               f"({statuses})")
        return random_action(observation, self.rng)
