"""The games as PettingZoo environments (``pip install 'mallows[pettingzoo]'``).

- ``env(game, players=2, ...)``: an AEC environment for any registered game with a codec face
  (``mallows.games.faces.Interop``; ``arschmallows_env``, ``take4_env`` are the same with the
  game fixed);
- ``parallel_env(game, players=2, ...)``: a simultaneous game (Take4) as a Parallel
  environment (every seat picks at once, as the game is played; ``take4_parallel_env``).

Agents are ``player_0`` .. ``player_{n-1}`` (seat order). Each agent's observation is a dict
``{"observation": Box(size,) float32, "action_mask": Box(actions,) int8}``: the vector of its
game's encoder (documented in ``mallows.games.take4.encoding`` and
``mallows.games.arschmallows.encoding``, the same encoder a bot uses in a tournament) and the
legal action numbers. Spaces are fixed for an environment: Take4 157 floats and 4 actions;
Arschmallows 2564 floats and 246 actions (24 slots; ``slots=`` changes it), its multi-slot
actions taken one slot per step (the same agent stays selected until the action is complete).

Rewards: 0 on every step, and at the end each seat's place mapped onto [-1, 1]
(``mallows.interop.rewards``). A match always ends by the game's own rules (Arschmallows'
``max_turns_per_round``, Take4's ``max_rounds``), so ``truncations`` stay False.

``reset(seed=s)`` is reproducible: the match seed is drawn from ``numpy`` ``SeedSequence(s)``
and later resets without a seed continue that sequence; the same match seed deals what
``mallows play --seed`` deals.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

try:
    from gymnasium import spaces
    from pettingzoo import AECEnv, ParallelEnv
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError(
        "mallows.interop.pettingzoo needs PettingZoo: pip install 'mallows[pettingzoo]'"
    ) from exc

from mallows.errors import GameConfigError
from mallows.interop.table import Table

__all__ = [
    "MallowsAEC",
    "MallowsParallel",
    "Take4Parallel",
    "parallel_env",
    "arschmallows_env",
    "env",
    "take4_env",
    "take4_parallel_env",
]


_U64 = (1 << 64) - 1
_SEEDS_BELOW = 2**63 - 1  # a match seed is numpy's ``integers(0, 2**63 - 1)``
_SEEDS_THRESHOLD = (_U64 - (_SEEDS_BELOW - 1)) % _SEEDS_BELOW


class _Seeds:
    """Match seeds for successive resets: ``reset(seed)`` restarts the sequence.

    The seeds are ``default_rng(SeedSequence(seed)).integers(0, 2**63 - 1)`` drawn one after
    the other; drawn here from the generator's raw 64-bit words with numpy's own bounded draw
    (Lemire's, the one ``integers`` uses for a 64-bit range), which skips the generator's
    per-call set-up on every reset (``tests/test_interop.py`` holds the two equal)."""

    def __init__(self) -> None:
        self._bits = np.random.PCG64()

    def next(self, seed: int | None) -> int:
        if seed is not None:
            self._bits = np.random.PCG64(np.random.SeedSequence(int(seed)))
        raw = self._bits.random_raw
        while True:
            m = int(raw()) * _SEEDS_BELOW
            if m & _U64 >= _SEEDS_THRESHOLD:
                return m >> 64


def _spaces(table: Table) -> tuple[spaces.Dict, spaces.Discrete]:
    obs = spaces.Dict(
        {
            "observation": spaces.Box(
                low=table.codec.low, high=1.0, shape=(table.codec.size,), dtype=np.float32
            ),
            "action_mask": spaces.Box(low=0, high=1, shape=(table.codec.actions,), dtype=np.int8),
        }
    )
    return obs, spaces.Discrete(table.codec.actions)


def _seats(table: Table) -> tuple[list[str], dict[str, spaces.Space], dict[str, spaces.Space]]:
    """The agents of a table (``player_0``...) and their observation and action spaces."""
    agents = [f"player_{i}" for i in range(table.players)]
    obs, act = _spaces(table)
    return agents, {a: obs for a in agents}, {a: act for a in agents}


class MallowsAEC(AECEnv):
    """A mallows game as a PettingZoo AEC environment (see the module docstring)."""

    metadata: dict[str, Any] = {
        "render_modes": ["ansi"],
        "name": "mallows_v0",  # noqa: RUF012
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        players: int = 2,
        rules: str | None = None,
        options: Mapping[str, Any] | None = None,
        slots: int = 24,
        render_mode: str | None = None,
    ):
        super().__init__()
        self.table = Table(game, players, rules, options, slots)
        self.metadata = dict(
            self.metadata,
            name=f"mallows_{game}_v0",
            is_parallelizable=bool(self.table.module.SIMULTANEOUS),  # see parallel_env
        )
        self.render_mode = render_mode
        self.possible_agents, self.observation_spaces, self.action_spaces = _seats(self.table)
        self._index = {a: i for i, a in enumerate(self.possible_agents)}
        self._seeds = _Seeds()
        self.match_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _current(self) -> int:
        seat = self.table.current()
        assert seat is not None, "the match is over"
        return seat

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self.match_seed = self._seeds.next(seed)
        self.table.new(self.match_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._current()]

    def observe(self, agent: str) -> dict:
        core = self.table.core  # Take4 on the compiled core: its vector and mask in one call
        seat = self._index[agent]
        vector, mask = core.observe(seat) if core is not None else self.table.arrays(seat)
        return {"observation": vector, "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self._index[agent]
        self._cumulative_rewards[agent] = 0.0
        if action is None:
            raise ValueError(
                f"{agent} must act: give one of the numbers its action_mask marks, not None"
            )
        self.table.act(seat, int(action))
        # every reward is 0 until the end (reset set them so): only the last step sets them
        if self.table.terminal():
            self.rewards = dict.fromkeys(self.agents, 0.0)
            for a, reward in zip(self.possible_agents, self.table.rewards()):
                if a in self.rewards:
                    self.rewards[a] = reward
                self.terminations[a] = True
            self._accumulate_rewards()
        else:  # every reward is 0 until the end: accumulating them would change nothing
            self.agent_selection = self.possible_agents[self.table.current()]  # type: ignore[index]
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        from mallows.games.views import table_lines

        seat = self._index[self.agent_selection]
        return "\n".join(table_lines(self.table.observation(seat)))

    def close(self) -> None:
        pass


class MallowsParallel(ParallelEnv):
    """A simultaneous mallows game (Take4) as a PettingZoo Parallel environment: every seat
    answers at once."""

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": ["ansi"],
        "name": "mallows_parallel_v0",
    }

    def __init__(
        self,
        game: str,
        players: int = 2,
        options: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
    ):
        self.table = Table(game, players, None, options)
        if not self.table.module.SIMULTANEOUS:
            raise GameConfigError(
                f"{game} is played one seat at a time: use env({game!r}), the AEC environment"
            )
        self.metadata = dict(self.metadata, name=f"mallows_{game}_parallel_v0")
        self.render_mode = render_mode
        self.possible_agents, self.observation_spaces, self.action_spaces = _seats(self.table)
        self.agents: list[str] = []
        self._seeds = _Seeds()
        self.match_seed: int | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def _observations(self) -> dict[str, dict]:
        out = {}
        for s, a in enumerate(self.possible_agents):
            if a in self.agents:
                vector, mask = self.table.arrays(s)
                out[a] = {"observation": vector, "action_mask": mask}
        return out

    def reset(
        self, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, dict], dict[str, dict]]:
        self.match_seed = self._seeds.next(seed)
        self.table.new(self.match_seed)
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict],
    ]:
        missing = [a for a in self.agents if a not in actions]
        if missing:
            raise ValueError(f"every agent picks at once: no action for {', '.join(missing)}")
        for seat, agent in enumerate(self.possible_agents):
            if agent in self.agents:
                self.table.act(seat, int(actions[agent]))
        observations = self._observations()
        done = self.table.terminal()
        rewards = dict(zip(self.possible_agents, self.table.rewards()))
        rewards = {a: rewards[a] for a in self.agents}
        terminations = {a: done for a in self.agents}
        truncations = {a: False for a in self.agents}
        infos: dict[str, dict] = {a: {} for a in self.agents}
        if done:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode is None or self.table.state is None:
            return None
        from mallows.games.views import table_lines

        return "\n".join(table_lines(self.table.observation(0)))

    def close(self) -> None:
        pass


def env(
    game: str,
    players: int = 2,
    rules: str | None = None,
    options: Mapping[str, Any] | None = None,
    slots: int = 24,
    render_mode: str | None = None,
) -> MallowsAEC:
    """An AEC environment for ``game`` (``"arschmallows"`` or ``"take4"``)."""
    return MallowsAEC(game, players, rules, options, slots, render_mode)


def arschmallows_env(players: int = 2, **kwargs: Any) -> MallowsAEC:
    return MallowsAEC("arschmallows", players, **kwargs)


def take4_env(players: int = 2, **kwargs: Any) -> MallowsAEC:
    return MallowsAEC("take4", players, **kwargs)


def parallel_env(game: str, players: int = 2, **kwargs: Any) -> MallowsParallel:
    """A Parallel environment for a simultaneous game (its AEC one says
    ``is_parallelizable``)."""
    return MallowsParallel(game, players, **kwargs)


def take4_parallel_env(players: int = 2, **kwargs: Any) -> MallowsParallel:
    return MallowsParallel("take4", players, **kwargs)


Take4Parallel = take4_parallel_env  # its old name: Take4Parallel(players, ...) still works
