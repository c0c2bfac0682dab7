"""A protocol-2 test bot: it folds its events (the game's ``SeatRecall``) and, at every
decision, checks that the fold rebuilds its observation (perfect recall, end to end, through
whatever carries the messages); a mismatch raises, which the platform records as a forfeit.
It plays at random from the protocol-1 observation it rebuilds from the start info and the
protocol-2 one. Parameters: ``history`` (delta or full). Its play is the same in both modes
and the same as the random bot's from the same seed.

``LOG`` (a class attribute list, in-process only) collects ``(history, seat, events so far,
observation)`` per decision for tests that compare the modes."""

import random

from mallows.agents.policy import random_action
from mallows.games import get_game

STEP = {"legal_actions"}


class Bot:
    name = "recall"
    version = "1.0"
    games = ("arschmallows", "take4")
    protocol = 2
    LOG: list = []

    def __init__(self, history="delta"):
        self.history = history

    def match_start(self, info):
        assert info["protocol"] == 2 and info["history"] == self.history, info
        self.info = info
        self.rng = random.Random(info["seed"])
        events = get_game(info["game"]).events
        self.skip = STEP | set(events.STEP_KEYS)
        self.recall = events.SeatRecall(info)
        self.seen = []

    def act(self, observation, events):
        if self.history == "full":
            assert [e["n"] for e in events] == list(range(len(events))), "full: not from n=0"
        else:
            assert not events or events[0]["n"] == len(self.seen), "delta: a gap or a repeat"
        self.seen = events if self.history == "full" else self.seen + events
        Bot.LOG.append(
            (self.history, self.info["seat"], [dict(e) for e in self.seen], dict(observation))
        )
        self.recall.add(events)
        folded = self.recall.observation()
        for key, value in observation.items():
            if key not in self.skip and folded.get(key, "<missing>") != value:
                raise AssertionError(
                    f"the fold says {key}={folded.get(key)!r}, the observation {value!r}"
                )
        full = dict(
            observation, **{k: self.info[k] for k in ("game", "seat", "players", "options")}
        )
        return random_action(full, self.rng)

    def match_end(self, info):
        assert "reveal" in info and isinstance(info["events"], list), info
        self.recall.add(info["events"])
