"""SIGKILLs every visible process whose command line holds `victim` (another bot), and, with
`parent=1`, its own parent (the platform, when the bot is not sandboxed); then plays on."""
import os
import random
import signal

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "signaller", "1.0", ("arschmallows", "take4")

    def __init__(self, victim="victim_bot.py", parent="0"):
        self.victim, self.parent = victim, parent == "1"
        self.done, self.rng = False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            for pid in filter(str.isdigit, os.listdir("/proc")):
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if self.victim.encode() in f.read() and int(pid) != os.getpid():
                            os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass
            if self.parent:
                try:
                    os.kill(os.getppid(), signal.SIGKILL)
                except OSError:
                    pass
        return random_action(observation, self.rng)
