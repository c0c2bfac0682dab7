"""The reference ladder: the shipped bots against each other, with confidence intervals.

Plays duplicate-style matches through the real runner
(``mallows.runner.match.play_match``, shipped bots in-process, generous time limits: see
``LIMITS``): for every deal seed, one match per cyclic rotation of the seats, so every bot
plays every seat on the same cards. Then prints, per game, one row per bot:

- ``place``: mean place, **1-based** (1 = first; tied seats share the better place, as in the
  record's competition ranks), with its 95% confidence interval;
- ``score``: Arschmallows, the mean match total (lower is better); Take4, the win rate (the
  share of matches in which the bot completed a squad), each with its 95% CI;
- ``forfeits``: matches in which the bot forfeited (should be 0).

The unit of the statistics is the deal: each bot's place and score are averaged over the
rotations of one deal, and the CI is mean +- 1.96 standard errors over the deals. Below the
table, each adjacent pair (in the expected order) gets a *paired* comparison over the shared
deals: the mean difference in place (and score) with its 95% CI, and whether it excludes 0
("separated at 95%"). The expected orders are

- Arschmallows (5 players, rule set standard): random < greedy < heuristic < ismcts < belief
  (``belief``: the search over the events' belief tracker, protocol 2);
- Take4 (4 players): random < greedy < denial < jointpick (``jointpick``: the search over the
  opponents' simultaneous picks, protocol 2).

The search bots search by *iterations*, never by the clock (``--iterations``, default 20
worlds a decision for ``ismcts`` and ``belief``, the count at which ``mallows compare``
certifies them in bots/README.md, "Strength"; ``jointpick`` at its default, 3000 with
racing, 100 in ``--smoke``): the same seed gives the same table on any machine under any
load. ``--budget SECONDS`` gives the two
Arschmallows searchers a time budget instead (the ladder of earlier versions; its table then
depends on the machine). A full run is 150 Arschmallows deals = 750 matches (each with two
searching seats: about 25 minutes on one idle core) and 2000 Take4 deals = 8000 matches;
``--quick`` plays 15 and 300 deals: enough to see the order, not to certify it (``mallows
compare`` certifies one pair with a sequential test); ``--smoke`` one and two (CI runs it).

    python benchmarks/ladder.py [--quick] [--game arschmallows|take4|both]
                                [--deals-arschmallows N] [--deals-take4 N]
                                [--iterations N | --budget SECONDS] [--workers 2] [--seed 2026]
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.games import get_game
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

Z95 = 1.959963984540054
#: Generous time limits: on a loaded shared machine a 0.02 s decision can stall past the
#: platform's default 1 s; the bots keep to their own budgets, the ladder measures strength.
LIMITS = Limits(decision_seconds=10.0, match_seconds=3600.0)


def _match(task: tuple) -> tuple:
    """Play one match; return (seed index, rotation, places by bot index, scores by bot
    index, forfeit flags by bot index)."""
    game, rules, index, rotation, seed, names = task
    k = len(names)
    seating = [(rotation + s) % k for s in range(k)]  # seat s gets bot seating[s]
    options = get_game(game).make_options(rules, {})
    handles = [load_bot(names[b]).handle(LIMITS) for b in seating]
    record = play_match(game, options, seed, handles, [names[b] for b in seating])
    result = record["result"]
    places = [0.0] * k
    scores = [0.0] * k
    forfeits = [0] * k
    for seat, b in enumerate(seating):
        places[b] = result["ranks"][seat] + 1
        if game == "arschmallows":
            scores[b] = result["totals"][seat]
        else:
            scores[b] = 1.0 if seat in result["winners"] else 0.0
        forfeits[b] = result["forfeits"][seat] or 0
    return index, rotation, places, scores, forfeits


def mean_ci(xs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% CI (normal approximation over independent deals)."""
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return m, math.inf
    return m, Z95 * statistics.stdev(xs) / math.sqrt(len(xs))


def run_game(
    game: str,
    names: list[str],
    deals: int,
    seed: int,
    workers: int,
    rules: str | None = None,
    label: dict | None = None,
) -> dict:
    k = len(names)
    tasks = [
        (game, rules, i, r, seeding.child_seed(seed, i), names)
        for i in range(deals)
        for r in range(k)
    ]
    t0 = time.perf_counter()
    if workers > 1:
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            out = pool.map(_match, tasks, chunksize=max(1, len(tasks) // (workers * 8)))
    else:
        out = list(map(_match, tasks))
    elapsed = time.perf_counter() - t0
    # per deal, per bot: means over the rotations
    place = [[0.0] * k for _ in range(deals)]
    score = [[0.0] * k for _ in range(deals)]
    forfeits = [0] * k
    reasons: list[str] = []
    for index, _rotation, places, scores, ff in out:
        for b in range(k):
            place[index][b] += places[b] / k
            score[index][b] += scores[b] / k
            if ff[b]:
                forfeits[b] += 1
                reasons.append(f"{names[b]} (deal {index}): {ff[b]}")
    return {
        "game": game,
        "names": names,
        "labels": label or {},
        "deals": deals,
        "matches": deals * k,
        "place": place,
        "score": score,
        "forfeits": forfeits,
        "reasons": reasons,
        "seconds": elapsed,
    }


def report(res: dict, score_name: str, lower_score_better: bool) -> list[str]:
    names, k = res["names"], len(res["names"])
    lines = [
        f"== {res['game']}: {k} players, {res['deals']} deals x {k} seat rotations = "
        f"{res['matches']} matches ({res['seconds']:.0f} s) ==",
        "place: mean place, 1-based (1 = first); 95% CI over deals",
        f"{'bot':<22} {'matches':>7}  {'mean place':>18}  {score_name:>22}  forfeits",
    ]
    for b, name in enumerate(names):
        shown = res["labels"].get(name, name)
        pm, pc = mean_ci([d[b] for d in res["place"]])
        sm, sc = mean_ci([d[b] for d in res["score"]])
        if res["game"] == "take4":
            score_text = f"{100 * sm:6.1f}% +- {100 * sc:4.1f}%"
        else:
            score_text = f"{sm:8.1f} +- {sc:5.1f}"
        lines.append(
            f"{shown:<22} {res['matches']:>7}  {pm:8.3f} +- {pc:5.3f}  "
            f"{score_text:>22}  {res['forfeits'][b]:>8}"
        )
    lines.append(
        "paired comparisons over shared deals (stronger minus weaker; negative "
        "place difference = the stronger bot places better):"
    )
    all_sep = True
    for b in range(k - 1):
        lo, hi = names[b], names[b + 1]
        dp = [d[b + 1] - d[b] for d in res["place"]]
        ds = [d[b + 1] - d[b] for d in res["score"]]
        pm, pc = mean_ci(dp)
        sm, sc = mean_ci(ds)
        sep_place = pm + pc < 0
        sep_score = (sm + sc < 0) if lower_score_better else (sm - sc > 0)
        all_sep &= sep_place
        lines.append(
            f"  {res['labels'].get(hi, hi)} vs {res['labels'].get(lo, lo)}: place "
            f"{pm:+.3f} +- {pc:.3f} ({'separated' if sep_place else 'NOT separated'}"
            f" at 95%), {score_name} {sm:+.3f} +- {sc:.3f} "
            f"({'separated' if sep_score else 'NOT separated'} at 95%)"
        )
    for reason in res["reasons"][:5]:
        lines.append(f"  forfeit: {reason[:300]}")
    lines.append(
        f"  expected order {' < '.join(res['labels'].get(n, n) for n in names)}: "
        f"{'holds at 95% for every adjacent pair' if all_sep else 'NOT established'}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smaller run (about a minute)")
    ap.add_argument("--game", choices=("arschmallows", "take4", "both"), default="both")
    ap.add_argument("--deals-arschmallows", type=int, default=None)
    ap.add_argument("--deals-take4", type=int, default=None)
    ap.add_argument("--iterations", type=int, default=20, help="worlds a searched decision")
    ap.add_argument("--budget", type=float, default=None, help="seconds instead (load-dependent)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    add_smoke(ap)
    args = ap.parse_args(argv)
    if args.smoke:
        args.workers, args.deals_arschmallows, args.deals_take4 = 1, 1, 2
    deals_a = args.deals_arschmallows or (15 if args.quick else 150)
    deals_t = args.deals_take4 or (300 if args.quick else 2000)
    print(f"ladder: seed {args.seed}, {args.workers} worker(s)", flush=True)
    if args.game in ("arschmallows", "both"):
        search = (
            f"iterations={args.iterations}" if args.budget is None else f"budget={args.budget:g}"
        )
        ismcts, belief = f"ismcts:{search}", f"belief:{search}"
        res = run_game(
            "arschmallows",
            ["random", "greedy", "heuristic", ismcts, belief],
            deals_a,
            args.seed,
            args.workers,
            rules="standard",
        )
        print("\n".join(report(res, "mean total (lower better)", True)), flush=True)
        print()
    if args.game in ("take4", "both"):
        joint = "jointpick:iterations=100" if args.smoke else "jointpick"
        res = run_game(
            "take4", ["random", "greedy", "denial", joint], deals_t, args.seed, args.workers
        )
        print("\n".join(report(res, "win rate", False)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
