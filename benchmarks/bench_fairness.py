"""Benchmark: what the seat orders and the duplicate deals do to a bot's mean place (issue 21).

    python benchmarks/bench_fairness.py [--deals 10000] [--workers 2] [--seed 2026]

For each game, its three shipped fast bots at three seats (Arschmallows, standard rules:
greedy, heuristic, random; Take4: greedy, denial, random), two tournament files that differ
only in the order of ``bots``: A = (first, second, third) and B = (first, third, second), one
table each, ``--deals`` deals, every deal in every rotation. The schedules are the platform's
own (``tournaments.roundrobin.schedule``, versions 1 and 2); each distinct match (seed, seats) is
played once in-process with the shipped bots and its ranks reused by every schedule that has it.

(a) The file-order effect: for each bot, its mean place in tournament A minus in tournament B,
with a 95% interval over deals (the deal is the unit: the same cards in both files). Version 1
seats every deal of a file in the rotations of the file's order; version 2 cycles the balanced
orders. Target: within +-0.02 of zero (the whole interval) under version 2.

(b) What duplicate deals buy, under version 2, file A: the variance of a bot's mean place over
N matches when every deal is played in all 3 rotations (N / 3 deals: the deal is the unit),
against N independent deals (each match its own deal, the bot still in every seat equally
often: the variance per match is the mean of the per-seat variances); their ratio; and the
matches each needs for a 95% interval of +-0.05 places.

Also printed: the seat effect of each game (mean place by seat over every bot,
``mallows.results.seats``). Run time: about 6 x deals matches a game; on a shared 2-core
machine the default takes some ten minutes.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor

from mallows.results.seats import seat_effects
from mallows.results.stats import Z95
from mallows.tournaments.roundrobin.schedule import make_schedule

GAMES = {
    "arschmallows": ("standard", ("greedy", "heuristic", "random")),
    "take4": (None, ("greedy", "denial", "random")),
}
TARGET = 0.02  # (a): |file-order effect| + its half interval under version 2
PRECISION = 0.05  # (b): the half interval a bot's mean place should reach


def _play(args: tuple) -> list[tuple[int, tuple, list[int]]]:
    """Play matches (seed, seats) of one game in this process; their ranks."""
    from mallows.games import get_game
    from mallows.runner.executor import Job, play_job

    game, rules, matches = args
    options = get_game(game).make_options(rules, {})
    out = []
    for seed, seats in matches:
        outcome = play_job(Job(0, game, options, seed, seats, {}))
        if outcome.error is not None:
            raise RuntimeError(outcome.error)
        out.append((seed, seats, outcome.ranks))
    return out


def mean_interval(values: list[float]) -> tuple[float, float]:
    return statistics.fmean(values), Z95 * statistics.stdev(values) / math.sqrt(len(values))


def per_deal_places(specs, ranks: dict, bot: str) -> list[float]:
    """The bot's mean place over each deal's rotations, deal by deal."""
    out: dict[int, list[int]] = {}
    for s in specs:
        place = ranks[(s.seed, s.seats)][s.seats.index(bot)] + 1
        out.setdefault(s.deal, []).append(place)
    return [statistics.fmean(v) for _, v in sorted(out.items())]


def run_game(game: str, deals: int, seed: int, workers: int) -> dict:
    rules, (first, second, third) = GAMES[game]
    files = {"A": (first, second, third), "B": (first, third, second)}
    schedules = {
        (v, f): list(make_schedule(bots, 3, deals, seed, version=v))
        for v in (1, 2)
        for f, bots in files.items()
    }
    needed = sorted({(s.seed, s.seats) for specs in schedules.values() for s in specs})
    chunks = [needed[i :: workers * 8] for i in range(workers * 8)]
    t0 = time.perf_counter()
    ranks: dict = {}
    with ProcessPoolExecutor(workers) as pool:
        for part in pool.map(_play, [(game, rules, c) for c in chunks if c]):
            ranks.update({(s, seats): r for s, seats, r in part})
    wall = time.perf_counter() - t0
    print(
        f"\n== {game}{f' ({rules})' if rules else ''}: {', '.join(files['A'])}; {deals:,} "
        f"deals, {len(needed):,} distinct matches played in {wall:.0f} s "
        f"({len(needed) / wall:.0f}/s on {workers} processes)",
        flush=True,
    )
    out: dict = {"game": game, "effects": {}, "variance": {}}
    print("(a) file-order effect: mean place in A minus in B (95% interval over deals)")
    print(f"    {'bot':<10} {'version 1 (file order)':>24} {'version 2 (balanced)':>24}")
    for bot in files["A"]:
        row = []
        for v in (1, 2):
            a = per_deal_places(schedules[(v, "A")], ranks, bot)
            b = per_deal_places(schedules[(v, "B")], ranks, bot)
            mean, half = mean_interval([x - y for x, y in zip(a, b)])
            out["effects"][(bot, v)] = (mean, half)
            row.append(f"{mean:+.3f} ± {half:.3f}")
        print(f"    {bot:<10} {row[0]:>24} {row[1]:>24}")
    worst = max(abs(m) + h for (bot, v), (m, h) in out["effects"].items() if v == 2)
    out["within"] = worst <= TARGET
    print(
        f"    version 2: largest |effect| + half interval {worst:.4f}: "
        f"{'within' if worst <= TARGET else 'NOT within'} ±{TARGET}"
    )
    print(f"(b) duplicate against independent deals, version 2, file A (matches for ±{PRECISION})")
    print(
        f"    {'bot':<10} {'var/match dup':>14} {'var/match ind':>14} {'ratio':>6} "
        f"{'matches dup':>12} {'matches ind':>12}"
    )
    specs = schedules[(2, "A")]
    for bot in files["A"]:
        deal_means = per_deal_places(specs, ranks, bot)
        # duplicate: N matches = N/3 deals; var(mean) = var(deal mean) / (N / 3)
        dup = 3 * statistics.variance(deal_means)  # per match: times 1/N
        by_seat: dict[int, list[int]] = {}
        for s in specs:
            seat = s.seats.index(bot)
            by_seat.setdefault(seat, []).append(ranks[(s.seed, s.seats)][seat] + 1)
        ind = statistics.fmean(statistics.variance(v) for v in by_seat.values())
        need_dup = math.ceil(dup * (Z95 / PRECISION) ** 2)
        need_ind = math.ceil(ind * (Z95 / PRECISION) ** 2)
        out["variance"][bot] = (dup, ind, need_dup, need_ind)
        print(
            f"    {bot:<10} {dup:>14.3f} {ind:>14.3f} {ind / dup:>6.2f} {need_dup:>12,} "
            f"{need_ind:>12,}"
        )
    print("    (the variance of the mean over N matches is the per-match figure / N)")
    effect = seat_effects((s.deal, s.seats, ranks[(s.seed, s.seats)]) for s in specs)[3]
    print(f"seat effect, version 2, file A: {effect.text()}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--deals",
        type=int,
        default=10_000,
        help="deals a table (even: version 2 is then exactly balanced)",
    )
    ap.add_argument("--workers", type=int, default=2, help="processes playing matches")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--game",
        choices=sorted(GAMES),
        action="append",
        help="only this game (repeatable; default: both)",
    )
    args = ap.parse_args()
    print(
        f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs; {args.deals:,} deals "
        f"a file, seed {args.seed}",
        flush=True,
    )
    t0 = time.perf_counter()
    ok = True
    for game in args.game or list(GAMES):
        ok &= run_game(game, args.deals, args.seed, args.workers)["within"]
    print(
        f"\ntotal {time.perf_counter() - t0:.0f} s; target (a) ±{TARGET} under version 2: "
        f"{'met' if ok else 'NOT met'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
