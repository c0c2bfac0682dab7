"""One match of a registered game seen as vectors and action numbers: what the PettingZoo
environments drive, through the game's codec (its face ``mallows.games.faces.Interop``).

Owns ``Table``: a game's engine state on seeded chance, the seat whose decision it is, each
seat's observation as its encoder's vector, the legal action numbers as a mask, and taking one
action number (Arschmallows' multi-slot actions take several, see
``mallows.games.arschmallows.encoding``). A game without a codec has no table
(``MissingFace``). Nothing is re-implemented: legality, chance and
the result are the engine's own, and a seat is shown only its own observation.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mallows.errors import GameConfigError
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.games.faces import Codec, interop_of
from mallows.interop.rewards import place_reward


class Table:
    """A match of ``game`` for ``players`` seats (rule set ``rules``, option ``options``)."""

    def __init__(
        self,
        game: str,
        players: int,
        rules: str | None = None,
        options: Mapping[str, Any] | None = None,
        slots: int = 24,
    ):
        self.game = game
        self.module = get_game(game)
        face = interop_of(game)  # MissingFace: no environment for a game without a codec
        if not self.module.MIN_PLAYERS <= players <= self.module.MAX_PLAYERS:
            raise GameConfigError(
                f"{game} is for {self.module.MIN_PLAYERS} to "
                f"{self.module.MAX_PLAYERS} players, got {players}"
            )
        self.players = players
        self.options = self.module.make_options(rules, dict(options or {}))
        self.codec: Codec = face.codec(players, slots)
        self.state: Any = None
        self._obs: dict[int, dict] = {}

    def new(self, seed: int) -> None:
        """Start a new match on seed ``seed`` (the same seed deals the same cards as
        ``mallows play --seed``)."""
        self.state = self.module.new_state(self.options, self.players, SeededChance(int(seed)))
        self.codec.reset()
        self._obs = {}

    def observation(self, seat: int) -> dict:
        """The protocol observation of ``seat`` now (cached until the next action)."""
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = self.state.observation(seat)
        return obs

    def current(self) -> int | None:
        """The seat whose decision it is (Take4: the first seat still to pick this round)."""
        if self.state.is_terminal():
            return None
        return self.state.to_move()[0]

    def terminal(self) -> bool:
        return bool(self.state.is_terminal())

    def vector(self, seat: int) -> np.ndarray:
        return self.codec.vector(self.observation(seat), seat)

    def mask(self, seat: int) -> np.ndarray:
        if seat not in self.state.to_move():
            return np.zeros(self.codec.actions, dtype=np.int8)
        return self.codec.mask(self.observation(seat), seat)

    def act(self, seat: int, number: int) -> dict | None:
        """Take action number ``number`` for ``seat``: the protocol action applied, or None
        (a step of a multi-slot decision). An illegal number is a ``ValueError``."""
        if seat not in self.state.to_move():
            raise ValueError(f"seat {seat} is not to move")
        action = self.codec.take(self.observation(seat), seat, int(number))
        if action is not None:
            self.state.apply(seat, action)
            self._obs = {}
        return action

    def rewards(self) -> list[float]:
        """Every seat's reward: its place's (``rewards.place_reward``) once the match is over,
        else 0."""
        if not self.terminal():
            return [0.0] * self.players
        ranks = self.state.result([None] * self.players)["ranks"]
        return [place_reward(ranks, s) for s in range(self.players)]
