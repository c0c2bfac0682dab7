"""The learning environments' speed: PettingZoo AEC steps per second (random legal actions
from the action mask) for both games, Take4's Parallel environment, and OpenSpiel random
playouts (chance sampled from ``chance_outcomes``), each beside the engine's own speed on the
same matches (the baseline: ``state.apply`` with the game's random policy, no encoding).

    python benchmarks/bench_interop.py [--seconds 3]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from mallows.games import get_game
from mallows.games.base import SeededChance
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)


def engine_steps(game: str, players: int, seconds: float) -> float:
    module = get_game(game)
    options = module.make_options(None, None)
    steps, seed, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = module.new_state(options, players, SeededChance(seed))
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.to_move():
                state.apply(seat, module.random_action(state.observation(seat), rng))
                steps += 1
        seed += 1
    return steps / (time.perf_counter() - t0)


def aec_steps(game: str, players: int, seconds: float) -> float:
    from mallows.interop.pettingzoo import env

    e = env(game, players)
    rng = np.random.default_rng(0)
    steps, seed, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        e.reset(seed=seed)
        for _agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        seed += 1
    return steps / (time.perf_counter() - t0)


def parallel_steps(players: int, seconds: float) -> float:
    from mallows.interop.pettingzoo import take4_parallel_env

    e = take4_parallel_env(players)
    rng = np.random.default_rng(0)
    steps, seed, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, _ = e.reset(seed=seed)
        while e.agents:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            obs, *_ = e.step(actions)
            steps += len(actions)
        seed += 1
    return steps / (time.perf_counter() - t0)


def openspiel_steps(name: str, seconds: float) -> float:
    import pyspiel

    import mallows.interop.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game(name)
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
                steps += 1
    return steps / (time.perf_counter() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    add_smoke(parser)
    args = parser.parse_args()
    s = 0.1 if args.smoke else args.seconds
    for game, players in (("take4", 2), ("arschmallows", 4)):
        base = engine_steps(game, players, s)
        aec = aec_steps(game, players, s)
        print(
            f"{game} {players} seats: engine {base:,.0f} decisions/s; PettingZoo AEC "
            f"{aec:,.0f} steps/s ({aec / base:.2f}x the engine)"
        )
    print(f"take4 2 seats: PettingZoo Parallel {parallel_steps(2, s):,.0f} picks/s")
    try:
        import pyspiel  # noqa: F401
    except ImportError:
        print("OpenSpiel: not installed (pip install -e '.[openspiel]')")
        return
    for name in ("mallows_take4", "mallows_arschmallows(players=4)"):
        print(
            f"OpenSpiel {name}: {openspiel_steps(name, s):,.0f} player steps/s "
            f"(random playouts, chance sampled)"
        )


if __name__ == "__main__":
    main()
