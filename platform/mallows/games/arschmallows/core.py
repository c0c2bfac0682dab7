"""Arschmallows on the compiled core (``mallows.core``): the same match as
``ArschmallowsState`` on the same seed and options, for the hot loops (random playouts).

Owns ``CoreArschmallows``: a match on the core's compact state driven by the protocol's action
dicts (or the core's action numbers), its legal actions as the very dicts ``legal_actions``
lists, its record events rebuilt from the core's flat log, and the totals. What each seat
knows (and so the observation dict a bot is handed) is the Python engine's alone:
``ArschmallowsState`` stays the reference and what the runner drives;
``tests/test_engine_core.py`` plays both side by side.
"""

from __future__ import annotations

import ctypes
from collections.abc import Mapping
from typing import Any

from mallows import core

#: action kinds in the core's numbering (``engine-core/src/arschmallows.rs``)
KINDS = (
    "peek",
    "draw",
    "take_discard",
    "swap",
    "refuse",
    "spy",
    "exchange",
    "play_twice",
    "get_rid",
    "call",
    "pass",
)
KIND = {name: k for k, name in enumerate(KINDS)}
#: each kind's fields after ``type``, in the record's key order (get_rid's are its slots)
FIELDS = {
    "peek": ("slots",),
    "swap": ("slot",),
    "refuse": ("slot",),
    "spy": ("player", "slot"),
    "exchange": ("slot", "player", "their_slot"),
    "get_rid": ("slots",),
}
PHASES = ("peek", "take", "use", "end")
REASONS = ("call", "all_face_up", "turn_limit", "exhausted")
_DEAL, _ACTION, _RESHUFFLE, _ROUND_END = 1, 2, 3, 4
LEGAL_CAP = 4 * 4096  # numbers: exchanges of 10 slots with 5 seats of 10 are 500 actions


def available() -> bool:
    return core.available()


def option_array(options: Mapping[str, Any]) -> Any:
    """The options as the core reads them (``ars_new``)."""
    return (ctypes.c_int64 * 7)(
        int(options["rounds"]),
        int(options["table_cards"]),
        int(bool(options["final_turns"])),
        int(options["next_starter"] == "highest_round"),
        int(bool(options["caller_strictly_lowest"])),
        int(bool(options["double_negative"])),
        int(options["max_turns_per_round"]),
    )


def action_dict(kind: int, fields: list[int]) -> dict:
    name = KINDS[kind]
    keys = FIELDS.get(name, ())
    if name in ("peek", "get_rid"):
        return {"type": name, "slots": list(fields)}
    return {"type": name, **dict(zip(keys, fields))}


def events_of(log: list[int], players: int) -> list[dict]:
    """The record's events from the core's flat log (see ``engine-core/src/arschmallows.rs``)."""
    out: list[dict] = []
    i = 0
    while i < len(log):
        tag = log[i]
        if tag == _DEAL:
            out.append({"type": "deal", "round": log[i + 1], "deck": log[i + 2 : i + 64]})
            i += 64
        elif tag == _ACTION:
            k = log[i + 3]
            action = action_dict(log[i + 2], log[i + 4 : i + 4 + k])
            out.append({"type": "action", "seat": log[i + 1], "action": action})
            i += 4 + k
        elif tag == _RESHUFFLE:
            k = log[i + 1]
            out.append({"type": "reshuffle", "deck": log[i + 2 : i + 2 + k]})
            i += 2 + k
        elif tag == _ROUND_END:
            caller = log[i + 3]
            out.append(
                {
                    "type": "round_end",
                    "round": log[i + 1],
                    "reason": REASONS[log[i + 2]],
                    "caller": caller if caller >= 0 else None,
                    "scores": log[i + 4 : i + 4 + players],
                }
            )
            i += 4 + players
        else:
            raise ValueError(f"the core's Arschmallows log has an unknown entry {tag} at {i}")
    return out


class CoreArschmallows:
    """One Arschmallows match on the core: ``seed`` deals what ``SeededChance(seed)`` deals."""

    __slots__ = ("_lib", "_h", "players", "_legal", "_slots")

    def __init__(self, seed: int, players: int, options: Mapping[str, Any]):
        lib = core.lib()
        if lib is None:
            raise RuntimeError("no compiled core (see mallows.core): use ArschmallowsState")
        self._lib = lib
        self.players = players
        self._h = lib.ars_new(int(seed), players, option_array(options))
        self._legal = (ctypes.c_int32 * LEGAL_CAP)()
        self._slots = (ctypes.c_int32 * 16)()

    def __del__(self) -> None:
        handle, self._h = getattr(self, "_h", None), None
        if handle:
            self._lib.ars_free(handle)

    def turn(self) -> tuple[str, int] | None:
        """(phase, seat to move), or None once the match is over."""
        t = self._lib.ars_turn(self._h)
        return None if t < 0 else (PHASES[t >> 4], t & 15)

    def play_random(self, policy: int) -> int:
        """Play to the end inside the core (the random policy's shape on the core's generator
        seeded ``policy``); the decisions taken."""
        return int(self._lib.ars_play_random(self._h, policy))

    def turn_code(self) -> int:
        """``turn()`` as one number: the phase's index in ``PHASES`` times 16 plus the seat, or
        -1 once the match is over (no tuple built: the per-step loop's fast path)."""
        return int(self._lib.ars_turn(self._h))

    def is_terminal(self) -> bool:
        return self._lib.ars_turn(self._h) < 0

    def legal_numbers(self) -> list[int]:
        """The legal actions, four numbers each: kind, then up to three fields (-1: none)."""
        n = self._lib.ars_legal(self._h, self._legal, LEGAL_CAP)
        if n > LEGAL_CAP:  # more than any table of 6 seats of 10 cards has: read it whole
            return core.read_ints(self._lib.ars_legal, self._h)
        return self._legal[:n]

    def legal_actions(self) -> list[dict]:
        """What ``ArschmallowsState.legal_actions`` lists for the seat to move, in its order."""
        v = self.legal_numbers()
        out = []
        for i in range(0, len(v), 4):
            kind, fields = v[i], [x for x in v[i + 1 : i + 4] if x >= 0]
            if KINDS[kind] == "get_rid":
                turn = self.turn()
                assert turn is not None
                out.append({"type": "get_rid", "choose_from": self.face_down(turn[1])})
            elif KINDS[kind] == "peek":
                out.append({"type": "peek", "slots": fields})
            else:
                out.append(action_dict(kind, fields))
        return out

    def apply_numbers(
        self, kind: int, a: int = -1, b: int = -1, c: int = -1, slots: tuple[int, ...] = ()
    ) -> None:
        arr = self._slots
        if len(slots) > len(arr):
            arr = (ctypes.c_int32 * len(slots))()
        for i, slot in enumerate(slots):
            arr[i] = slot
        code = self._lib.ars_apply(self._h, kind, a, b, c, arr, len(slots))
        if code:
            raise ValueError(f"{KINDS[kind]} is not legal now (core code {code})")

    def apply(self, action: Mapping) -> None:
        """Apply a protocol action dict of the seat to move (``ValueError`` when illegal)."""
        name = action["type"]
        if name == "get_rid":
            self.apply_numbers(KIND[name], slots=tuple(int(s) for s in action["slots"]))
            return
        if name == "peek":
            i, j = (int(s) for s in action["slots"])
            self.apply_numbers(KIND[name], i, j)
            return
        fields = [int(action[k]) for k in FIELDS.get(name, ())]
        a, b, c = (fields + [-1, -1, -1])[:3]
        self.apply_numbers(KIND[name], a, b, c)

    def table(self) -> dict:
        """``rows`` (per seat, (value, face up) per slot), ``held`` (a value or None),
        ``discard`` and ``draw`` (the piles' sizes)."""
        v = core.read_ints(self._lib.ars_table, self._h)
        rows, i = [], 0
        for _ in range(self.players):
            k = v[i]
            rows.append([(v[i + 1 + 2 * j], bool(v[i + 2 + 2 * j])) for j in range(k)])
            i += 1 + 2 * k
        held = v[i] if v[i] != -99 else None
        return {"rows": rows, "held": held, "discard": v[i + 1], "draw": v[i + 2]}

    def face_down(self, seat: int) -> list[int]:
        return [j for j, (_, up) in enumerate(self.table()["rows"][seat]) if not up]

    def events(self) -> list[dict]:
        return events_of(core.read_ints(self._lib.ars_log, self._h), self.players)

    def totals(self) -> tuple[list[int], list[int]]:
        """(totals, round wins) per seat."""
        out = (ctypes.c_int64 * (2 * self.players))()
        self._lib.ars_totals(self._h, out)
        return out[: self.players], out[self.players :]


def playouts(seed: int, matches: int, players: int, options: Mapping[str, Any]) -> int:
    """Random playouts of ``matches`` matches (seeds ``seed``, ``seed + 1``, ...) inside the
    core, the random policy's shape on the core's own generator; the decisions taken."""
    lib = core.lib()
    if lib is None:
        raise RuntimeError("no compiled core (see mallows.core)")
    return int(lib.ars_playouts(seed, matches, players, option_array(options)))
