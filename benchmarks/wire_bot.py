"""The bot ``bench_wire.py`` measures: the random policy, speaking protocol 1 or 2 (parameters
``protocol``, ``history`` and ``observation``), so the same decisions cross the wire in every
mode. In protocol 2 it keeps its events, as a bot that uses them would; with ``fold=1`` (and
``observation=step``) it also folds them into the whole observation at every decision (the
game's ``SeatRecall.full_observation``), as a bot that wants the whole observation must."""

import random

from mallows.games import get_game


class Bot:
    name = "wire_bot"
    version = "1"
    games = ("arschmallows", "take4")

    def __init__(self, protocol="1", history="delta", observation="full", fold="0"):
        self.protocol = int(protocol)
        self.history = history
        if observation != "full":
            self.observation = observation
        self.fold = fold == "1"

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        game = get_game(info["game"])
        self.policy = game.random_action  # needs only the legal actions
        self.events = []
        self.recall = game.events.SeatRecall(info) if self.fold else None

    def act(self, observation, events=None):
        if events is not None:
            if self.history == "full":
                self.events = events
            else:
                self.events.extend(events)
            if self.recall is not None:
                self.recall.add(events)
                observation = self.recall.full_observation(observation)
        return self.policy(observation, self.rng)
