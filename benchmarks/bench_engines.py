"""Engine speed: decisions and matches per second for random bots, with a baseline.

Plays 4-player matches of the shipped ``random`` bot for a fixed time through the real runner
(``mallows.runner.match.play_match``, every decision gets a full observation, answers are
checked against the rules) and prints decisions/s and matches/s for each game:

- ``arschmallows``, rule set ``standard``;
- ``take4`` (a decision is one seat's pick);

and, in the same run, RLCard's UNO with its random agents through ``env.run`` (steps/s), the
baseline the Arschmallows target is set against (at least 2x). RLCard is optional
(``pip install -e '.[bench]'``): without it the baseline line says so.

    python benchmarks/bench_engines.py [--seconds 10] [--players 4]
"""

from __future__ import annotations

import argparse
import time

from mallows.agents.protocol import Limits
from mallows.games import get_game
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match


def count_decisions(record: dict) -> int:
    if record["game"] == "take4":
        return sum(len(e["picks"]) for e in record["events"] if e["type"] == "picks")
    return sum(1 for e in record["events"] if e["type"] == "action")


def bench_game(
    game: str, players: int, seconds: float, rules: str | None = None
) -> tuple[float, float, int]:
    options = get_game(game).make_options(rules, {})
    spec = load_bot("random")
    limits = Limits(decision_seconds=60.0, match_seconds=1e9)
    decisions = matches = 0
    seed = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        record = play_match(game, options, seed, [spec.handle(limits) for _ in range(players)])
        decisions += count_decisions(record)
        matches += 1
        seed += 1
    elapsed = time.perf_counter() - start
    return decisions / elapsed, matches / elapsed, matches


def bench_rlcard_uno(seconds: float) -> tuple[float, float] | None:
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return None
    env = rlcard.make("uno", config={"seed": 0})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    steps = games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        trajectories, _ = env.run(is_training=False)
        # each player's trajectory is [state, action, state, action, ..., final state]
        steps += sum((len(t) - 1) // 2 for t in trajectories)
        games += 1
    elapsed = time.perf_counter() - start
    return steps / elapsed, games / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="time per measurement")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()

    ars_dps, ars_mps, ars_n = bench_game("arschmallows", args.players, args.seconds, "standard")
    t4_dps, t4_mps, t4_n = bench_game("take4", min(args.players, 4), args.seconds)
    uno = bench_rlcard_uno(args.seconds)

    print(
        f"arschmallows standard, {args.players} random bots: {ars_dps:,.0f} decisions/s, "
        f"{ars_mps:,.2f} matches/s ({ars_n} matches)"
    )
    print(
        f"take4, {min(args.players, 4)} random bots: {t4_dps:,.0f} decisions/s, "
        f"{t4_mps:,.2f} matches/s ({t4_n} matches)"
    )
    if uno is None:
        print("baseline: RLCard is not installed (pip install -e '.[bench]'); no ratio printed")
    else:
        print(
            f"baseline RLCard UNO, random agents, env.run: {uno[0]:,.0f} steps/s, "
            f"{uno[1]:,.1f} games/s"
        )
        print(
            f"ratio arschmallows decisions/s / UNO steps/s: {ars_dps / uno[0]:.2f}x (target >= 2x)"
        )


if __name__ == "__main__":
    main()
