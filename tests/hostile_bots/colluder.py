"""Two bots of one author passing a secret through file locks on a file every sandbox sees
(the standard library's os.py), one bit per decision: the `send` side holds a lock (flock)
for a 1 and none for a 0 while it waits for its next turn; the `recv` side tests for the lock
at each of its decisions. After `bits` decisions the receiver raises "RECEIVED c of n bits
right" (it was given the same `secret` to count), or, when the kernel refuses a lock, the
error goes: "LOCKS REFUSED" with it."""
import fcntl
import os
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "colluder", "1.0", ("arschmallows", "take4")

    def __init__(self, role="send", secret="1011001110001011"):
        self.role, self.secret = role, [c == "1" for c in secret]
        self.n, self.rng, self.got = 0, random.Random(0), []
        self.fd = os.open(os.__file__, os.O_RDONLY)

    def act(self, observation):
        i, self.n = self.n, self.n + 1
        try:
            if self.role == "send" and i < len(self.secret):
                fcntl.flock(self.fd, fcntl.LOCK_UN)
                if self.secret[i]:
                    fcntl.flock(self.fd, fcntl.LOCK_SH)
            elif self.role == "recv" and i < len(self.secret):
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(self.fd, fcntl.LOCK_UN)
                    self.got.append(False)
                except BlockingIOError:
                    self.got.append(True)
                if len(self.got) == len(self.secret):
                    right = sum(a == b for a, b in zip(self.got, self.secret))
                    raise RuntimeError(f"RECEIVED {right} of {len(self.secret)} bits right")
        except PermissionError as exc:
            raise RuntimeError(f"LOCKS REFUSED: {exc}") from None
        return random_action(observation, self.rng)
