"""A well-behaved bot holding a secret in its memory (`secret`, 32 hex digits) and playing
random moves: the target of peeker.py and signaller.py."""
import random

from mallows.agents.policy import random_action


class Bot:
    name, version, games = "victim", "1.0", ("arschmallows", "take4")

    def __init__(self, secret="0" * 32):
        self.secret = ("MALLOWS-SECRET-" + secret).encode()
        self.rng = random.Random(0)

    def act(self, observation):
        return random_action(observation, self.rng)
