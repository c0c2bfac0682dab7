"""Arschmallows as each seat may see it: the match events of protocol 2, and their fold.

Owns ``ArschmallowsEvents`` (the game's ``mallows.games.events.EventLog``): it follows every
card of the round by id from the engine's own record events (the deal's deck, each action,
each reshuffle), exactly as the engine moves them, and says what each seat may see of each
transition, by the visibility rules of ``observation`` (RULES.md 4):

- ``deal`` public: ``round``, ``starting_seat``, ``discard`` (the first discard card's value),
  ``draw_pile`` (count); every row is ``table_cards`` face-down cards.
- ``peek`` public ``seat``, ``slots``; private to the seat: ``values``.
- ``draw`` public ``seat``; private: ``value``. ``take_discard`` public ``seat``, ``value``.
- ``swap`` ``seat``, ``slot``, ``discarded`` (the value of the card that left the slot).
- ``refuse`` ``seat``, ``slot``, ``discarded`` (the held card), ``face_up`` (the slot's card).
- ``spy`` ``seat``, ``player``, ``slot``, ``discarded``; private to the spy: ``value``.
- ``exchange`` ``seat``, ``slot``, ``player``, ``their_slot``, ``discarded``.
- ``play_twice`` ``seat``, ``discarded``. ``call``, ``pass``: ``seat``.
- ``get_rid`` ``seat``, ``slots``, ``revealed`` (values up to the first that differs),
  ``success``.
- ``reshuffle`` ``discard`` (the new discard card), ``draw_pile``.
- ``round_end`` ``round``, ``reason``, ``caller``, ``scores``, ``rows`` (every row's values:
  the reveal for scoring, RULES.md 1.14).

``SeatRecall`` folds one seat's events back into what that seat knows: its observation, but
for ``legal_actions`` and the step keys (``STEP_KEYS``: whose step it is and what is decided,
which every decision's observation says). ``mallows.testing.events`` checks both against the
engine's own observations.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from mallows.games.arschmallows.cards import ACTION_VALUES
from mallows.games.arschmallows.observation import build_observation
from mallows.games.events import MATCH_KEYS, EventLog

__all__ = [
    "STATIC_KEYS",
    "HISTORY_KEYS",
    "STEP_KEYS",
    "ArschmallowsEvents",
    "SeatRecall",
    "match_events",
    "observation",
    "recall_variants",
    "static",
    "step_observation",
]

#: the protocol-1 observation's keys a protocol-2 observation leaves out (besides
#: ``mallows.games.events.MATCH_KEYS``): fixed for the match, in the start info.
STATIC_KEYS = ("rules",)
#: keys the events make redundant (none in Arschmallows)
HISTORY_KEYS: tuple[str, ...] = ()
#: the observation's keys a fold does not rebuild: they say whose step it is and what is
#: decided, and every decision's observation carries them
STEP_KEYS = ("phase", "current_seat", "turn", "extra_turns")

_USE = ("swap", "refuse", "spy", "exchange", "play_twice", "get_rid")


class ArschmallowsEvents(EventLog):
    """Every card of the current round, by id, where the engine has it."""

    values: Sequence[int]
    rows: list[list[int]]
    discard: list[int]
    draw: list[int]
    held: int | None
    last_rows: list[list[int]]

    def __init__(self, players: int, options: Mapping[str, Any]):
        super().__init__(players, options)
        self.table_cards = int(options["table_cards"])
        self.last_rows = []
        self._current_deal = -1
        self.held = None
        #: the cards of this round that went through a reshuffle: every seat saw them on the
        #: discard pile, so a seat that forgot where they went still knows their values
        self.recycled: set[int] = set()

    def begin_batch(self, batch: Sequence[dict], state: Any) -> None:
        # The deal being played (the batch's last) reads its values from the state itself, so
        # that a copy of the state with other hidden values (mallows.testing) is followed too.
        live = None
        for event in batch:
            if event.get("type") == "deal":
                live = event
        self._live_deal = live

    def translate(self, event: dict, state: Any) -> None:
        kind = event.get("type")
        if kind == "action":
            self._action(event["seat"], event["action"])
        elif kind == "deal":
            live = (
                event is self._live_deal
                and getattr(state, "round", None) == event["round"]
                and not state.is_terminal()
            )
            self._deal(event, state.values if live else event["deck"], state)
        elif kind == "reshuffle":
            self._reshuffle(event["deck"])
        elif kind == "round_end":
            self.last_rows = [[self.values[c] for c in row] for row in self.rows]
            self.emit(
                "round_end",
                {
                    "round": event["round"],
                    "reason": event["reason"],
                    "caller": event["caller"],
                    "scores": list(event["scores"]),
                    "rows": [list(r) for r in self.last_rows],
                },
            )

    def reveal(self, state: Any) -> dict:
        return {"rows": [list(r) for r in self.last_rows]}

    # -- the engine's moves, by card id ---------------------------------------------------
    def _deal(self, event: dict, values: Sequence[int], state: Any) -> None:
        n, t = self.players, self.table_cards
        self.values = values
        self.rows = [list(range(s * t, (s + 1) * t)) for s in range(n)]
        first = n * t
        self.discard = [first]
        self.draw = list(range(len(values) - 1, first, -1))
        self.held = None
        self.recycled = set()
        self.emit(
            "deal",
            {
                "round": event["round"],
                "starting_seat": self._next_start(event),
                "discard": values[first],
                "draw_pile": len(self.draw),
            },
        )

    def _next_start(self, event: dict) -> int:
        """The starting seat of a deal: the engine's rule (RULES.md 1.15), from the round
        scores so far."""
        from mallows.games.arschmallows import rules

        if event["round"] == 0:
            return 0
        scores = [e for e in self.public if e["type"] == "round_end"]
        totals = [0] * self.players
        start = 0
        for e in scores:
            totals = [a + b for a, b in zip(totals, e["scores"])]
            start = rules.next_starter(e["scores"], totals, start, self.options)
        return start

    def _reshuffle(self, deck: Sequence[int]) -> None:
        pool: dict[int, list[int]] = {}
        for card in self.discard:
            pool.setdefault(self.values[card], []).append(card)
        ids = [pool[v].pop() for v in deck]
        self.recycled.update(ids)
        self.discard = [ids[0]]
        self.draw = ids[:0:-1]
        self.emit("reshuffle", {"discard": self.values[ids[0]], "draw_pile": len(self.draw)})

    def _action(self, seat: int, action: Mapping[str, Any]) -> None:
        kind = action["type"]
        values, row = self.values, self.rows[seat]
        if kind == "peek":
            i, j = action["slots"]
            self.emit(
                "peek",
                {"seat": seat, "slots": [i, j]},
                {seat: {"values": [values[row[i]], values[row[j]]]}},
            )
        elif kind == "draw":
            self.held = self.draw.pop()
            self.emit("draw", {"seat": seat}, {seat: {"value": values[self.held]}})
        elif kind == "take_discard":
            self.held = self.discard.pop()
            self.emit("take_discard", {"seat": seat, "value": values[self.held]})
        elif kind in ("call", "pass"):
            self.emit(kind, {"seat": seat})
        elif kind in _USE:
            held = self.held
            assert held is not None
            self.held = None
            if kind == "swap":
                slot = action["slot"]
                old, row[slot] = row[slot], held
                self.discard.append(old)
                self.emit("swap", {"seat": seat, "slot": slot, "discarded": values[old]})
            elif kind == "refuse":
                slot = action["slot"]
                self.discard.append(held)
                self.emit(
                    "refuse",
                    {
                        "seat": seat,
                        "slot": slot,
                        "discarded": values[held],
                        "face_up": values[row[slot]],
                    },
                )
            elif kind == "spy":
                player, slot = action["player"], action["slot"]
                self.discard.append(held)
                self.emit(
                    "spy",
                    {"seat": seat, "player": player, "slot": slot, "discarded": values[held]},
                    {seat: {"value": values[self.rows[player][slot]]}},
                )
            elif kind == "exchange":
                slot, player, their = action["slot"], action["player"], action["their_slot"]
                other = self.rows[player]
                row[slot], other[their] = other[their], row[slot]
                self.discard.append(held)
                self.emit(
                    "exchange",
                    {
                        "seat": seat,
                        "slot": slot,
                        "player": player,
                        "their_slot": their,
                        "discarded": values[held],
                    },
                )
            elif kind == "play_twice":
                self.discard.append(held)
                self.emit("play_twice", {"seat": seat, "discarded": values[held]})
            else:  # get_rid (RULES.md 1.8)
                slots = list(action["slots"])
                listed = [row[i] for i in slots]
                first = values[listed[0]]
                revealed = []
                for card in listed:
                    revealed.append(values[card])
                    if values[card] != first:
                        break
                same = len(revealed) == len(listed) and revealed[-1] == first
                success = same and len(listed) >= (2 if first in ACTION_VALUES else 3)
                if success:
                    self.discard.extend(listed)
                    gone = set(slots[1:])
                    row[slots[0]] = held
                    self.rows[seat] = [c for i, c in enumerate(row) if i not in gone]
                else:
                    row.append(held)
                self.emit(
                    "get_rid",
                    {"seat": seat, "slots": slots, "revealed": revealed, "success": success},
                )


def match_events(players: int, options: Mapping[str, Any]) -> ArschmallowsEvents:
    """The event view of a new match (fed the state after each transition)."""
    return ArschmallowsEvents(players, options)


def recall_variants(state: Any, seat: int, rng: Any, count: int = 2) -> list:
    """Copies of ``state`` that differ only in what ``seat`` has never known this match (the
    hidden variants of ``observation``, but for the cards that went through a reshuffle: the
    seat saw them on the discard pile, and remembers what is among them)."""
    from mallows.games.arschmallows.observation import hidden_variants

    view = ArschmallowsEvents(state.players, state.options)
    view.feed(state)
    return hidden_variants(state, seat, rng, count, keep=view.recycled)


_DROP = frozenset(MATCH_KEYS) | frozenset(STATIC_KEYS) | frozenset(HISTORY_KEYS)


def observation(state: Any, seat: int, cache: dict) -> dict:
    """The protocol-2 observation of ``seat``, built directly (the protocol-1 one without the
    keys fixed for the match). ``cache``: the caller's, one per match."""
    full = state.round_base[seat]
    kept = cache.get(seat)
    if kept is None or kept[0] is not full:
        kept = cache[seat] = (full, {k: v for k, v in full.items() if k not in _DROP})
    return build_observation(state, seat, kept[1])


def step_observation(state: Any, seat: int) -> dict:
    """The protocol-2 ``"step"`` observation of ``seat``: ``legal_actions`` and ``STEP_KEYS``
    only, as in its full observation (the rest is its events' fold, ``SeatRecall``)."""
    mine = seat == state.current
    return {
        "phase": state.phase,
        "legal_actions": state.legal_actions(seat),
        "extra_turns": state.extra if mine else 0,
        "current_seat": state.current,
        "turn": state.turns,
    }


def static(options: Mapping[str, Any]) -> dict:
    """The start info's game-specific keys (the observation's fixed ``rules``)."""
    return {"rules": options["rules"]}


def _slot(face_up: bool, value: int | None) -> dict:
    return {"face_up": face_up, "value": value}


class SeatRecall:
    """One seat's knowledge, folded from its events (perfect recall): ``add(events)``, then
    ``observation()`` (or ``full_observation(step)`` for a bot sent the ``"step"``
    observation). ``info`` is the start info (``seat``, ``players``, ``options``)."""

    def __init__(self, info: Mapping[str, Any]):
        self.seat = int(info["seat"])
        self.players = int(info["players"])
        self.options = dict(info["options"])
        self.totals = [0] * self.players
        self.round = 0
        self.starting_seat = 0
        self.rows: list[list[dict]] = []
        self.discard: list[int] = []
        self.draw_pile = 0
        self.held: dict | None = None  # {"value", "source"} while this seat holds a card
        self.held_value: int | None = None  # the held card's value, if this seat knows it
        self.holder: int | None = None
        self.caller: int | None = None
        self.final = False
        self.next_n = 0

    def add(self, events: Sequence[Mapping[str, Any]]) -> None:
        for event in events:
            if event["n"] < self.next_n:  # already folded (full history)
                continue
            if event["n"] != self.next_n:
                raise ValueError(
                    f"event n={event['n']} arrived, but n={self.next_n} was "
                    f"expected next: an event is missing"
                )
            self.next_n += 1
            self._one(event)

    def _one(self, e: Mapping[str, Any]) -> None:
        kind = e["type"]
        me = self.seat
        private = e.get("private") or {}
        if kind == "deal":
            t = int(self.options["table_cards"])
            self.round = e["round"]
            self.starting_seat = e["starting_seat"]
            self.rows = [[_slot(False, None) for _ in range(t)] for _ in range(self.players)]
            self.discard = [e["discard"]]
            self.draw_pile = e["draw_pile"]
            self.held = None
            self.holder = self.held_value = None
            self.caller = None
            self.final = False
        elif kind == "round_end":
            self.totals = [a + b for a, b in zip(self.totals, e["scores"])]
        elif kind == "reshuffle":
            self.discard = [e["discard"]]
            self.draw_pile = e["draw_pile"]
        elif kind == "peek":
            if e["seat"] == me:
                for slot, value in zip(e["slots"], private["values"]):
                    self.rows[me][slot] = _slot(False, value)
        elif kind == "draw":
            self.draw_pile -= 1
            self._hold(e["seat"], private.get("value") if e["seat"] == me else None, "draw")
        elif kind == "take_discard":
            self.discard.pop()
            self._hold(e["seat"], e["value"], "discard")
        elif kind == "call":
            self.caller = e["seat"]
            self.final = True
        elif kind in _USE:
            self._use(e, private)

    def _hold(self, seat: int, value: int | None, source: str) -> None:
        self.holder = seat
        self.held_value = value
        self.held = {"value": value, "source": source} if seat == self.seat else None

    def _use(self, e: Mapping[str, Any], private: Mapping[str, Any]) -> None:
        kind, seat = e["type"], e["seat"]
        row = self.rows[seat]
        incoming = _slot(False, self.held_value)  # None unless this seat knows the held card
        if kind == "swap":
            row[e["slot"]] = incoming
            self.discard.append(e["discarded"])
        elif kind == "refuse":
            row[e["slot"]] = _slot(True, e["face_up"])
            self.discard.append(e["discarded"])
        elif kind == "spy":
            if seat == self.seat:
                self.rows[e["player"]][e["slot"]] = _slot(False, private["value"])
            self.discard.append(e["discarded"])
        elif kind == "exchange":
            other = self.rows[e["player"]]
            row[e["slot"]], other[e["their_slot"]] = other[e["their_slot"]], row[e["slot"]]
            self.discard.append(e["discarded"])
        elif kind == "play_twice":
            self.discard.append(e["discarded"])
        else:  # get_rid
            slots, revealed = e["slots"], e["revealed"]
            for slot, value in zip(slots, revealed):
                row[slot] = _slot(False, value)
            if e["success"]:
                self.discard.extend(revealed)
                gone = set(slots[1:])
                row[slots[0]] = incoming
                self.rows[seat] = row = [c for i, c in enumerate(row) if i not in gone]
            else:
                row.append(incoming)
        self.held = None
        self.holder = self.held_value = None
        if not self.final and not any(not c["face_up"] for c in row):
            self.final = True  # the all-face-up trigger (RULES.md 1.9)

    def observation(self) -> dict:
        """The seat's observation as its events tell it, but for ``legal_actions`` and
        ``STEP_KEYS``."""
        return {
            "round": self.round,
            "starting_seat": self.starting_seat,
            "scores": list(self.totals),
            "rows": [[dict(c) for c in row] for row in self.rows],
            "discard": list(self.discard),
            "draw_pile": self.draw_pile,
            "held": dict(self.held) if self.held is not None else None,
            "caller": self.caller,
            "final_turns": self.final,
        }

    def full_observation(self, step: Mapping[str, Any]) -> dict:
        """The seat's whole protocol-2 observation, from its fold and the ``"step"``
        observation it was just sent (``legal_actions`` and ``STEP_KEYS``): what
        ``observation: "full"`` would have sent."""
        out = self.observation()
        out.update(step)
        return out
