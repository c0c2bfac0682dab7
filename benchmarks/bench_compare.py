"""Matches ``mallows compare`` needs to reach a verdict, against the fixed-size ladder.

For each step of the reference ladder (``benchmarks/ladder.py``): Arschmallows, 4 seats,
random -> greedy -> heuristic -> ismcts; Take4, 3 seats, random -> greedy -> denial, this runs
``compare STRONGER WEAKER`` (default delta 0.1 place per match, alpha = beta = 0.05, default
opponents: the game's reference bots other than the two) through the real machinery (executor,
SQLite store in a temporary folder) and prints the verdict, the matches it needed, the
estimate, and the number of matches the fixed-size ladder plays to separate the same pair (its
defaults: 150 Arschmallows deals x 4 rotations = 600 matches, 2000 Take4 deals x 3 rotations =
6000 matches; every ladder match seats all its bots, so each adjacent pair is judged on all of
them). The ladder separates a pair with a two-sided 95% interval and no power guarantee; compare
decides between "no better" and "better by delta" with both error rates at 5%.

ismcts plays at a reduced budget (``--ismcts-budget``, 0.02 s a decision, as the ladder), with
the ladder's generous time limits so a loaded machine causes no forfeits.

    python benchmarks/bench_compare.py [--game arschmallows|take4|both] [--workers 1]
                                       [--delta 0.1] [--seed 2026] [--ismcts-budget 0.02]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from mallows.compare.plan import make_comparison
from mallows.compare.run import BATCH_MATCHES, run_comparison
from mallows.results.store import Store
from mallows.tournaments.executor import make_executor

LADDER_MATCHES = {"arschmallows": 150 * 4, "take4": 2000 * 3}
LIMITS = {"decision_seconds": 10.0, "match_seconds": 3600.0}  # as benchmarks/ladder.py


def steps(game: str, budget: float) -> list[tuple[str, str]]:
    if game == "arschmallows":
        ladder = ["random", "greedy", "heuristic", f"ismcts:budget={budget:g}"]
    else:
        ladder = ["random", "greedy", "denial"]
    return [(ladder[i + 1], ladder[i]) for i in range(len(ladder) - 1)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=("arschmallows", "take4", "both"), default="both")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ismcts-budget", type=float, default=0.02)
    args = ap.parse_args(argv)
    games = ["take4", "arschmallows"] if args.game == "both" else [args.game]
    players = {"arschmallows": 4, "take4": 3}
    print(f"bench_compare: delta {args.delta}, alpha = beta = 0.05, seed {args.seed}, "
          f"{args.workers} worker(s); this machine has {os.cpu_count()} CPUs "
          f"(load {os.getloadavg()[0]:.1f})", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp, \
            make_executor(args.workers, None, batch_size=BATCH_MATCHES) as executor:
        store = Store(Path(tmp) / "bench.db")
        for game in games:
            for a, b in steps(game, args.ismcts_budget):
                c = make_comparison(a, b, game=game, players=players[game], delta=args.delta,
                                    max_matches=20_000, seed=args.seed, limits=LIMITS)
                t0 = time.perf_counter()
                res = run_comparison(c, store, executor)
                wall = time.perf_counter() - t0
                t = res.test
                ladder = LADDER_MATCHES[game]
                rows.append((game, a, b, res.verdict or "none", res.matches, ladder, wall))
                print(f"{game:<12} {a:>20} vs {b:<10} opponents {','.join(c.opponents):<17} "
                      f"verdict {res.verdict or 'none'}: {res.matches:>5} matches "
                      f"(diff {t.mean:+.3f} +/- {t.half_width:.3f} places/match, LLR "
                      f"{t.llr:+.2f}) in {wall:6.1f} s; ladder {ladder} matches: "
                      f"{ladder / max(1, res.matches):.1f}x as many", flush=True)
        store.close()
    print("\nsummary (matches to a verdict, compare vs the fixed-size ladder):")
    print(f"{'game':<13}{'A vs B':<34}{'verdict':>8}{'compare':>9}{'ladder':>8}{'ratio':>7}"
          f"{'seconds':>9}")
    for game, a, b, verdict, n, ladder, wall in rows:
        print(f"{game:<13}{a + ' vs ' + b:<34}{verdict:>8}{n:>9}{ladder:>8}"
              f"{ladder / max(1, n):>6.1f}x{wall:>9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
