"""How the two Arschmallows search bots spend the same time budget: ``belief`` (racing its
candidates, a time bank) against ``ismcts`` (every candidate on every world, the whole share of
every searched decision), in the same matches through the real runner, in-process.

For each bot: the searched decisions (more than one candidate), the mean and largest time one
took (wall clock around ``search`` and the work before it, as the bot counts it), its thinking
time per match, and per phase the worlds (determinizations) a decision drew and how often the
search overrode the prior (the heuristic's or the tracker's default move). The claim checked:
``belief`` thinks no longer per match than ``ismcts`` at the same ``budget``, it only moves the
time from decisions settled early to undecided ones.

    python benchmarks/bench_thinking.py [--matches 6] [--players 3] [--budget 0.02] [--seed 7]
"""

from __future__ import annotations

import argparse
import collections
import statistics
import sys
import time

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.runner.match import play_match

LIMITS = Limits(decision_seconds=10.0, match_seconds=3600.0)
SEARCHERS = ("belief", "ismcts")


def _instrument(bot, log: list) -> None:
    """Log (phase, candidates, worlds, seconds, overridden) for each searched decision."""
    act, search = bot.act, bot.search
    pending: dict = {}

    def timed_act(*args, **kwargs):
        start = time.perf_counter()
        pending.clear()
        out = act(*args, **kwargs)
        if pending:
            log.append((*pending["row"], time.perf_counter() - start, out != pending["prior"]))
        return out

    def logged_search(obs, *args, **kwargs):
        candidates = next(a for a in args if isinstance(a, list))
        out = search(obs, *args, **kwargs)
        pending["row"] = (obs["phase"], len(candidates), bot.last_iterations)
        pending["prior"] = candidates[0]
        return out

    bot.act, bot.search = timed_act, logged_search


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matches", type=int, default=6)
    ap.add_argument("--players", type=int, default=3)
    ap.add_argument("--budget", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    names = [f"{b}:budget={args.budget}" for b in SEARCHERS]
    names += ["heuristic"] * (args.players - len(names))
    options = get_game("arschmallows").make_options("standard", {})
    logs: dict[str, list] = {b: [] for b in SEARCHERS}
    t0 = time.perf_counter()
    for m in range(args.matches):
        seated = names[m % len(names) :] + names[: m % len(names)]  # every bot in every seat
        handles = [load_bot(n).handle(LIMITS) for n in seated]
        for name, handle in zip(seated, handles):
            base = name.split(":")[0]
            if base in logs:
                _instrument(handle.bot, logs[base])
        play_match("arschmallows", options, seeding.child_seed(args.seed, m), handles, seated)
    print(
        f"bench_thinking: {', '.join(names)}; {args.matches} matches, {args.players} seats, "
        f"budget {args.budget} s a decision (share {0.9 * args.budget * 1000:.1f} ms), "
        f"seed {args.seed}, {time.perf_counter() - t0:.0f} s"
    )
    for bot, rows in logs.items():
        secs = [r[3] for r in rows]
        print(
            f"{bot:7s} searched decisions {len(rows):5d}  mean {1000 * statistics.fmean(secs):5.1f}"
            f" ms  max {1000 * max(secs):5.1f} ms  thinking {sum(secs) / args.matches:5.2f} s"
            f" a match"
        )
        by_phase = collections.defaultdict(list)
        for r in rows:
            by_phase[r[0]].append(r)
        for phase, rs in sorted(by_phase.items()):
            print(
                f"    {phase:5s} n={len(rs):5d} candidates {statistics.fmean(r[1] for r in rs):4.1f}"
                f"  worlds {statistics.fmean(r[2] for r in rs):6.1f}"
                f"  ms {1000 * statistics.fmean(r[3] for r in rs):5.1f}"
                f"  overridden {statistics.fmean(r[4] for r in rs):5.1%}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
