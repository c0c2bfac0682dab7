"""A protocol-2 test bot that folds its events into whole observations and plays ``greedy``
(bots/greedy.py, a protocol-1 bot that reads the whole observation) from them.

``observation`` = ``"step"`` (the default here: the platform sends only ``legal_actions`` and
whose step it is; the game's ``SeatRecall`` folds the events into the rest) or ``"full"`` (the
platform's whole observation, used as it comes): the same play, decision by decision, if the
fold is right. ``history`` = ``delta`` or ``full``. ``LOG`` (a class attribute list,
in-process only) collects ``(observation mode, seat, whole observation)`` per decision."""

import importlib.util
from pathlib import Path

from mallows.games import get_game

_spec = importlib.util.spec_from_file_location(
    "step_greedy", Path(__file__).resolve().parents[2] / "bots" / "greedy.py")
greedy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(greedy)

#: the start info's keys a protocol-1 observation carries (with the game's own, ``static``)
MATCH = ("game", "options", "seat", "players")


class Bot:
    name = "step"
    version = "1.0"
    games = ("arschmallows", "take4")
    protocol = 2
    LOG: list = []

    def __init__(self, observation="step", history="delta"):
        self.observation, self.history = observation, history

    def match_start(self, info):
        assert info["protocol"] == 2 and info.get("observation", "full") == self.observation
        events = get_game(info["game"]).events
        self.info, self.recall = info, events.SeatRecall(info)
        self.fixed = dict({k: info[k] for k in MATCH}, protocol=1,
                          **events.static(info["options"]))
        self.inner = greedy.Bot()
        self.inner.match_start(info)

    def act(self, observation, events):
        if self.observation == "step":
            assert "rows" not in observation and "positions" not in observation, observation
            self.recall.add(events)
            observation = self.recall.full_observation(observation)
        Bot.LOG.append((self.observation, self.info["seat"], observation))
        return self.inner.act(dict(observation, **self.fixed))
