"""Matches ``mallows compare`` needs to reach a verdict, against the fixed-size ladder.

For each step of the reference ladder (``benchmarks/ladder.py``): Arschmallows, 4 seats,
random -> greedy -> heuristic -> ismcts; Take4, 3 seats, random -> greedy -> denial, this runs
``compare STRONGER WEAKER`` (default delta 0.1 place per match, alpha = beta = 0.05) through the
real machinery (executor, SQLite store in a temporary folder) against two fields of opponents:

- ``reference``: compare's default, the game's reference bots other than the two;
- ``ladder``: the ladder's own table: the other ladder bots plus WEAKER under another name (its
  default parameter written out, so it plays the same), so that the seat under test meets what
  it meets in the ladder;

and prints the verdict, the matches it needed, the
estimate, and the number of matches the fixed-size ladder plays to separate the same pair (its
defaults: 150 Arschmallows deals x 4 rotations = 600 matches, 2000 Take4 deals x 3 rotations =
6000 matches; every ladder match seats all its bots, so each adjacent pair is judged on all of
them), and the pairs a fixed-size one-sided z-test of the same error rates would need at the
standard deviation the comparison observed. The ladder separates a pair with a two-sided 95% interval and no power guarantee; compare
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

from mallows.tournaments.compare.spec import make_comparison
from mallows.tournaments.compare.run import BATCH_MATCHES, run_comparison
from mallows.tournaments.compare.sprt import fixed_sample_size
from mallows.results.store import Store
from mallows.runner.executor import make_executor

LADDER_MATCHES = {"arschmallows": 150 * 4, "take4": 2000 * 3}
LIMITS = {"decision_seconds": 10.0, "match_seconds": 3600.0}  # as benchmarks/ladder.py


#: the same bot under another name: its default parameter written out
CLONES = {
    "random": "random:call=0.05",
    "greedy": "greedy:margin=6",
    "heuristic": "heuristic:risk=0.7",
}


def ladder_of(game: str, budget: float) -> list[str]:
    if game == "arschmallows":
        return ["random", "greedy", "heuristic", f"ismcts:budget={budget:g}"]
    return ["random", "greedy", "denial"]


def steps(game: str, budget: float) -> list[tuple[str, str]]:
    ladder = ladder_of(game, budget)
    return [(ladder[i + 1], ladder[i]) for i in range(len(ladder) - 1)]


def field_for(game: str, a: str, b: str, field: str, budget: float) -> list[str] | None:
    if field == "reference":
        return None  # compare's default
    return [x for x in ladder_of(game, budget) if x not in (a, b)] + [CLONES[b]]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", choices=("arschmallows", "take4", "both"), default="both")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--delta", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--ismcts-budget", type=float, default=0.02)
    ap.add_argument("--field", choices=("reference", "ladder", "both"), default="both")
    args = ap.parse_args(argv)
    games = ["take4", "arschmallows"] if args.game == "both" else [args.game]
    players = {"arschmallows": 4, "take4": 3}
    print(
        f"bench_compare: delta {args.delta}, alpha = beta = 0.05, seed {args.seed}, "
        f"{args.workers} worker(s); this machine has {os.cpu_count()} CPUs "
        f"(load {os.getloadavg()[0]:.1f})",
        flush=True,
    )
    rows = []
    with (
        tempfile.TemporaryDirectory() as tmp,
        make_executor(args.workers, None, batch_size=BATCH_MATCHES) as executor,
    ):
        store = Store(Path(tmp) / "bench.db")
        fields = ["reference", "ladder"] if args.field == "both" else [args.field]
        for game, field in [(g, f) for g in games for f in fields]:
            for a, b in steps(game, args.ismcts_budget):
                c = make_comparison(
                    a,
                    b,
                    game=game,
                    players=players[game],
                    delta=args.delta,
                    max_matches=20_000,
                    seed=args.seed,
                    limits=LIMITS,
                    opponents=field_for(game, a, b, field, args.ismcts_budget),
                    name=f"{game}-{field}-{len(rows)}",
                )
                t0 = time.perf_counter()
                res = run_comparison(c, store, executor)
                wall = time.perf_counter() - t0
                t = res.test
                ladder = LADDER_MATCHES[game]
                sd = t.half_width / 1.959963984540054 * t.n**0.5
                fixed = 2 * fixed_sample_size(max(sd, 1e-9), args.delta, 0.05, 0.05)
                rows.append(
                    (game, field, a, b, res.verdict or "none", res.matches, ladder, fixed, wall)
                )
                print(
                    f"{game:<12} {a:>18} vs {b:<9} opponents {','.join(c.opponents):<40} "
                    f"verdict {res.verdict or 'none'}: {res.matches:>5} matches "
                    f"(diff {t.mean:+.3f} +/- {t.half_width:.3f} places/match, LLR "
                    f"{t.llr:+.2f}) in {wall:6.1f} s; ladder {ladder} matches: "
                    f"{ladder / max(1, res.matches):.1f}x as many; fixed-size test "
                    f"{fixed} matches",
                    flush=True,
                )
        store.close()
    print("\nsummary (matches to a verdict, compare vs the fixed-size ladder):")
    print(
        f"{'game':<13}{'field':<10}{'A vs B':<34}{'verdict':>8}{'compare':>9}{'ladder':>8}"
        f"{'ratio':>7}{'fixed z':>9}{'seconds':>9}"
    )
    for game, field, a, b, verdict, n, ladder, fixed, wall in rows:
        print(
            f"{game:<13}{field:<10}{a + ' vs ' + b:<34}{verdict:>8}{n:>9}{ladder:>8}"
            f"{ladder / max(1, n):>6.1f}x{fixed:>9}{wall:>9.1f}"
        )
    print(
        "compare, ladder, fixed z: matches; ratio = ladder / compare; fixed z: a fixed-size "
        "one-sided z-test with the same alpha, beta and delta at the observed spread"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
