"""Looks in /proc for another bot (a process whose command line holds `victim`), reads its
memory through /proc/<pid>/mem for `MALLOWS-SECRET-` and 32 hex digits, and ptraces it."""
import ctypes
import os
import random
import re

from mallows.agents.policy import random_action

PATTERN = re.compile(rb"MALLOWS-SECRET-[0-9a-f]{32}")
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17


def victims(marker):
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read() and int(pid) != os.getpid():
                    yield int(pid)
        except OSError:
            pass


def read_secret(pid):
    regions = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            if fields[1].startswith("rw"):
                regions.append((lo, hi))
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for lo, hi in regions:
            try:
                mem.seek(lo)
                found = PATTERN.search(mem.read(hi - lo))
            except OSError:
                continue
            if found:
                return found.group().decode()
    return None


class Bot:
    name, version, games = "peeker", "1.0", ("arschmallows", "take4")

    def __init__(self, victim="victim_bot.py"):
        self.victim, self.done, self.rng = victim, False, random.Random(0)

    def act(self, observation):
        if not self.done:
            self.done = True
            pids = list(victims(self.victim))
            if not pids:
                raise LookupError(f"no process with {self.victim!r} in its command line is "
                                  f"visible in /proc ({len(os.listdir('/proc'))} entries)")
            secret = read_secret(pids[0])  # OSError if refused
            libc = ctypes.CDLL(None, use_errno=True)
            traced = libc.ptrace(PTRACE_SEIZE, pids[0], 0, 0) == 0
            if traced:
                libc.ptrace(PTRACE_DETACH, pids[0], 0, 0)
            raise RuntimeError(f"ATTACK WORKED: pid {pids[0]}: memory read, secret {secret}; "
                               f"ptrace {'worked' if traced else 'refused'}")
        return random_action(observation, self.rng)
