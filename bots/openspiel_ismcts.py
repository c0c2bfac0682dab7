"""openspiel_ismcts: OpenSpiel's ISMCTS bot playing Take4 in a mallows match (needs the
optional extra: ``pip install 'mallows[openspiel]'``).

Idea: at each decision, rebuild an OpenSpiel state of the game ``mallows_take4`` from the
observation (``mallows.interop.openspiel.take4_state_from_observation``: the recorded rounds
played again through the engine, the unseen cards in a random order, this round's earlier
picks drawn at random), and let OpenSpiel's information-set MCTS (random rollouts) search it,
resampling the hidden cards and picks at every simulation. The action it returns is a Take4
action number (``mallows.games.take4.encoding``), turned back into the protocol's pick.

Strength: well above ``random`` at the default budget. Speed: ``simulations`` random rollouts
a decision, some 15 ms each here: the default 15 fits the default 1 s limit; raise
``decision_seconds`` with the budget (``openspiel_ismcts:simulations=200`` and
``decision_seconds = 10``).

Parameters: ``openspiel_ismcts:simulations=100`` (1..100000, default 15), ``seed=0``.
"""

from __future__ import annotations

import random

from mallows.agents.kit import number_param


class Bot:
    name = "openspiel_ismcts"
    version = "1.0"
    games = ("take4",)

    def __init__(self, simulations: int | str = 15, seed: int | str = 0) -> None:
        self.simulations = number_param(
            "openspiel_ismcts", "simulations", simulations, 1, 100000, int
        )
        self.seed = number_param("openspiel_ismcts", "seed", seed, 0, 2**31 - 1, int)
        self.game = None
        self.bot = None
        self.rng = random.Random(self.seed)

    def match_start(self, info: dict) -> None:
        from mallows.interop.openspiel import ismcts_bot, load

        self.game = load("take4", players=info["players"], max_rounds=info["options"]["max_rounds"])
        self.rng = random.Random(info["seed"] ^ self.seed)
        self.bot = ismcts_bot(self.game, self.simulations, seed=self.rng.randrange(2**31))

    def act(self, observation: dict) -> dict:
        from mallows.games.take4.encoding import action_of
        from mallows.interop.openspiel import take4_state_from_observation

        if self.game is None:
            self.match_start(
                {"players": observation["players"], "seed": 0, "options": observation["options"]}
            )
        state = take4_state_from_observation(self.game, observation, self.rng)
        return action_of(self.bot.step(state))
