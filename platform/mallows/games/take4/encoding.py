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
assert all(
    [_INDEX[n] for n in members] == list(range(4 * q, 4 * q + 4))
    for q, members in enumerate(SQUADS.values())
)


def encode(observation: Mapping) -> np.ndarray:
    """The observation as ``SIZE`` float32 values (the table in the module docstring).

    Vectorised: one count matrix (relative seat x character) gives the collections, the
    progress and every per-position fact at once. The compiled core computes the same values
    from its state (``mallows.games.take4.core``) and the tests hold the two equal."""
    out = np.zeros(SIZE, dtype=np.float32)
    idx = np.array([_INDEX[n] if n is not None else -1 for n in observation["positions"]])
    filled = np.flatnonzero(idx >= 0)
    chars = idx[filled]
    out[filled * _C + chars] = 1.0
    players = int(observation["players"])
    seat = int(observation["seat"])
    collections = observation["collections"]
    counts = np.zeros((MAX_SEATS, _C), dtype=np.float32)
    for rel in range(players):
        held = collections[(seat + rel) % players]
        if held:
            counts[rel] = np.bincount([_INDEX[n] for n in held], minlength=_C)
    out[COLLECTIONS_AT] = counts.ravel() / 4.0
    out[SEATS_AT.start : SEATS_AT.start + players] = 1.0
    has = counts > 0
    # CHARACTERS lists the squads' members squad by squad, so squad q is columns 4q..4q+3
    distinct = has.reshape(MAX_SEATS, len(SQUADS), -1).sum(axis=2)
    out[PROGRESS_AT] = distinct.max(axis=1) / 4.0
    out[DECK_AT.start] = float(observation["deck"]) / len(DECK)
    squads = chars // (_C // len(SQUADS))
    mine = has[0, chars]
    have = distinct[0, squads]
    at = CHOICE_AT.start + filled * CHOICE_FEATURES
    out[at] = 1.0
    out[at + 1] = mine
    out[at + 2] = have / 4.0
    out[at + 3] = distinct[1:, squads].max(axis=0) / 4.0
    out[at + 4] = (have == 3) & ~mine
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
