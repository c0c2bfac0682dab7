"""Take4 as each seat may see it: the match events of protocol 2, and their fold.

Owns ``Take4Events`` (the game's ``mallows.games.events.EventLog``) and ``SeatRecall``.
Everything in Take4 is public but the deck's order (RULES.md T11), and a round's picks are
shown only once every seat has picked, so no event has a private part:

- ``round``: ``round``, ``positions`` (four entries, a name or null, position 1 first),
  ``deck`` (cards left once the positions are filled);
- ``picks``: ``round``, ``picks`` (by seat), ``races`` (``{"position", "contenders",
  "winner"}``, position order); a picked position's card goes to its one picker or the race's
  winner, the others go under the deck;
- ``game_end``: ``reason``, ``winners``.

The final reveal (protocol 2's ``end``) is empty: the rules never show the deck's order, and
showing it at the end would tell a bot the cards of the same deal's other seatings.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import marshal

from mallows.games.events import MATCH_KEYS, EventLog
from mallows.games.take4 import observation as _observation
from mallows.games.take4.cards import DECK, SQUADS

__all__ = [
    "STATIC_KEYS",
    "HISTORY_KEYS",
    "STEP_KEYS",
    "Take4Events",
    "SeatRecall",
    "match_events",
    "observation",
    "static",
    "step_observation",
]

STATIC_KEYS = ("squads",)
#: the protocol-1 observation's ``history`` is what the events tell: protocol 2 leaves it out
HISTORY_KEYS = ("history",)
STEP_KEYS = ("phase",)


_DROP = frozenset(MATCH_KEYS) | frozenset(STATIC_KEYS) | frozenset(HISTORY_KEYS)


def observation(state: Any, seat: int, cache: dict) -> dict:
    """The protocol-2 observation of ``seat``, built directly: the round's public part without
    the keys fixed for the match and the history, serialised once per round (as
    ``observation.snapshot``) and copied per seat. ``cache``: the caller's, one per match."""
    kept = cache.get("round")
    if kept is None or kept[0] != (state.round, state.is_terminal()):
        public = _observation.public(state)
        kept = cache["round"] = (
            (state.round, state.is_terminal()),
            marshal.dumps({k: v for k, v in public.items() if k not in _DROP}),
        )
    obs = marshal.loads(kept[1])
    if seat not in state.to_move():
        obs["legal_actions"] = []
    return obs


def step_observation(state: Any, seat: int) -> dict:
    """The protocol-2 ``"step"`` observation of ``seat``: ``legal_actions`` and ``STEP_KEYS``
    only, as in its full observation (the rest is its events' fold, ``SeatRecall``)."""
    legal = (
        [{"type": "pick", "position": p} for p in state.legal_positions()]
        if seat in state.to_move()
        else []
    )
    return {"phase": _observation.PHASE, "legal_actions": legal}


def static(options: Mapping[str, Any]) -> dict:
    """The start info's game-specific keys (the observation's fixed ``squads``)."""
    return {"squads": {squad: list(members) for squad, members in SQUADS.items()}}


class Take4Events(EventLog):
    def __init__(self, players: int, options: Mapping[str, Any]):
        super().__init__(players, options)
        self.remaining = len(DECK)
        self.positions: list[str | None] = []
        self.round = 0
        self._pending: dict | None = None

    def forfeit(self, event: dict, state: Any) -> None:
        self._settle(state, "forfeit")
        super().forfeit(event, state)

    def translate(self, event: dict, state: Any) -> None:
        kind = event.get("type")
        if kind != "race":
            self._settle(state, kind)
        if kind == "deal":
            self._round(0, state)
        elif kind == "picks":
            self._pending = {"round": event["round"], "picks": list(event["picks"]), "races": []}
            picked = set(event["picks"])
            self.remaining += sum(
                1
                for p, card in enumerate(self.positions, 1)
                if card is not None and p not in picked
            )
        elif kind == "race" and self._pending is not None:
            self._pending["races"].append(
                {
                    "position": event["position"],
                    "contenders": list(event["contenders"]),
                    "winner": event["winner"],
                }
            )
        elif kind == "game_end":
            self.emit("game_end", {"reason": event["reason"], "winners": list(event["winners"])})

    def _settle(self, state: Any, next_kind: str | None) -> None:
        """A round's picks are complete (its races follow them): emit them, then the next
        round's positions unless the match ended."""
        if self._pending is not None:
            pending, self._pending = self._pending, None
            self.emit("picks", pending)
            if next_kind != "game_end" and (next_kind is not None or not state.is_terminal()):
                self._round(pending["round"] + 1, state)

    def end_batch(self, state: Any) -> None:
        self._settle(state, None)

    def _round(self, r: int, state: Any) -> None:
        history = state.history
        positions = history[r]["positions"] if r < len(history) else state.positions
        self.positions = list(positions)
        self.round = r
        self.remaining -= sum(1 for card in positions if card is not None)
        self.emit("round", {"round": r, "positions": list(positions), "deck": self.remaining})


def match_events(players: int, options: Mapping[str, Any]) -> Take4Events:
    """The event view of a new match (fed the state after each transition)."""
    return Take4Events(players, options)


class SeatRecall:
    """One seat's knowledge folded from its events: ``add(events)``, ``observation()`` (or
    ``full_observation(step)`` for a bot sent the ``"step"`` observation)."""

    def __init__(self, info: Mapping[str, Any]):
        self.players = int(info["players"])
        self.round = 0
        self.positions: list[str | None] = [None] * 4
        self.collections: list[list[str]] = [[] for _ in range(self.players)]
        self.deck = 0
        self.history: list[dict] = []
        self.next_n = 0

    def add(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            if event["n"] < self.next_n:
                continue
            if event["n"] != self.next_n:
                raise ValueError(
                    f"event n={event['n']} arrived, but n={self.next_n} was "
                    f"expected next: an event is missing"
                )
            self.next_n += 1
            kind = event["type"]
            if kind == "round":
                self.round = event["round"]
                self.positions = list(event["positions"])
                self.deck = event["deck"]
            elif kind == "picks":
                winners = {r["position"]: r["winner"] for r in event["races"]}
                picks = event["picks"]
                for position, card in enumerate(self.positions, 1):
                    seats = [s for s, p in enumerate(picks) if p == position]
                    if card is None or not seats:
                        if card is not None:
                            self.deck += 1
                        continue
                    taker = seats[0] if len(seats) == 1 else winners[position]
                    self.collections[taker].append(card)
                self.history.append(
                    {
                        "round": event["round"],
                        "positions": list(self.positions),
                        "picks": list(picks),
                        "races": [
                            dict(r, contenders=list(r["contenders"])) for r in event["races"]
                        ],
                    }
                )
                self.positions = [None] * 4

    def observation(self) -> dict:
        return {
            "round": self.round,
            "positions": list(self.positions),
            "collections": [list(c) for c in self.collections],
            "deck": self.deck,
            "history": [dict(h) for h in self.history],
        }

    def full_observation(self, step: Mapping[str, Any]) -> dict:
        """The seat's whole protocol-2 observation, from its fold and the ``"step"``
        observation it was just sent (``phase``, ``legal_actions``): what ``observation:
        "full"`` would have sent (protocol 2 leaves ``history`` to the events)."""
        out = {
            "round": self.round,
            "positions": list(self.positions),
            "collections": [list(c) for c in self.collections],
            "deck": self.deck,
        }
        out.update(step)
        return out
