"""The bot ``bench_wire.py`` measures: the random policy, speaking protocol 1 or 2 (parameters
``protocol`` and ``history``), so the same decisions cross the wire in every mode. In protocol 2
it keeps its events, as a bot that uses them would."""

import random

from mallows.games import get_game


class Bot:
    name = "wire_bot"
    version = "1"
    games = ("arschmallows", "take4")

    def __init__(self, protocol="1", history="delta"):
        self.protocol = int(protocol)
        self.history = history

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        self.policy = get_game(info["game"]).random_action  # needs only the legal actions
        self.events = []

    def act(self, observation, events=None):
        if events is not None:
            if self.history == "full":
                self.events = events
            else:
                self.events.extend(events)
        return self.policy(observation, self.rng)
