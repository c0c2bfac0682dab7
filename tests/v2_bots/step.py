"""A test bot that plays from whole observations, however it gets them: protocol 1's
(``protocol=1``), protocol 2's ``"full"`` one (``observation=full``), or protocol 2's slim
``"step"`` one (the default: only ``legal_actions`` and whose step it is), folding its events
into the rest with the game's ``SeatRecall``. Its play reads the whole observation (the
Arschmallows heuristic: rows, discard pile, held card, scores; in Take4 the positions, its
collection and the squads), so the three ways play the same matches only if the fold is right.
``history`` = ``delta`` or ``full``. ``LOG`` (a class attribute list, in-process only)
collects ``(observation mode, seat, whole protocol-2 observation)`` per decision."""

from mallows.games import get_game
from mallows.games.arschmallows.botkit import heuristic_decide

#: protocol 1's observation keys the start info carries in protocol 2 (with the game's own)
MATCH = ("game", "options", "seat", "players")


def take4(obs):
    """The first card of a squad it holds most of, else the first card: reads positions,
    collections and squads."""
    mine = obs["collections"][obs["seat"]]
    squad_of = {c: s for s, members in obs["squads"].items() for c in members}

    def value(action):
        card = obs["positions"][action["position"] - 1]
        return (card not in mine, sum(squad_of[c] == squad_of[card] for c in mine))

    return max(obs["legal_actions"], key=value)


class Bot:
    name = "step"
    version = "1.0"
    games = ("arschmallows", "take4")
    LOG: list = []

    def __init__(self, observation="step", history="delta", protocol="2"):
        self.protocol, self.history = int(protocol), history
        if self.protocol == 2:
            self.observation = observation

    def match_start(self, info):
        self.info = info
        if self.protocol == 2:
            assert info["protocol"] == 2 and info.get("observation", "full") == self.observation
            events = get_game(info["game"]).events
            self.recall = events.SeatRecall(info)
            self.fixed = dict(
                {k: info[k] for k in MATCH}, protocol=1, **events.static(info["options"])
            )

    def act(self, observation, events=None):
        if self.protocol == 2:
            if self.observation == "step":
                assert "rows" not in observation and "positions" not in observation
                self.recall.add(events)
                observation = self.recall.full_observation(observation)
            Bot.LOG.append((self.observation, self.info["seat"], observation))
            observation = dict(observation, **self.fixed)  # = protocol 1's observation
        if observation["game"] == "take4":
            return take4(observation)
        return heuristic_decide(observation)
