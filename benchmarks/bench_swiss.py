"""How well a Swiss system ranks a field, against a round robin of the same number of matches.

A simulated field of known strengths (``mallows.tournaments.ladder.simulate``: skill plus
Gaussian luck; 32 bots, 4 seats, luck 6 against a skill spread of 3) is played three ways, each
table in every seat rotation, the same number of matches each:

- **swiss**: the format's own pairing (``tournaments.swiss.format.plan_rounds``, the code a
  Swiss file runs), each round planned from the results of the rounds before it;
- **round robin**: that many tables drawn without replacement from the round robin's
  C(32, 4) = 35,960 (a full round robin would be 143,840 matches);
- **balanced rounds**: shuffled rounds in which every bot plays once
  (``simulate.balanced_round``, the ladder's base schedule).

Each is ranked by the same standing (mean share of the opponents a bot finished ahead of) and
scored by Kendall tau to the true order: the whole field, and the top 8 (the tau of the
standing's top 8 against the true top 8, missing ones counted last). Printed: the mean over
seeds, at 5 and 10 rounds' worth of matches, side by side. Run:
``python benchmarks/bench_swiss.py [seeds]`` (default 8; the pairing search is slow on big fields).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence

from mallows.tournaments.ladder.simulate import Field, balanced_round, even_field, kendall_tau
from mallows.tournaments.swiss.format import SwissSchedule, plan_rounds
from mallows.tournaments.swiss.spec import Swiss

N, SEATS = 32, 4
ROUNDS = (5, 10)
Results = dict[int, tuple[list[str], list[int]]]


def standing(results: Results, bots: Sequence[str]) -> list[str]:
    points = dict.fromkeys(bots, 0.0)
    played = dict.fromkeys(bots, 0)
    for seated, ranks in results.values():
        for bot, rank in zip(seated, ranks):
            points[bot] += sum(other > rank for other in ranks) / (len(ranks) - 1)
            played[bot] += 1
    return sorted(bots, key=lambda b: (-points[b] / max(played[b], 1), b))


def rotations(tables: Sequence[Sequence[str]], field: Field, rng: random.Random) -> Results:
    out: Results = {}
    for table in tables:
        for r in range(len(table)):
            seats = list(table[r:]) + list(table[:r])
            out[len(out)] = (seats, field.play(seats, rng))
    return out


def swiss(field: Field, rounds: int, rng: random.Random) -> Results:
    bots = tuple(field.skills)
    spec = Swiss("bench", "take4", None, SEATS, 1, rng.randrange(2**31), rounds, bots)
    results: Results = {}
    per = spec.round_matches()
    for r in range(rounds):
        schedule = SwissSchedule(spec, bots, plan_rounds(spec, bots, results, r + 1))
        for m in schedule.specs(range(r * per, (r + 1) * per)):
            results[m.index] = (list(m.seats), field.play(m.seats, rng))
    return results


def round_robin(field: Field, rounds: int, rng: random.Random) -> Results:
    everyone = list(itertools.combinations(sorted(field.skills), SEATS))
    return rotations(rng.sample(everyone, rounds * (N // SEATS)), field, rng)


def balanced(field: Field, rounds: int, rng: random.Random) -> Results:
    tables = [t for _ in range(rounds) for t in balanced_round(list(field.skills), SEATS, rng)]
    return rotations(tables, field, rng)


def top_tau(order: Sequence[str], truth: Sequence[str], top: int = 8) -> float:
    mine = [b for b in order[:top] if b in truth[:top]]
    return kendall_tau(mine + [b for b in truth[:top] if b not in mine], truth[:top])


def main(seeds: int, rounds_list: Sequence[int] = ROUNDS) -> None:
    ways: dict[str, Callable[[Field, int, random.Random], Results]] = {
        "swiss": swiss,
        "round robin": round_robin,
        "balanced rounds": balanced,
    }
    field = even_field(N, spread=3.0, luck=6.0)
    truth = field.truth()
    print(f"{N} bots, {SEATS} seats, luck 6 / spread 3, mean Kendall tau over {seeds} seeds")
    print(f"{'rounds':>6} {'matches':>7}  " + "  ".join(f"{w:>22}" for w in ways))
    print(f"{'':>6} {'':>7}  " + "  ".join(f"{'all':>10} {'top 8':>11}" for _ in ways))
    for rounds in rounds_list:
        cells = []
        for play in ways.values():
            whole, top = 0.0, 0.0
            for seed in range(seeds):
                order = standing(play(field, rounds, random.Random(seed)), truth)
                whole += kendall_tau(order, truth) / seeds
                top += top_tau(order, truth) / seeds
            cells.append(f"{whole:>10.3f} {top:>11.3f}")
        matches = rounds * (N // SEATS) * SEATS
        print(f"{rounds:>6} {matches:>7}  " + "  ".join(cells))


if __name__ == "__main__":
    import argparse

    from smoke import add_smoke

    ap = argparse.ArgumentParser(description="Swiss against a round robin of as many matches")
    ap.add_argument("seeds", type=int, nargs="?", default=8)
    add_smoke(ap)
    args = ap.parse_args()
    main(1, (2,)) if args.smoke else main(args.seeds)
