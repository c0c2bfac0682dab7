"""High card (``toy_highcard``) with protocol-2 events, for the perfect-recall check: each
seat's own card is private (the deal and a swap say it to that seat alone); the actions and
the round's end are public. ``Events.LEAK`` makes a swap say the new card to every seat (a
private value leaked through a public event); ``Events.DROP`` drops the public ``round_end``
event (the wins can no longer be rebuilt). Both must be caught by
``mallows.testing.events.check_events``."""

from __future__ import annotations

import pickle
import sys
from types import ModuleType

from mallows.games.events import EventLog

import toy_highcard
from toy_highcard import *  # noqa: F401,F403  (the game itself)
from toy_highcard import NAME, MIN_PLAYERS, MAX_PLAYERS, SIMULTANEOUS, RULE_SETS  # noqa: F401
from toy_highcard import DEFAULT_RULES, CHANCE_EVENTS, make_options, new_state  # noqa: F401
from toy_highcard import summary, describe_event, describe_result, random_action  # noqa: F401


def replay(record):
    return toy_highcard.replay(record)


def hidden_variants(state, seat, rng, count=2):
    """Copies where every card of the round but the seat's own is shuffled (the seat is to
    move, so it has not swapped yet this round)."""
    out = []
    for _ in range(count):
        other = pickle.loads(pickle.dumps(state))
        start = max(k for k, e in enumerate(other.events) if e["type"] == "deal")
        held, nxt = list(range(other.players)), other.players
        for e in other.events[start:]:
            if e["type"] == "action" and e["action"]["type"] == "swap":
                held[e["seat"]], nxt = nxt, nxt + 1
        hidden = [i for i in range(len(other.deck)) if i != held[seat]]
        values = [other.deck[i] for i in hidden]
        rng.shuffle(values)
        for i, v in zip(hidden, values):
            other.deck[i] = v
        other.cards = [other.deck[held[p]] for p in range(other.players)]
        out.append(other)
    return out


class Events(EventLog):
    LEAK = False
    DROP = False

    def begin_batch(self, batch, state):
        self._live = max((k for k, e in enumerate(batch) if e["type"] == "deal"), default=-1)
        self._k = 0

    def translate(self, event, state):
        k, self._k = self._k, self._k + 1
        kind = event["type"]
        if kind == "deal":
            live = k == self._live and state.round == event["round"] and not state.is_terminal()
            self.deck = state.deck if live else event["deck"]
            self.next = self.players
            self.emit(
                "deal",
                {"round": event["round"]},
                {s: {"card": self.deck[s]} for s in range(self.players)},
            )
        elif kind == "action":
            seat, what = event["seat"], event["action"]["type"]
            public = {"seat": seat, "action": what}
            private = None
            if what == "swap":
                card, self.next = self.deck[self.next], self.next + 1
                private = {seat: {"card": card}}
                if self.LEAK:
                    public["card"] = card
            self.emit("action", public, private)
        elif kind == "coin":
            self.emit("coin", {"tied": list(event["tied"]), "winner": event["winner"]})
        elif kind == "round_end" and not self.DROP:
            self.emit("round_end", {"cards": list(event["cards"]), "winner": event["winner"]})


class SeatRecall:
    def __init__(self, info):
        self.seat, self.wins, self.round, self.card, self.next_n = (
            info["seat"],
            [0] * info["players"],
            0,
            None,
            0,
        )

    def add(self, events):
        for e in events:
            if e["n"] < self.next_n:
                continue
            self.next_n += 1
            private = e.get("private") or {}
            if e["type"] == "deal":
                self.round, self.card = e["round"], private["card"]
            elif e["type"] == "action" and "card" in private:
                self.card = private["card"]
            elif e["type"] == "round_end":
                self.wins[e["winner"]] += 1

    def observation(self):
        return {"round": self.round, "card": self.card, "wins": list(self.wins)}


events = ModuleType("toy_recall.events")
events.match_events = Events
events.SeatRecall = SeatRecall
events.STATIC_KEYS = events.HISTORY_KEYS = events.STEP_KEYS = ()
sys.modules[events.__name__] = events
