"""What an iteration count costs: each search bot's time per decision at each count.

The search bots are measured and certified by iterations (worlds a decision), never by the
clock, so their play and every verdict is the same on any machine under any load (bots/README.md,
"Strength"). What an iteration count costs does depend on the machine; this prints it. For each
count N, ``--matches`` matches through the real runner, in-process:

- Arschmallows, 3 seats: ``belief:iterations=N``, ``ismcts:iterations=N`` and ``heuristic``,
  every bot in every seat; per search bot, its searched decisions (more than one candidate):
  mean CPU milliseconds (``time.process_time``, what the load does not inflate) and wall
  milliseconds, the largest wall time, the mean worlds drawn (``belief`` races its candidates
  and may settle before N);
- Take4, 3 seats: ``jointpick:iterations=M`` (M = 50 N, its worlds are cheaper: its default,
  3000, at N = 60), ``denial``, ``greedy``; its decisions with more than one legal pick.

Then the count at which ``belief`` spends the time ``ismcts`` spends at each count
(interpolated in CPU time between the measured counts). The load average is printed: wall
times on a loaded machine are the CPU times stretched.

    python benchmarks/bench_iterations.py [--counts 10,20,40] [--matches 3] [--seed 7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.runner.match import play_match
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

LIMITS = Limits(decision_seconds=60.0, match_seconds=3600.0)
JOINT_WORLDS = 50  # jointpick's worlds per count N: 3000, its default, at N = 60


def _timed(bot, log: list, searched) -> None:
    """Log (cpu s, wall s, worlds) of each of ``bot``'s decisions that ``searched`` says it
    searched."""
    act = bot.act

    def timed_act(*args):
        c0, w0 = time.process_time(), time.perf_counter()
        out = act(*args)
        c1, w1 = time.process_time(), time.perf_counter()
        worlds = searched(bot, args[0])
        if worlds:
            log.append((c1 - c0, w1 - w0, worlds))
        return out

    bot.act = timed_act


def _arsch_searched(bot, _obs) -> int:
    return bot.last_iterations


def _take4_searched(bot, obs) -> int:
    return bot.iterations if len(obs["legal_actions"]) > 1 else 0


def measure(game: str, names: list[str], matches: int, seed: int, searched) -> list[tuple]:
    """Play ``matches`` matches (every bot in every seat in turn); the log of ``names[0]``."""
    options = get_game(game).make_options("standard" if game == "arschmallows" else None, {})
    logs: dict[str, list] = {n: [] for n in names}
    for m in range(matches):
        seated = names[m % len(names) :] + names[: m % len(names)]
        handles = [load_bot(n).handle(LIMITS) for n in seated]
        for name, handle in zip(seated, handles):
            if name in logs and ":" in name:
                _timed(handle.bot, logs[name], searched)
        play_match(game, options, seeding.child_seed(seed, m), handles, seated)
    return [logs[n] for n in names]


def _line(name: str, rows: list[tuple]) -> str:
    if not rows:
        return f"  {name:<24} no searched decision"
    return (
        f"  {name:<24} {len(rows):5d} decisions  cpu {1000 * statistics.fmean(r[0] for r in rows):7.1f}"
        f" ms  wall {1000 * statistics.fmean(r[1] for r in rows):7.1f} ms (max "
        f"{1000 * max(r[1] for r in rows):7.1f})  worlds {statistics.fmean(r[2] for r in rows):6.1f}"
    )


def equal_time(counts: list[int], belief: list[float], target: float) -> str:
    """The belief count spending ``target`` CPU seconds, interpolated (or beyond the range)."""
    pairs = list(zip(counts, belief))
    for (n0, t0), (n1, t1) in zip(pairs, pairs[1:]):
        if t0 <= target <= t1 and t1 > t0:
            return f"{n0 + (n1 - n0) * (target - t0) / (t1 - t0):.0f}"
    if target > pairs[-1][1]:
        return f"above {pairs[-1][0]}"
    return f"below {pairs[0][0]}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--counts", default="10,20,40", help="iteration counts, comma-separated")
    ap.add_argument("--matches", type=int, default=3, help="matches per count and game")
    ap.add_argument("--seed", type=int, default=7)
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.smoke:
        args.counts, args.matches = "1,2", 1
    counts = [int(c) for c in args.counts.split(",")]
    print(
        f"bench_iterations: counts {counts}, {args.matches} match(es) per count and game, seed "
        f"{args.seed}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs",
        flush=True,
    )
    cpu: dict[str, list[float]] = {"belief": [], "ismcts": []}
    for n in counts:
        print(f"iterations {n}:", flush=True)
        names = [f"belief:iterations={n}", f"ismcts:iterations={n}", "heuristic"]
        logs = measure("arschmallows", names, args.matches, args.seed, _arsch_searched)
        for name, rows in zip(names, logs):
            if ":" in name:
                print(_line(name, rows), flush=True)
                cpu[name.split(":")[0]].append(
                    statistics.fmean(r[0] for r in rows) if rows else 0.0
                )
        names = [f"jointpick:iterations={JOINT_WORLDS * n}", "denial", "greedy"]
        logs = measure("take4", names, args.matches, args.seed, _take4_searched)
        print(_line(names[0], logs[0]), flush=True)
    print("belief's count at ismcts's CPU time a searched decision:")
    for n, t in zip(counts, cpu["ismcts"]):
        print(
            f"  ismcts:iterations={n} ({1000 * t:.1f} ms): belief at {equal_time(counts, cpu['belief'], t)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
