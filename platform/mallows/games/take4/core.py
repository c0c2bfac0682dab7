"""Take4 on the compiled core (``mallows.core``): the same match as ``Take4State`` on the same
seed, for the hot loops (random playouts, the learning environments' steps and vectors).

Owns ``CoreTake4``: a match on the core's compact state driven by position numbers, its
record events rebuilt from the core's flat log (the very dicts ``Take4State`` records), the
``encoding.encode`` vector and action mask computed in the core from the state, and the
result's collections. ``Take4State`` stays the reference (and what the runner drives, since a
bot is handed the protocol's observation dict); ``tests/test_engine_core.py`` plays both side
by side. ``available()`` is False where no core was built or ``MALLOWS_NO_CORE`` is set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mallows import core
from mallows.games.take4 import rules
from mallows.games.take4.cards import CHARACTERS
from mallows.games.take4.encoding import ACTIONS, SIZE

REASONS = (rules.REASON_SQUAD, rules.REASON_DECK_EMPTY, rules.REASON_ROUND_LIMIT)
_DEAL, _PICKS, _RACE, _END = 1, 2, 3, 4
#: ``t4_pick``'s refusals
PICK_ERRORS = {
    -1: "seat {seat} is not to move",  # the game is over
    -2: "there is no seat {seat}",
    -3: "seat {seat} is not to move",
    -4: "position {position} cannot be picked now",
}


def available() -> bool:
    return core.available()


def events_of(log: list[int], players: int) -> list[dict]:
    """The record's events from the core's flat log (see ``engine-core/src/take4.rs``)."""
    out: list[dict] = []
    i = 0
    while i < len(log):
        tag = log[i]
        if tag == _DEAL:
            out.append({"type": "deal", "deck": [CHARACTERS[c] for c in log[i + 1 : i + 65]]})
            i += 65
        elif tag == _PICKS:
            out.append(
                {"type": "picks", "round": log[i + 1], "picks": log[i + 2 : i + 2 + players]}
            )
            i += 2 + players
        elif tag == _RACE:
            k = log[i + 2]
            out.append(
                {
                    "type": "race",
                    "position": log[i + 1],
                    "contenders": log[i + 3 : i + 3 + k],
                    "winner": log[i + 3 + k],
                }
            )
            i += 4 + k
        elif tag == _END:
            k = log[i + 2]
            out.append(
                {
                    "type": "game_end",
                    "reason": REASONS[log[i + 1]],
                    "winners": log[i + 3 : i + 3 + k],
                }
            )
            i += 3 + k
        else:
            raise ValueError(f"the core's Take4 log has an unknown entry {tag} at {i}")
    return out


def winners_of(log: list[int], players: int) -> list[int]:
    """The ``game_end`` event's winners in the core's flat log, found without building the
    other events (``events_of`` reads the same layout)."""
    i, width = 0, {_DEAL: 65, _PICKS: 2 + players}
    while i < len(log):
        tag = log[i]
        if tag == _END:
            return log[i + 3 : i + 3 + log[i + 2]]
        i += width[tag] if tag in width else 4 + log[i + 2]  # a race: its contenders
    raise ValueError("the core's Take4 log has no game_end: the match is not over")


class CoreTake4:
    """One Take4 match on the core: ``seed`` deals what ``SeededChance(seed)`` deals."""

    __slots__ = ("_lib", "_h", "players", "_rounds", "_vec", "_mask", "_vec_at", "_mask_at")

    def __init__(self, seed: int, players: int, options: Mapping[str, Any]):
        lib = core.lib()
        if lib is None:
            raise RuntimeError("no compiled core (see mallows.core): use Take4State")
        self._lib = lib
        self.players = players
        self._rounds = int(options["max_rounds"])
        self._h = lib.t4_new(int(seed), players, self._rounds)
        # the core writes into these two (their addresses taken once); callers get copies
        self._vec = np.zeros(SIZE, dtype=np.float32)
        self._mask = np.zeros(ACTIONS, dtype=np.int8)
        self._vec_at = self._vec.ctypes.data
        self._mask_at = self._mask.ctypes.data

    def __del__(self) -> None:
        handle, self._h = getattr(self, "_h", None), None
        if handle:
            self._lib.t4_free(handle)

    def restart(self, seed: int) -> None:
        """A new match on ``seed`` with the same seats and options (what a new
        ``CoreTake4(seed, ...)`` would be, its buffers kept)."""
        handle, self._h = self._h, None
        if handle:
            self._lib.t4_free(handle)
        self._h = self._lib.t4_new(int(seed), self.players, self._rounds)

    def pick(self, seat: int, position: int) -> int:
        """``seat`` picks ``position`` (1..4); ``ValueError`` saying why when it may not.
        Returns the seats still to pick, one bit each (0: the game is over)."""
        bits = self._lib.t4_pick(self._h, seat, position)
        if bits < 0:
            raise ValueError(PICK_ERRORS.get(bits, "{seat} {position}").format(**locals()))
        return bits

    def play_random(self, policy: int) -> int:
        """Play to the end inside the core, uniform picks from the core's generator seeded
        ``policy``; the decisions taken."""
        return int(self._lib.t4_play_random(self._h, policy))

    def to_move(self) -> tuple[int, ...]:
        bits = self._lib.t4_to_move(self._h)
        return tuple(s for s in range(self.players) if bits >> s & 1)

    def to_move_bits(self) -> int:
        return int(self._lib.t4_to_move(self._h))

    def is_terminal(self) -> bool:
        return self._lib.t4_reason(self._h) >= 0

    def reason(self) -> str | None:
        code = self._lib.t4_reason(self._h)
        return REASONS[code] if code >= 0 else None

    def encode(self, seat: int) -> np.ndarray:
        """``encoding.encode(observation)`` of ``seat``'s observation now (a new array)."""
        self._lib.t4_encode(self._h, seat, self._vec_at)
        return self._vec.copy()

    def observe(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(encode(seat), mask(seat))`` in one call to the core."""
        self._lib.t4_observe(self._h, seat, self._vec_at, self._mask_at)
        return self._vec.copy(), self._mask.copy()

    def mask(self, seat: int) -> np.ndarray:
        """``encoding.action_mask`` of ``seat``'s observation now (a new array)."""
        self._lib.t4_mask(self._h, seat, self._mask_at)
        return self._mask.copy()

    def table(self) -> dict:
        """``round``, ``deck`` (cards left), ``positions`` and ``collections``, as the
        observation names them."""
        v = core.read_ints(self._lib.t4_state, self._h)
        collections, i = [], 6
        for _ in range(self.players):
            k = v[i]
            collections.append([CHARACTERS[c] for c in v[i + 1 : i + 1 + k]])
            i += 1 + k
        return {
            "round": v[0],
            "deck": v[1],
            "positions": [CHARACTERS[c] if c >= 0 else None for c in v[2:6]],
            "collections": collections,
        }

    def events(self) -> list[dict]:
        return events_of(core.read_ints(self._lib.t4_log, self._h), self.players)

    def ranks(self, forfeits: list[str | None], by_progress: bool) -> list[int]:
        winners = winners_of(core.read_ints(self._lib.t4_log, self._h), self.players)
        return rules.ranks(winners, self.table()["collections"], forfeits, by_progress)


def playouts(seed: int, matches: int, players: int, max_rounds: int) -> int:
    """Random playouts of ``matches`` matches (seeds ``seed``, ``seed + 1``, ...) inside the
    core, picks from the core's own generator; the decisions taken."""
    lib = core.lib()
    if lib is None:
        raise RuntimeError("no compiled core (see mallows.core)")
    return int(lib.t4_playouts(seed, matches, players, max_rounds))
