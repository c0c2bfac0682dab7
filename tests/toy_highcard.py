"""High card: a toy game that exists to prove a new game is its package plus one registry line.

2 or 3 players, ``rounds`` rounds (1 to 9, default 3). Each round the ten cards 1..10 are
shuffled (stream ``"deal"``); seat s holds card s, and seats in turn ``keep`` it or ``swap`` it
for the next card of the deck. The highest card wins the round; a tie is settled by a coin
(the game's own stream ``"coin"``). Most rounds won ranks first.

Its faces (``FACES``: the text view, the replay and its table script, the web play view, the
codec for PettingZoo and OpenSpiel) are in ``toy_highcard_faces.py``, as a game's faces are
in its package.
"""

from __future__ import annotations

import sys

from mallows.errors import GameConfigError, IllegalAction
from mallows.games.base import competition_ranks, replay_actions
from mallows.games.describe import seat_label
from mallows.games.faces import Faces
from mallows.games.options import parse_int

NAME, MIN_PLAYERS, MAX_PLAYERS, SIMULTANEOUS = "highcard", 2, 3, False
RULE_SETS = {"default": {"rounds": 3}}
DEFAULT_RULES = "default"
CHANCE_EVENTS = {"deal": "deck", "coin": "winner"}


def make_options(rules=None, overrides=None):
    overrides = dict(overrides or {})
    rules = overrides.pop("rules", None) or rules or DEFAULT_RULES
    if rules not in RULE_SETS:
        raise GameConfigError(f"highcard has one rule set, 'default', not {rules!r}")
    options = dict(RULE_SETS[rules])
    for key, value in overrides.items():
        number = parse_int(value) if key == "rounds" else None
        if number is None or not 1 <= number <= 9:
            raise GameConfigError(
                f"highcard option {key}={value!r}: the one option is "
                f"rounds, a whole number from 1 to 9"
            )
        options[key] = number
    return options


class State:
    game = NAME

    def __init__(self, options, players, chance):
        self.options, self.players, self.chance = options, players, chance
        self.events, self.wins, self.round = [], [0] * players, 0
        self._deal()

    def _deal(self):
        self.deck = self.chance.shuffle("deal", self.round, list(range(1, 11)))
        self.events.append({"type": "deal", "round": self.round, "deck": list(self.deck)})
        self.cards, self.next, self.current = self.deck[: self.players], self.players, 0

    def to_move(self):
        return () if self.current is None else (self.current,)

    def is_terminal(self):
        return self.current is None

    def legal_actions(self, seat):
        return [{"type": "keep"}, {"type": "swap"}] if seat == self.current else []

    def observation(self, seat):
        return {
            "game": NAME,
            "seat": seat,
            "players": self.players,
            "round": self.round,
            "card": self.cards[seat],
            "wins": list(self.wins),
            "options": dict(self.options),
            "legal_actions": self.legal_actions(seat),
        }

    def apply(self, seat, action):
        if seat != self.current:
            raise IllegalAction(f"it is seat {self.current}'s turn, not {seat!r}'s")
        if action not in self.legal_actions(seat):
            raise IllegalAction(f"{action!r}: answer {{'type': 'keep'}} or {{'type': 'swap'}}")
        self.events.append({"type": "action", "seat": seat, "action": dict(action)})
        if action["type"] == "swap":
            self.cards[seat], self.next = self.deck[self.next], self.next + 1
        self.current = seat + 1 if seat + 1 < self.players else None
        if self.current is None:
            best = max(self.cards)
            tied = [s for s, card in enumerate(self.cards) if card == best]
            winner = tied[0] if len(tied) == 1 else self.chance.choice("coin", self.round, tied)
            if len(tied) > 1:
                self.events.append({"type": "coin", "tied": tied, "winner": winner})
            self.wins[winner] += 1
            self.events.append({"type": "round_end", "cards": list(self.cards), "winner": winner})
            self.round += 1
            if self.round < self.options["rounds"]:
                self._deal()

    def result(self, forfeits):
        return {
            "ranks": competition_ranks([-w for w in self.wins], forfeits),
            "wins": list(self.wins),
            "forfeits": list(forfeits),
        }

    def record_header(self):
        return {}


def new_state(options, players, chance):
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameConfigError(f"highcard is for 2 or 3 players, got {players}")
    return State(make_options(None, options), players, chance)


def replay(record):
    return replay_actions(sys.modules[__name__], record)


def summary(record):
    result = record["result"]
    return (
        ["seat", "bot", "rank", "wins"],
        [
            [s, name, result["ranks"][s], result["wins"][s]]
            for s, name in enumerate(record["players"])
        ],
        [],
    )


def describe_event(record, event):
    if event["type"] == "round_end":
        return [f"  cards {event['cards']}: {seat_label(record, event['winner'])} wins the round"]
    if event["type"] == "action":
        return [f"  {seat_label(record, event['seat'])} {event['action']['type']}s"]
    return None


def describe_result(record, seat):
    return [f"{record['result']['wins'][seat]} round(s) won"]


def random_action(observation, rng, **_):
    return rng.choice(observation["legal_actions"])


class _Faces(Faces):
    """Its faces, all in ``toy_highcard_faces`` (imported when first asked for)."""

    def text(self):
        import toy_highcard_faces

        return toy_highcard_faces

    replay = web = interop = text


FACES = _Faces()
