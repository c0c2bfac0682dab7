"""Take4 observations as fixed-size vectors and picks as action numbers: the one encoder the
learning environments (``mallows.interop``) and a trained bot (``bots/template_policy``) share.

Owns ``encode(observation) -> numpy.float32[SIZE]``, ``action_mask(observation)`` and the
action numbering (``ACTIONS``: action ``k`` picks position ``k + 1``). Works on the protocol-1
observation dict alone (bots/README.md), so a bot in its sandbox encodes exactly what the
environment encoded during training. Needs numpy and nothing else of the platform.

The vector (``SIZE`` = 157 floats, every value in [0, 1]; seats are counted from the viewer:
relative seat 0 is the viewer, 1 the next seat, and so on, padded to four seats):

====================  =====  ===============================================================
slice                 size   meaning
====================  =====  ===============================================================
``POSITIONS_AT``      64     positions 1..4, each a one-hot over the 16 characters
                             (``CHARACTERS`` order); all zero for an empty position
``COLLECTIONS_AT``    64     relative seats 0..3, each the count of every character it holds
                             divided by 4 (the copies in the deck)
``SEATS_AT``          4      1 for each relative seat that plays
``PROGRESS_AT``       4      relative seats 0..3: distinct characters of its best squad / 4
``DECK_AT``           1      cards left in the deck / 64
``CHOICE_AT``         20     positions 1..4, five facts each about taking its card: filled;
                             the viewer already holds that character; distinct characters
                             of its squad the viewer holds / 4; the most any other seat holds
                             of that squad / 4; taking it completes a squad for the viewer
====================  =====  ===============================================================

The last block repeats, per position, what the rest says, in the form a linear policy can use
(a pick's worth depends on the card *and* the collection).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from mallows.games.take4.cards import CHARACTERS, DECK, POSITIONS, SQUADS

__all__ = [
    "ACTIONS",
    "CHOICE_AT",
    "CHOICE_FEATURES",
    "COLLECTIONS_AT",
    "DECK_AT",
    "MAX_SEATS",
    "POSITIONS_AT",
    "PROGRESS_AT",
    "SEATS_AT",
    "SIZE",
    "action_mask",
    "action_of",
    "encode",
    "number_of",
]

MAX_SEATS = 4
ACTIONS = len(POSITIONS)
_INDEX = {name: i for i, name in enumerate(CHARACTERS)}
_C = len(CHARACTERS)
POSITIONS_AT = slice(0, ACTIONS * _C)
COLLECTIONS_AT = slice(POSITIONS_AT.stop, POSITIONS_AT.stop + MAX_SEATS * _C)
SEATS_AT = slice(COLLECTIONS_AT.stop, COLLECTIONS_AT.stop + MAX_SEATS)
PROGRESS_AT = slice(SEATS_AT.stop, SEATS_AT.stop + MAX_SEATS)
DECK_AT = slice(PROGRESS_AT.stop, PROGRESS_AT.stop + 1)
CHOICE_FEATURES = 5
CHOICE_AT = slice(DECK_AT.stop, DECK_AT.stop + ACTIONS * CHOICE_FEATURES)
SIZE = CHOICE_AT.stop
_SQUAD_INDEX = [[_INDEX[n] for n in members] for members in SQUADS.values()]
_SQUAD_OF_INDEX = {i: k for k, members in enumerate(_SQUAD_INDEX) for i in members}


def encode(observation: Mapping) -> np.ndarray:
    """The observation as ``SIZE`` float32 values (the table in the module docstring)."""
    out = np.zeros(SIZE, dtype=np.float32)
    for k, name in enumerate(observation["positions"]):
        if name is not None:
            out[POSITIONS_AT.start + k * _C + _INDEX[name]] = 1.0
    players = int(observation["players"])
    seat = int(observation["seat"])
    collections = observation["collections"]
    for rel in range(players):
        held = np.zeros(_C, dtype=np.float32)
        for name in collections[(seat + rel) % players]:
            held[_INDEX[name]] += 1.0
        start = COLLECTIONS_AT.start + rel * _C
        out[start : start + _C] = held / 4.0
        out[SEATS_AT.start + rel] = 1.0
        out[PROGRESS_AT.start + rel] = (
            max(float(np.count_nonzero(held[idx])) for idx in _SQUAD_INDEX) / 4.0
        )
    out[DECK_AT.start] = float(observation["deck"]) / len(DECK)
    mine = out[COLLECTIONS_AT.start : COLLECTIONS_AT.start + _C] > 0
    others = out[COLLECTIONS_AT.start + _C : COLLECTIONS_AT.stop].reshape(MAX_SEATS - 1, _C) > 0
    for k, name in enumerate(observation["positions"]):
        if name is None:
            continue
        i = _INDEX[name]
        squad = _SQUAD_INDEX[_SQUAD_OF_INDEX[i]]
        have = int(np.count_nonzero(mine[squad]))
        at = CHOICE_AT.start + k * CHOICE_FEATURES
        out[at] = 1.0
        out[at + 1] = 1.0 if mine[i] else 0.0
        out[at + 2] = have / 4.0
        out[at + 3] = max(int(np.count_nonzero(row[squad])) for row in others) / 4.0
        out[at + 4] = 1.0 if have == 3 and not mine[i] else 0.0
    return out


def action_mask(observation: Mapping) -> np.ndarray:
    """``int8[ACTIONS]``: 1 where the pick is legal (all zero when the seat is not to move)."""
    mask = np.zeros(ACTIONS, dtype=np.int8)
    for action in observation["legal_actions"]:
        mask[int(action["position"]) - 1] = 1
    return mask


def action_of(number: int) -> dict:
    """Action number ``k`` as the protocol's pick of position ``k + 1``."""
    if not 0 <= int(number) < ACTIONS:
        raise ValueError(f"a take4 action number is 0..{ACTIONS - 1}, got {number!r}")
    return {"type": "pick", "position": int(number) + 1}


def number_of(action: Mapping) -> int:
    """A pick as its action number (the inverse of ``action_of``)."""
    return int(action["position"]) - 1
