"""Take4's observation vector (``mallows.games.take4.encoding.encode``, vectorised with numpy)
equals, value for value, the plain loop that defined it (kept here as the oracle), on every
observation of many random matches: 2 to 4 seats, short decks (empty positions), long games."""

from __future__ import annotations

import random
from collections.abc import Mapping

import numpy as np

from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.games.take4 import encoding
from mallows.games.take4.encoding import (
    CHOICE_AT,
    CHOICE_FEATURES,
    COLLECTIONS_AT,
    DECK_AT,
    MAX_SEATS,
    POSITIONS_AT,
    PROGRESS_AT,
    SEATS_AT,
    SIZE,
)
from mallows.games.take4.cards import CHARACTERS, DECK, SQUADS

_INDEX = {name: i for i, name in enumerate(CHARACTERS)}
_C = len(CHARACTERS)
_SQUAD_INDEX = [[_INDEX[n] for n in members] for members in SQUADS.values()]
_SQUAD_OF_INDEX = {i: k for k, members in enumerate(_SQUAD_INDEX) for i in members}


def oracle(observation: Mapping) -> np.ndarray:
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


def observations(seeds: int):
    game = get_game("take4")
    for seed in range(seeds):
        rng = random.Random(seed)
        players = 2 + seed % 3
        state = game.new_state(game.make_options(None, {}), players, SeededChance(seed))
        while not state.is_terminal():
            for seat in range(players):
                yield state.observation(seat)
            for seat in state.to_move():
                state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_the_vectorised_encoding_is_the_loop_it_replaced():
    seen = empty_positions = 0
    for observation in observations(80):
        fast, slow = encoding.encode(observation), oracle(observation)
        assert fast.dtype == np.float32 and fast.shape == (SIZE,)
        assert fast.tobytes() == slow.tobytes(), observation
        seen += 1
        empty_positions += None in observation["positions"]
    assert seen > 2500 and empty_positions > 0
