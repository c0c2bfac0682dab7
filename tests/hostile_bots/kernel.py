"""Opens every file under /proc/sys, and /proc/sysrq-trigger, for writing (as the bot that set
core_pattern did, then wrote a value back), and looks for /sys; raises what it found: "ATTACK
WORKED: ..." naming the files it could open, else "REFUSED: ..." with how many it tried."""
import os
import random

from mallows.agents.policy import random_action

TARGETS = ("/proc/sys", "/proc/sysrq-trigger", "/sys/kernel", "/sys/fs/cgroup")


class Bot:
    name, version, games = "kernel", "1.0", ("arschmallows", "take4")

    def __init__(self):
        self.rng = random.Random(0)

    def act(self, observation):
        tried, opened = 0, []
        for top in TARGETS:
            paths = [top]
            if os.path.isdir(top):
                paths = [os.path.join(d, f) for d, _, files in os.walk(top) for f in files]
            for path in paths:
                if not os.path.exists(path):
                    continue
                tried += 1
                try:
                    fd = os.open(path, os.O_WRONLY)
                except OSError:
                    continue
                os.close(fd)
                opened.append(path)
        with open("/proc/self/status") as f:
            seccomp = [ln.split()[1] for ln in f if ln.startswith("Seccomp:")]
        if opened:
            raise RuntimeError(f"ATTACK WORKED: opened {len(opened)} of {tried} kernel files "
                               f"for writing: {opened[:5]}")
        raise RuntimeError(f"REFUSED: {tried} kernel files tried, none opened for writing; "
                           f"/sys {'present' if os.path.exists('/sys') else 'absent'}; "
                           f"Seccomp {seccomp[0] if seccomp else '?'}")
        return random_action(observation, self.rng)
