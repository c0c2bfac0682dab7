"""One match of a registered game seen as vectors and action numbers: what the PettingZoo
environments drive, through the game's codec (its face ``mallows.games.faces.Interop``).

Owns ``Table``: a game's engine state on seeded chance, the seat whose decision it is, each
seat's observation as its encoder's vector, the legal action numbers as a mask, and taking one
action number (Arschmallows' multi-slot actions take several, see
``mallows.games.arschmallows.encoding``). A game without a codec has no table
(``MissingFace``). Nothing is re-implemented: legality, chance and
the result are the engine's own, and a seat is shown only its own observation.

Take4 runs on the compiled core where there is one (``mallows.games.take4.core``: the same
match, its vector and mask computed from the core's compact state, no observation dict built
per step); ``state`` is then the Python engine's state of the same match, rebuilt from the
picks when asked for (rendering, tests), and an environment steps ten to a hundred times
faster. Without the core (``MALLOWS_NO_CORE=1``) every step goes through the Python engine.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mallows.errors import GameConfigError
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.games.faces import Codec, interop_of
from mallows.games.take4 import core as take4_core
from mallows.games.take4 import encoding as take4_encoding
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
        self.face = face
        self.codec: Codec = face.codec(players, slots)
        self._state: Any = None
        self._obs: dict[int, dict] = {}
        self.seed = 0
        #: Take4 on the compiled core: the match, and every pick so far (seat, position)
        self.core: take4_core.CoreTake4 | None = None
        self._picks: list[tuple[int, int]] = []
        self._bits = 0  # on the core: the seats still to pick, one bit each
        # a game's interop face may offer its match on the compiled core (Take4 does): looked
        # up once per table, not on every reset
        fast = getattr(face, "fast_core", None)
        self._fast = fast if fast is not None and take4_core.available() else None

    @property
    def state(self) -> Any:
        """The Python engine's state of the match (on the core: rebuilt from the picks)."""
        if self._state is None and self.core is not None:
            state = self.module.new_state(self.options, self.players, SeededChance(self.seed))
            for seat, position in self._picks:
                state.apply(seat, {"type": "pick", "position": position})
            self._state = state
        return self._state

    def new(self, seed: int) -> None:
        """Start a new match on seed ``seed`` (the same seed deals the same cards as
        ``mallows play --seed``)."""
        self.seed = int(seed)
        self._obs = {}
        self.codec.reset()
        if self._fast is not None:
            if self.core is not None:  # the same table's next match: the core's buffers kept
                self.core.restart(self.seed)
            else:
                self.core = self._fast(self.seed, self.players, self.options)
        if self.core is not None:
            self._bits = self.core.to_move_bits()
            self._picks = []
            self._state = None
            return
        self.core = None
        self._state = self.module.new_state(self.options, self.players, SeededChance(self.seed))

    def observation(self, seat: int) -> dict:
        """The protocol observation of ``seat`` now (cached until the next action)."""
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = self.state.observation(seat)
        return obs

    def current(self) -> int | None:
        """The seat whose decision it is (Take4: the first seat still to pick this round)."""
        if self.core is not None:
            bits = self._bits
            return (bits & -bits).bit_length() - 1 if bits else None
        if self.state.is_terminal():
            return None
        return self.state.to_move()[0]

    def terminal(self) -> bool:
        if self.core is not None:
            return not self._bits
        return bool(self.state.is_terminal())

    def vector(self, seat: int) -> np.ndarray:
        if self.core is not None:
            return self.core.encode(seat)
        return self.codec.vector(self.observation(seat), seat)

    def arrays(self, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(vector(seat), mask(seat))`` (on the core: one call)."""
        if self.core is not None:
            return self.core.observe(seat)
        return self.vector(seat), self.mask(seat)

    def mask(self, seat: int) -> np.ndarray:
        if self.core is not None:
            return self.core.mask(seat)
        if seat not in self.state.to_move():
            return np.zeros(self.codec.actions, dtype=np.int8)
        return self.codec.mask(self.observation(seat), seat)

    def act(self, seat: int, number: int) -> dict | None:
        """Take action number ``number`` for ``seat``: the protocol action applied, or None
        (a step of a multi-slot decision). An illegal number is a ``ValueError``."""
        core = self.core
        if core is not None:  # Take4 on the core: the Python engine's checks and messages
            number = int(number)
            if not 0 <= number < take4_encoding.ACTIONS:
                take4_encoding.action_of(number)  # the ValueError naming the numbers
            self._bits = core.pick(seat, number + 1)  # ValueError: not to move, or empty
            self._picks.append((seat, number + 1))
            self._state = None
            if self._obs:  # only a rebuilt state was asked for its observations
                self._obs = {}
            return {"type": "pick", "position": number + 1}
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
        forfeits: list[str | None] = [None] * self.players
        if self.core is not None:
            by_progress = bool(self.options["rank_losers_by_progress"])
            ranks = self.core.ranks(forfeits, by_progress)
        else:
            ranks = self.state.result(forfeits)["ranks"]
        return [place_reward(ranks, s) for s in range(self.players)]
