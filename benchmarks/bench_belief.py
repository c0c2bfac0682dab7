"""What the belief tracker is worth without search: the ``belief`` bot's prior alone
(``belief:search=none``, the heuristic's rules on the tracker's numbers, protocol 2) against
the tuned heuristic (``heuristic:risk=0.85,improve=5``, the prior ``ismcts`` uses), in paired
duplicate matches through the real runner.

Pair ``p`` plays one deal twice with the candidate, then the baseline, in the seat under test
(``p % players``), the other seats holding the same opponents with the same bot seeds, as
``mallows compare`` does; the figure is the mean place difference (baseline's place minus the
candidate's: positive = the candidate places better) with its 95% interval over the pairs.
Both bots take microseconds a decision, so a thousand pairs take about a minute: the fast way
to tune the prior's call rule before a ``mallows compare`` of the search bots.

    python benchmarks/bench_belief.py [--players 3] [--pairs 1000] [--opponents default|tuned]
                                      [--candidate belief:search=none] [--seed 2026]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.runner.match import play_match

BASELINE = "heuristic:risk=0.85,improve=5"
OPPONENTS = {"default": ["greedy", "heuristic", "random"], "tuned": [BASELINE]}
LIMITS = Limits(decision_seconds=10.0, match_seconds=3600.0)
Z95 = 1.959963984540054


def place(names: list[str], seat: int, seed: int, options: dict) -> int:
    handles = [load_bot(n).handle(LIMITS) for n in names]
    record = play_match("arschmallows", options, seed, handles, names)
    return int(record["result"]["ranks"][seat]) + 1


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--pairs", type=int, default=1000)
    ap.add_argument("--opponents", choices=sorted(OPPONENTS), default="default")
    ap.add_argument("--candidate", default="belief:search=none")
    ap.add_argument("--baseline", default=BASELINE)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)
    options = get_game("arschmallows").make_options("standard", {})
    pool = OPPONENTS[args.opponents]
    diffs: list[int] = []
    t0 = time.perf_counter()
    for p in range(args.pairs):
        seed = seeding.child_seed(args.seed, p)
        seat = p % args.players
        others = [pool[(p + k) % len(pool)] for k in range(args.players - 1)]
        tables = []
        for bot in (args.candidate, args.baseline):
            names = others[:seat] + [bot] + others[seat:]
            tables.append(place(names, seat, seed, options))
        diffs.append(tables[1] - tables[0])
    mean = statistics.fmean(diffs)
    half = Z95 * statistics.stdev(diffs) / math.sqrt(len(diffs)) if len(diffs) > 1 else math.inf
    print(
        f"bench_belief: {args.candidate} vs {args.baseline}, {args.players} seats, opponents "
        f"{', '.join(pool)}, {args.pairs} pairs = {2 * args.pairs} matches, seed {args.seed}, "
        f"{time.perf_counter() - t0:.0f} s"
    )
    print(
        f"place difference (baseline - candidate; positive = the candidate places better): "
        f"{mean:+.3f} +- {half:.3f} per match (95%)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
