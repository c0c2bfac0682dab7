"""Arschmallows observations as fixed-size vectors and its actions as small action numbers:
the one encoder the learning environments (``mallows.interop``) and a trained bot share.

Owns ``Encoding(slots)``: the layout of the vector, the action numbering, and ``Steps``, which
decomposes the actions that name several slots into one decision per slot, so the action space
stays small (``6 + 10 * slots`` numbers; 246 with the default 24 slots):

- ``peek``: choose a slot (``SLOT i``), then the other slot;
- ``get_rid``: choose the slots one by one in reveal order (``SLOT i``), then ``REVEAL``
  (offered once two are chosen);
- ``exchange``: choose your slot (``EXCHANGE i``), then the other seat's card (``TARGET``).

Every other action is one number. Seats are counted from the viewer (relative seat 0 is the
viewer, 1 the next seat clockwise, ...), padded to six. A row can grow past its dealt size (a
failed ``get_rid`` adds a penalty card); slots from ``slots`` on are neither encoded nor
offered (24 is far more than a round reaches in practice).

Action numbers (``A = 6 + 10 * slots``):

==================  ============  ===========================================================
number              count         action
==================  ============  ===========================================================
0 .. 5              6             draw, take_discard, play_twice, call, pass, REVEAL
``SLOT + i``        slots         choose own slot i (a peek's or a get_rid's next slot)
``SWAP + i``        slots         swap the held card into slot i
``REFUSE + i``      slots         discard the held card and turn slot i face up
``EXCHANGE + i``    slots         exchange: first step, own slot i
``TARGET + r*S+j``  6 * slots     relative seat r's slot j: spy on it, or exchange's 2nd step
==================  ============  ===========================================================

The vector (float32, values in [-1, 1]; ``Encoding.size`` long; one-hots over ``VALUES``):

- per relative seat (6) and slot (``slots``): present, face up, known, value one-hot (14);
- discard pile: top card one-hot (14), empty, size / 62;
- held card (only when it is the viewer's): one-hot (14), held, from the draw pile, from the
  discard pile;
- phase one-hot (peek, take, use, end); seat to move, relative, one-hot (6); caller,
  relative, one-hot (6, all zero: nobody called); final turns; extra turns / 2;
  draw pile / 62; scores by relative seat / 100 (clipped to [-1, 1]); seats that play (6);
  round / rounds;
- the step in progress: kind one-hot (peek, get_rid, exchange), slots chosen so far (mask),
  first slot chosen (one-hot).

Works on the protocol-1 observation dict alone; needs numpy and nothing else of the platform.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["DEFAULT_SLOTS", "MAX_SEATS", "VALUES", "Encoding", "Steps"]

VALUES: tuple[int, ...] = (-4, -2, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
_VALUE_INDEX = {v: i for i, v in enumerate(VALUES)}
_V = len(VALUES)
MAX_SEATS = 6
DEFAULT_SLOTS = 24
DECK = 62
PHASES = ("peek", "take", "use", "end")
PENDING = ("peek", "get_rid", "exchange")
FIXED = ("draw", "take_discard", "play_twice", "call", "pass")
REVEAL = 5
_PER_SLOT = 3 + _V


class Encoding:
    """The vector layout and action numbering for rows of up to ``slots`` cards."""

    def __init__(self, slots: int = DEFAULT_SLOTS):
        if not 2 <= slots <= 64:
            raise ValueError(f"slots must be 2..64, got {slots!r}")
        self.slots = s = slots
        self.SLOT = 6
        self.SWAP = self.SLOT + s
        self.REFUSE = self.SWAP + s
        self.EXCHANGE = self.REFUSE + s
        self.TARGET = self.EXCHANGE + s
        self.actions = self.TARGET + MAX_SEATS * s
        self._rows = MAX_SEATS * s * _PER_SLOT
        self.size = (
            self._rows
            + (_V + 2)
            + (_V + 3)
            + len(PHASES)
            + 2 * MAX_SEATS
            + 3
            + 2 * MAX_SEATS
            + 1
            + len(PENDING)
            + 2 * s
        )

    # -- the vector ----------------------------------------------------------------------------

    def encode(self, observation: Mapping, steps: Steps | None = None) -> np.ndarray:
        """``observation`` (and the step in progress, if any) as ``size`` float32 values."""
        s = self.slots
        out = np.zeros(self.size, dtype=np.float32)
        players, seat = int(observation["players"]), int(observation["seat"])
        rows = observation["rows"]
        for rel in range(players):
            base = rel * s * _PER_SLOT
            for j, c in enumerate(rows[(seat + rel) % players][:s]):
                at = base + j * _PER_SLOT
                out[at] = 1.0
                out[at + 1] = 1.0 if c["face_up"] else 0.0
                if c["value"] is not None:
                    out[at + 2] = 1.0
                    out[at + 3 + _VALUE_INDEX[c["value"]]] = 1.0
        at = self._rows
        discard = observation["discard"]
        if discard:
            out[at + _VALUE_INDEX[discard[-1]]] = 1.0
        else:
            out[at + _V] = 1.0
        out[at + _V + 1] = len(discard) / DECK
        at += _V + 2
        held = observation.get("held")
        if held is not None:
            out[at + _VALUE_INDEX[held["value"]]] = 1.0
            out[at + _V] = 1.0
            out[at + _V + 1 + (0 if held["source"] == "draw" else 1)] = 1.0
        at += _V + 3
        phase = observation.get("phase")
        if phase in PHASES:
            out[at + PHASES.index(phase)] = 1.0
        at += len(PHASES)
        current = observation.get("current_seat")
        if isinstance(current, int):
            out[at + (current - seat) % players] = 1.0
        at += MAX_SEATS
        caller = observation.get("caller")
        if isinstance(caller, int):
            out[at + (caller - seat) % players] = 1.0
        at += MAX_SEATS
        out[at] = 1.0 if observation.get("final_turns") else 0.0
        out[at + 1] = min(float(observation.get("extra_turns") or 0), 2.0) / 2.0
        out[at + 2] = float(observation["draw_pile"]) / DECK
        at += 3
        scores = observation["scores"]
        for rel in range(players):
            out[at + rel] = max(-1.0, min(1.0, scores[(seat + rel) % players] / 100.0))
            out[at + MAX_SEATS + rel] = 1.0
        at += 2 * MAX_SEATS
        rounds = int(observation.get("options", {}).get("rounds", 1)) or 1
        out[at] = min(1.0, int(observation["round"]) / rounds)
        at += 1
        if steps is not None and steps.kind is not None:
            out[at + PENDING.index(steps.kind)] = 1.0
            for j in steps.chosen:
                if j < s:
                    out[at + len(PENDING) + j] = 1.0
            if steps.chosen and steps.chosen[0] < s:
                out[at + len(PENDING) + s + steps.chosen[0]] = 1.0
        return out

    def target(self, rel: int, slot: int) -> int:
        return self.TARGET + rel * self.slots + slot

    def describe(self, number: int) -> str:
        """An action number in words (for people reading a policy's choices)."""
        s = self.slots
        if 0 <= number < 5:
            return FIXED[number]
        if number == REVEAL:
            return "reveal the chosen slots (get_rid)"
        for start, word in (
            (self.SLOT, "choose slot"),
            (self.SWAP, "swap into slot"),
            (self.REFUSE, "refuse, turning up slot"),
            (self.EXCHANGE, "exchange from slot"),
        ):
            if start <= number < start + s:
                return f"{word} {number - start}"
        if self.TARGET <= number < self.actions:
            rel, j = divmod(number - self.TARGET, s)
            return f"relative seat {rel}'s slot {j}"
        raise ValueError(f"no action number {number} (0..{self.actions - 1})")


class Steps:
    """One seat's decision in small steps (see the module docstring): ``mask(observation)``
    says which numbers are legal now; ``step(observation, number)`` takes one and returns the
    protocol action once it is complete (``None`` while a slot choice is still open).
    ``observation`` stays the same for every step of one decision."""

    def __init__(self, encoding: Encoding):
        self.encoding = encoding
        self.kind: str | None = None
        self.chosen: list[int] = []

    def reset(self) -> None:
        self.kind, self.chosen = None, []

    def _legal(self, observation: Mapping) -> dict[int, object]:
        """Number -> what taking it means now: a complete action (dict), or a step."""
        e, s = self.encoding, self.encoding.slots
        seat, players = int(observation["seat"]), int(observation["players"])
        out: dict[int, object] = {}
        legal: Sequence[Mapping] = observation["legal_actions"]
        if self.kind == "peek":
            first = self.chosen[0]
            for a in legal:
                i, j = a["slots"]
                other = j if i == first else i if j == first else None
                if other is not None and other < s:
                    out[e.SLOT + other] = {"type": "peek", "slots": [first, other]}
            return out
        if self.kind == "get_rid":
            rid = next(a for a in legal if a["type"] == "get_rid")
            for i in rid["choose_from"]:
                if i not in self.chosen and i < s:
                    out[e.SLOT + i] = "slot"
            if len(self.chosen) >= 2:
                out[REVEAL] = {"type": "get_rid", "slots": list(self.chosen)}
            return out
        if self.kind == "exchange":
            first = self.chosen[0]
            for a in legal:
                if a["type"] == "exchange" and a["slot"] == first and a["their_slot"] < s:
                    out[e.target((a["player"] - seat) % players, a["their_slot"])] = dict(a)
            return out
        for a in legal:
            kind = a["type"]
            if kind in FIXED:
                out[FIXED.index(kind)] = dict(a)
            elif kind == "peek":
                for i in a["slots"]:
                    if i < s:
                        out[e.SLOT + i] = "slot"
            elif kind == "swap" and a["slot"] < s:
                out[e.SWAP + a["slot"]] = dict(a)
            elif kind == "refuse" and a["slot"] < s:
                out[e.REFUSE + a["slot"]] = dict(a)
            elif kind == "spy" and a["slot"] < s:
                out[e.target((a["player"] - seat) % players, a["slot"])] = dict(a)
            elif kind == "exchange" and a["slot"] < s:
                out[e.EXCHANGE + a["slot"]] = "slot"
            elif kind == "get_rid":
                for i in a["choose_from"]:
                    if i < s:
                        out[e.SLOT + i] = "slot"
        return out

    def mask(self, observation: Mapping) -> np.ndarray:
        """``int8[actions]``: 1 for each number legal at this step."""
        mask = np.zeros(self.encoding.actions, dtype=np.int8)
        for number in self._legal(observation):
            mask[number] = 1
        return mask

    def step(self, observation: Mapping, number: int) -> dict | None:
        """Take action number ``number``: the complete protocol action, or ``None`` when the
        decision goes on (a slot was chosen). An illegal number is a ``ValueError``."""
        e = self.encoding
        legal = self._legal(observation)
        number = int(number)
        if number not in legal:
            raise ValueError(
                f"action number {number} ({e.describe(number)}) is not legal "
                f"now: the legal ones are {sorted(legal)}"
            )
        meaning = legal[number]
        if isinstance(meaning, dict):
            self.reset()
            return meaning
        if self.kind is None:  # the first step of a peek, a get_rid or an exchange
            if number >= e.EXCHANGE:
                self.kind, self.chosen = "exchange", [number - e.EXCHANGE]
            else:
                phase = observation.get("phase")
                self.kind, self.chosen = (
                    ("peek" if phase == "peek" else "get_rid"),
                    [number - e.SLOT],
                )
            return None
        self.chosen.append(number - e.SLOT)  # get_rid's next slot
        return None
