"""The Arschmallows state machine: deal, peek, take, use, end; triggers, final turns, piles.

Owns: ``ArschmallowsState`` (the ``mallows.games.base.State`` the runner drives), action
validation with messages a bot author can act on, and the record events (deal, action,
reshuffle, round_end). Scoring and options live in ``rules``; what a seat knows and the
observation dict live in ``observation``. RULES.md section numbers are cited as ``1.x``.

Cards are named by card id, their index in the round's dealt deck; ``values[id]`` is the value.
Rows hold card ids by slot; the draw pile is a list with its top at the end; the discard pile is
a list bottom to top, with its values kept alongside for cheap observations.
"""

from __future__ import annotations

import operator
from collections import deque
from typing import Any, NoReturn, Sequence

from mallows.errors import IllegalAction
from mallows.games.arschmallows import cards, rules
from mallows.games.arschmallows.cards import ACTION_VALUES, EXCHANGE, PLAY_TWICE, SPY
from mallows.games.arschmallows.observation import Knowledge, build_observation, round_base

#: Exact action shapes (RULES.md 5); the keys of each, ``type`` included.
SHAPES = {
    "peek": ('{"type": "peek", "slots": [i, j]}', ("type", "slots")),
    "draw": ('{"type": "draw"}', ("type",)),
    "take_discard": ('{"type": "take_discard"}', ("type",)),
    "swap": ('{"type": "swap", "slot": i}', ("type", "slot")),
    "refuse": ('{"type": "refuse", "slot": i}', ("type", "slot")),
    "spy": ('{"type": "spy", "player": p, "slot": i}', ("type", "player", "slot")),
    "exchange": (
        '{"type": "exchange", "slot": i, "player": p, "their_slot": j}',
        ("type", "slot", "player", "their_slot"),
    ),
    "play_twice": ('{"type": "play_twice"}', ("type",)),
    "get_rid": ('{"type": "get_rid", "slots": [i, j, ...]}', ("type", "slots")),
    "call": ('{"type": "call"}', ("type",)),
    "pass": ('{"type": "pass"}', ("type",)),
}
PHASE_TYPES = {
    "peek": ("peek",),
    "take": ("draw", "take_discard"),
    "use": ("swap", "refuse", "spy", "exchange", "play_twice", "get_rid"),
    "end": ("call", "pass"),
}
#: phase -> action type -> its exact key set: one lookup validates type, phase and keys.
PHASE_KEYSETS = {
    phase: {kind: frozenset(SHAPES[kind][1]) for kind in kinds}
    for phase, kinds in PHASE_TYPES.items()
}
ACTION_OF = {SPY: "spy", EXCHANGE: "exchange", PLAY_TWICE: "play_twice"}


def _whole(value: Any, what: str) -> int:
    """``value`` as a Python int. Integers of other types (numpy's) are accepted and recorded
    as plain ints; bools, floats and strings are not."""
    if type(value) is int:
        return value
    if isinstance(value, bool) or not hasattr(type(value), "__index__"):
        raise IllegalAction(f"{what} must be a whole number, got {value!r}")
    return operator.index(value)


def _int(action: dict, key: str) -> int:
    return _whole(action[key], repr(key))


class ArschmallowsState:
    game = "arschmallows"

    # the round's state, set by ``_start_round`` (None where a phase has none)
    values: list[int]
    rows: list[list[int]]
    up: list[bool]
    down_slots: list[list[int]]
    discard: list[int]
    discard_values: list[int]
    draw: list[int]
    held: int | None
    held_source: str | None
    turns: int
    extra: int
    caller: int | None
    trigger: str | None
    trigger_seat: int | None
    final_extra: int
    final_queue: deque[int]
    phase: str | None
    current: int | None

    def __init__(self, options: dict, players: int, chance: Any):
        self.options = options
        self.players = players
        self.chance = chance
        self.table_cards = options["table_cards"]
        self.max_turns = options["max_turns_per_round"]
        self.final_turns_on = options["final_turns"]
        t = self.table_cards
        self.events: list[dict] = []
        # Per seat, parts of observations shared between that seat's observations (read-only,
        # see observation.py): a copy of the options and the fixed legal-action dicts.
        self.seat_options = [dict(options) for _ in range(players)]
        self._peeks = [
            [{"type": "peek", "slots": [i, j]} for i in range(t) for j in range(i + 1, t)]
            for _ in range(players)
        ]
        self._fixed = [
            {
                kind: {"type": kind}
                for kind in ("draw", "take_discard", "call", "pass", "play_twice")
            }
            for _ in range(players)
        ]
        self._swaps: list[list[dict]] = [[] for _ in range(players)]
        self._refusals: list[list[dict]] = [[] for _ in range(players)]
        # per seat: (the down_slots list it was built for, its swap and refuse actions)
        self._use_base: list[tuple[list | None, list]] = [(None, [])] * players
        self.round = 0
        self.starting_seat = 0
        self.totals = [0] * players
        self.round_scores: list[list[int]] = []
        self.round_wins = [0] * players
        #: per finished round: raw scores, caller, whether doubled, trigger and its seat.
        self.history: list[dict] = []
        self._start_round()

    def _held(self) -> int:
        """The card in hand (the use decision always has one)."""
        held = self.held
        assert held is not None
        return held

    def _seat(self) -> int:
        """The seat to move (a round in play always has one)."""
        current = self.current
        assert current is not None
        return current

    # ----------------------------------------------------------------- the State interface
    def to_move(self) -> tuple[int, ...]:
        return () if self.phase is None or self.current is None else (self.current,)

    def is_terminal(self) -> bool:
        return self.phase is None

    def observation(self, seat: int) -> dict:
        return build_observation(self, seat)

    def record_header(self) -> dict:
        return {"rules": self.options["rules"]}

    def result(self, forfeits: Sequence[str | None]) -> dict:
        forfeits = list(forfeits) + [None] * (self.players - len(forfeits))
        return {
            "ranks": rules.final_ranks(self.totals, self.round_wins, forfeits),
            "totals": list(self.totals),
            "round_scores": [list(s) for s in self.round_scores],
            "round_wins": list(self.round_wins),
            "forfeits": forfeits,
        }

    def legal_actions(self, seat: int) -> list[dict]:
        phase = self.phase
        if phase is None or seat != self.current:
            return []
        fixed = self._fixed[seat]
        if phase == "take":
            if not self.draw:
                return [fixed["take_discard"]]
            return [fixed["draw"], fixed["take_discard"]] if self.discard else [fixed["draw"]]
        if phase == "end":
            return [fixed["call"], fixed["pass"]]
        if phase == "peek":
            return self._peeks[seat][:]
        down = self.down_slots[seat]
        built_for, base = self._use_base[seat]
        if built_for is not down:  # the face-down slots changed since: rebuild
            swaps, refusals = self._swaps[seat], self._refusals[seat]
            while len(swaps) < len(self.rows[seat]):
                swaps.append({"type": "swap", "slot": len(swaps)})
                refusals.append({"type": "refuse", "slot": len(refusals)})
            base = [swaps[i] for i in down] + [refusals[i] for i in down]
            self._use_base[seat] = (down, base)
        out = base[:]
        if self.held_source == "draw":
            value = self.values[self._held()]
            if value == SPY:
                out += [
                    {"type": "spy", "player": p, "slot": j}
                    for p in range(self.players)
                    for j in self.down_slots[p]
                ]
            elif value == EXCHANGE:
                theirs = [
                    (p, j) for p in range(self.players) if p != seat for j in self.down_slots[p]
                ]
                out += [
                    {"type": "exchange", "slot": i, "player": p, "their_slot": j}
                    for i in down
                    for p, j in theirs
                ]
            elif value == PLAY_TWICE:
                out.append(fixed["play_twice"])
        if len(down) >= 2:
            out.append({"type": "get_rid", "choose_from": down[:]})
        return out

    def apply(self, seat: int, action: Any) -> None:
        if self.phase is None:
            raise IllegalAction("the match is over: no more actions")
        if seat != self.current:
            raise IllegalAction(f"it is seat {self.current}'s turn, not seat {seat}'s")
        if not isinstance(action, dict):
            raise IllegalAction(
                f'an action is a JSON object such as {{"type": "draw"}}, '
                f"got {type(action).__name__}"
            )
        kind: Any = action.get("type")
        expected = PHASE_KEYSETS[self.phase].get(kind) if type(kind) is str else None
        if expected is None or action.keys() != expected:
            self._explain(action, kind)
        HANDLERS[kind](self, seat, action)

    def _explain(self, action: dict, kind: Any) -> NoReturn:
        """Raise IllegalAction saying what is wrong with ``action``'s type or keys."""
        if kind is None:
            raise IllegalAction(
                '\'type\' missing: an action is a JSON object such as {"type": "draw"}'
            )
        if not isinstance(kind, str) or kind not in SHAPES:
            raise IllegalAction(f"unknown action type {kind!r}: the types are {', '.join(SHAPES)}")
        allowed = PHASE_TYPES[self.phase or ""]
        if kind not in allowed:
            raise IllegalAction(
                f"{kind} is not legal now: this is the {self.phase} decision"
                f"{self._holding()}, where the types are {', '.join(allowed)}"
            )
        shape, keys = SHAPES[kind]
        for k in keys:
            if k not in action:
                raise IllegalAction(f"{k!r} missing: a {kind} action is {shape}")
        extra = sorted(repr(k) for k in action if k not in keys)
        raise IllegalAction(f"unexpected key {extra[0]} in a {kind} action: it is exactly {shape}")

    # ----------------------------------------------------------------- queries
    def face_down(self, seat: int) -> list[int]:
        """``seat``'s face-down slots, computed (``down_slots`` keeps them between changes)."""
        up = self.up
        return [i for i, c in enumerate(self.rows[seat]) if not up[c]]

    def all_cards(self) -> list[int]:
        """Every card id where it is now (rows, discard, draw pile, held): for invariant checks."""
        out = [c for row in self.rows for c in row] + self.discard + self.draw
        return out + ([self.held] if self.held is not None else [])

    def _holding(self) -> str:
        if self.held is None:
            return ""
        return f" (you hold a {self.values[self.held]} from the {self.held_source} pile)"

    # ----------------------------------------------------------------- validation helpers
    def _own_down(self, seat: int, slot: int) -> int:
        """The card id in ``seat``'s face-down ``slot``, or IllegalAction saying why not."""
        row = self.rows[seat]
        if not 0 <= slot < len(row):
            raise IllegalAction(
                f"no such slot {slot}: your row has {len(row)} slots (0 to {len(row) - 1})"
            )
        card = row[slot]
        if self.up[card]:
            raise IllegalAction(f"slot {slot} is face up (blocked): choose a face-down slot")
        return card

    def _their_down(self, seat: int, player: int, slot: int, key: str) -> int:
        if not 0 <= player < self.players:
            raise IllegalAction(f"no such player {player}: players are 0 to {self.players - 1}")
        if player == seat:
            return self._own_down(seat, slot)
        row = self.rows[player]
        if not 0 <= slot < len(row):
            raise IllegalAction(
                f"no such {key} {slot}: seat {player}'s row has {len(row)} "
                f"slots (0 to {len(row) - 1})"
            )
        card = row[slot]
        if self.up[card]:
            raise IllegalAction(
                f"seat {player}'s slot {slot} is face up (blocked): choose a face-down card"
            )
        return card

    def _need_action_card(self, kind: str) -> None:
        value = self.values[self._held()]
        if self.held_source != "draw" or ACTION_OF.get(value) != kind:
            needed = {v: k for k, v in ACTION_OF.items()}[kind]
            raise IllegalAction(
                f"{kind} needs a {needed} ({cards.ACTION_NAMES[needed]}) drawn "
                f"from the draw pile, but you hold a {value} from the "
                f"{self.held_source} pile"
            )

    def _slot_list(self, seat: int, action: dict, key: str = "slots") -> list[int]:
        slots = action[key]
        if not isinstance(slots, list):
            raise IllegalAction(f"{key!r} must be a list of slot numbers, got {slots!r}")
        slots = [_whole(slot, f"each of {key!r}") for slot in slots]
        for k, slot in enumerate(slots):
            if slot in slots[:k]:
                raise IllegalAction(f"slot {slot} is listed twice: list distinct slots")
            self._own_down(seat, slot)
        return slots

    # ----------------------------------------------------------------- the decisions
    def _do_peek(self, seat: int, action: dict) -> None:
        slots = self._slot_list(seat, action)
        if len(slots) != 2:
            raise IllegalAction(f"a peek names exactly two distinct slots, got {len(slots)}")
        i, j = sorted(slots)
        row = self.rows[seat]
        self.knowledge.learn(seat, row[i])
        self.knowledge.learn(seat, row[j])
        self.knowledge.touch(seat)
        self._log(seat, {"type": "peek", "slots": [i, j]})  # recorded as i < j
        if seat + 1 < self.players:
            self.current = seat + 1
        else:
            self.current = self.starting_seat
            self._begin_turn()

    def _do_draw(self, seat: int, action: dict) -> None:
        if not self.draw:
            raise IllegalAction("the draw pile is empty: take_discard instead")
        card = self.draw.pop()
        self.knowledge.learn(seat, card)
        self._hold(seat, card, "draw", {"type": "draw"})

    def _do_take_discard(self, seat: int, action: dict) -> None:
        if not self.discard:
            raise IllegalAction("the discard pile is empty: draw instead")
        card = self.discard.pop()
        self.discard_values.pop()
        self._hold(seat, card, "discard", {"type": "take_discard"})

    def _hold(self, seat: int, card: int, source: str, logged: dict) -> None:
        self.held = card
        self.held_source = source
        self.phase = "use"
        self._log(seat, logged)

    def _do_swap(self, seat: int, action: dict) -> None:
        slot = _int(action, "slot")
        old = self._own_down(seat, slot)
        self.rows[seat][slot] = self._held()
        self.knowledge.touch(seat)
        self._log(seat, {"type": "swap", "slot": slot})
        self._to_discard(old)
        self._used(seat)

    def _do_refuse(self, seat: int, action: dict) -> None:
        slot = _int(action, "slot")
        card = self._own_down(seat, slot)
        self._log(seat, {"type": "refuse", "slot": slot})
        self._to_discard(self._held())
        self.up[card] = True
        self.down_slots[seat] = self.face_down(seat)
        self.knowledge.show(card)
        self.knowledge.touch(seat)
        self._used(seat)

    def _do_spy(self, seat: int, action: dict) -> None:
        self._need_action_card("spy")
        player, slot = _int(action, "player"), _int(action, "slot")
        card = self._their_down(seat, player, slot, "slot")
        self._log(seat, {"type": "spy", "player": player, "slot": slot})
        self.knowledge.learn(seat, card)
        self.knowledge.touch(player)
        self._to_discard(self._held())
        self._used(seat)

    def _do_exchange(self, seat: int, action: dict) -> None:
        self._need_action_card("exchange")
        slot, player, their = (
            _int(action, "slot"),
            _int(action, "player"),
            _int(action, "their_slot"),
        )
        self._own_down(seat, slot)
        if player == seat:
            raise IllegalAction(f"exchange is with another seat: player {player} is you")
        self._their_down(seat, player, their, "their_slot")
        self._log(seat, {"type": "exchange", "slot": slot, "player": player, "their_slot": their})
        mine, others = self.rows[seat], self.rows[player]
        mine[slot], others[their] = others[their], mine[slot]
        self.knowledge.touch(seat)
        self.knowledge.touch(player)
        self._to_discard(self._held())
        self._used(seat)

    def _do_play_twice(self, seat: int, action: dict) -> None:
        self._need_action_card("play_twice")
        self._log(seat, {"type": "play_twice"})
        self.extra += 2
        self._to_discard(self._held())
        self._used(seat)

    def _do_get_rid(self, seat: int, action: dict) -> None:
        slots = self._slot_list(seat, action)
        if len(slots) < 2:
            raise IllegalAction(
                f"get_rid names two or more distinct face-down slots in reveal "
                f"order, got {len(slots)}"
            )
        self._log(seat, {"type": "get_rid", "slots": list(slots)})
        row, values = self.rows[seat], self.values
        listed = [row[i] for i in slots]
        first = values[listed[0]]
        same = True
        for card in listed:  # revealed one by one, up to the first that differs (1.8)
            self.knowledge.show(card)
            if values[card] != first:
                same = False
                break
        if same and len(listed) >= (2 if first in ACTION_VALUES else 3):
            for card in listed:
                self._to_discard(card)
            gone = set(slots[1:])
            row[slots[0]] = self._held()
            self.rows[seat] = [c for i, c in enumerate(row) if i not in gone]
        else:  # a mistake: all stay, face down; the held card is a penalty card at the end
            row.append(self._held())
        self.down_slots[seat] = self.face_down(seat)
        self.knowledge.touch(seat)
        self._used(seat)

    def _do_call(self, seat: int, action: dict) -> None:
        self._log(seat, {"type": "call"})
        self.caller = seat
        if not self._trigger(seat, "call"):
            self._end_turn()

    def _do_pass(self, seat: int, action: dict) -> None:
        self._log(seat, {"type": "pass"})
        self._end_turn()

    # ----------------------------------------------------------------- the flow of a round
    def _log(self, seat: int, action: dict) -> None:
        self.events.append({"type": "action", "seat": seat, "action": action})

    def _to_discard(self, card: int) -> None:
        self.discard.append(card)
        self.discard_values.append(self.values[card])
        self.knowledge.show(card)

    def _used(self, seat: int) -> None:
        """After the use decision: the all-face-up trigger, then the end decision or the turn's end."""
        self.held = None
        self.held_source = None
        if self.down_slots[seat]:  # a face-down card is left
            if self.trigger is None:
                self.phase = "end"
            else:
                self._end_turn()  # final turns: nobody can call (1.10)
            return
        if self.trigger is None:
            if self._trigger(seat, "all_face_up"):
                return
        else:
            self.extra = 0  # all face up during the final turns: no more extra turns (1.10)
        self._end_turn()

    def _trigger(self, seat: int, reason: str) -> bool:
        """The round-ending trigger (1.9). Returns True when the round ended at once."""
        self.trigger = reason
        self.trigger_seat = seat
        self.extra = 0
        self.final_extra = 0
        if not self.final_turns_on:
            self._end_round(reason)
            return True
        self.final_queue = deque((seat + k) % self.players for k in range(1, self.players))
        return False

    def _end_turn(self) -> None:
        self.turns += 1
        if self.trigger is None:
            if self.turns >= self.max_turns:
                self._end_round("turn_limit")
                return
            if self.extra:
                self.extra -= 1
            else:
                self.current = (self._seat() + 1) % self.players
        elif self.extra:
            if self.final_extra >= self.max_turns:  # 1.12: the final turns' own cap
                self._end_round(self.trigger)
                return
            self.final_extra += 1
            self.extra -= 1
        elif self.final_queue:
            self.current = self.final_queue.popleft()
        else:
            self._end_round(self.trigger)
            return
        if not self.draw and len(self.discard) >= 2:
            self._reshuffle()
        self._begin_turn()

    def _begin_turn(self) -> None:
        if not self.draw and not self.discard:
            self._end_round(self.trigger or "exhausted")
        else:
            self.phase = "take"

    def _reshuffle(self) -> None:
        """The discard pile becomes the draw pile; its first card is the new discard (1.11)."""
        pool: dict[int, list[int]] = {}
        for card in self.discard:
            pool.setdefault(self.values[card], []).append(card)
        deck = list(self.chance.shuffle("reshuffle", self.round, list(self.discard_values)))
        try:
            ids = [pool[v].pop() for v in deck]
        except (KeyError, IndexError):
            ids = None
        if ids is None or len(ids) != len(self.discard):
            raise ValueError(
                f"round {self.round + 1}: the reshuffled deck {deck} is not the discard "
                f"pile {self.discard_values}"
            )
        self.events.append({"type": "reshuffle", "deck": deck})
        self.discard = [ids[0]]
        self.discard_values = [deck[0]]
        self.draw = ids[:0:-1]  # top (ids[1]) at the end
        self.knowledge.forget(self.draw)

    def _start_round(self) -> None:
        deck = list(self.chance.shuffle("deal", self.round, list(cards.VALUES)))
        if not cards.is_deck(deck):
            raise ValueError(f"round {self.round + 1}: the dealt deck is not the 62 cards: {deck}")
        self.events.append({"type": "deal", "round": self.round, "deck": list(deck)})
        n, t = self.players, self.table_cards
        self.values = deck
        self.knowledge = Knowledge(n, deck)
        self.rows = [list(range(s * t, (s + 1) * t)) for s in range(n)]
        self.up = [False] * len(deck)
        #: per seat, its face-down slots; replaced (never changed) when they change.
        self.down_slots = [list(range(t)) for _ in range(n)]
        first = n * t
        self.discard = [first]
        self.discard_values = [deck[first]]
        self.knowledge.show(first)
        self.draw = list(range(len(deck) - 1, first, -1))  # top (first + 1) at the end
        self.held = None
        self.held_source = None
        self.turns = 0
        self.extra = 0
        self.caller = None
        self.trigger = None
        self.trigger_seat = None
        self.final_extra = 0
        self.final_queue = deque()
        self.phase = "peek"
        self.current = 0
        self.round_base = [round_base(self, seat) for seat in range(n)]

    def _end_round(self, reason: str) -> None:
        raw = [sum(self.values[c] for c in row) for row in self.rows]
        scores, doubled = rules.score_round(raw, self.caller, self.options)
        self.events.append(
            {
                "type": "round_end",
                "round": self.round,
                "reason": reason,
                "caller": self.caller,
                "scores": list(scores),
            }
        )
        self.history.append(
            {
                "raw": raw,
                "scores": scores,
                "caller": self.caller,
                "doubled": doubled,
                "reason": reason,
                "trigger_seat": self.trigger_seat,
            }
        )
        self.round_scores.append(scores)
        for seat in rules.round_winners(scores):
            self.round_wins[seat] += 1
        self.totals = [t + s for t, s in zip(self.totals, scores)]
        start = rules.next_starter(scores, self.totals, self.starting_seat, self.options)
        self.round += 1
        if self.round >= self.options["rounds"]:
            self.phase = None
            self.current = None
            self.held = None
            return
        self.starting_seat = start
        self._start_round()


HANDLERS = {kind: getattr(ArschmallowsState, "_do_" + kind) for kind in SHAPES}
