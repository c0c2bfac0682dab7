"""Benchmark (a): the coordinator's ceiling. Pre-played results of both games go through the
real storing-and-rating path (``run_tournament``: store each arriving batch in one
transaction, compress the records, rate in schedule order in the rating thread, save the
final tables) with no play, on one core; matches per second.

    python benchmarks/bench_coordinator.py [--preplay 2000] [--matches 20000] [--batch 32]

For each game (4 seats, five random-bot variants), ``--preplay`` distinct matches are first
played in this process (their rate is one worker's matches per second: the baseline). Then a
replay executor hands the coordinator ``--matches`` outcomes in groups of ``--batch`` (as Ray
returns them), reusing the pre-played outcomes in turn under the schedule's indices, into a
fresh database. The process is pinned to one CPU for the whole run, so the rating thread and the
storing path share one core. ceiling / one worker's rate = how many workers one coordinator
can feed. Target: >= 2,000 matches/s for 4-seat Arschmallows.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity import capacity  # noqa: E402

from mallows.results.store import Store  # noqa: E402
from mallows.runner.executor import Executor  # noqa: E402
from mallows.runner.worker import play_job  # noqa: E402
from mallows.tournaments.run import jobs_for, run_tournament  # noqa: E402
from mallows.tournaments.roundrobin.schedule import schedule  # noqa: E402
from mallows.tournaments.roundrobin.spec import parse_tournament  # noqa: E402
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["random:call=0.01", "random", "random:call=0.1", "random:call=0.2", "random:call=0.4"]
TARGET = 2000


class ReplayExecutor(Executor):
    """Hands back pre-played outcomes for the jobs it is given, ``batch`` at a time."""

    kind = "replay"

    def __init__(self, outcomes: list, batch: int):
        self.outcomes, self.batch = outcomes, batch

    def run_batches(self, jobs, expected=None):
        group = []
        for job in jobs:
            o = self.outcomes[job.index % len(self.outcomes)]
            group.append(dataclasses.replace(o, index=job.index))
            if len(group) == self.batch:
                yield group
                group = []
        if group:
            yield group


def tournament(game: str, deals: int, name: str):
    return parse_tournament(
        {
            "name": name,
            "game": game,
            "players": 4,
            "deals": deals,
            "seed": 2026,
            "secret": False,  # shipped bots; scheduled directly, without a key
            "bots": BOTS,
        }
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preplay", type=int, default=2000)
    ap.add_argument("--matches", type=int, default=20000)
    ap.add_argument("--batch", type=int, default=32)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.preplay, args.matches, args.batch = 40, 40, 8
    os.chdir(ROOT)
    print(capacity(), flush=True)
    cpu = sorted(os.sched_getaffinity(0))[-1]
    os.sched_setaffinity(0, {cpu})
    print(f"pinned to CPU {cpu}; load average {os.getloadavg()[0]:.1f}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="mallows-coord-"))
    ok = True
    print(
        f"{'game':<14}{'one worker/s':>13}{'coordinator/s':>15}{'store s':>9}{'rate s':>8}"
        f"{'workers fed':>13}"
    )
    for game in ("arschmallows", "take4"):
        deals = -(-args.matches // 20)
        t = tournament(game, deals, f"coord-{game}")
        pre = jobs_for(t, schedule(t)[: args.preplay])
        t0 = time.perf_counter()
        outcomes = [play_job(j) for j in pre]
        worker_rate = len(outcomes) / (time.perf_counter() - t0)
        assert all(o.error is None for o in outcomes)
        store = Store(folder / f"{game}.db")
        summary = run_tournament(t, store, ReplayExecutor(outcomes, args.batch))
        assert store.count_matches(t.name) == t.match_count() == summary.played
        store.close()
        rate = summary.played / summary.wall
        print(
            f"{game:<14}{worker_rate:>13.0f}{rate:>15.0f}{summary.storage_seconds:>9.2f}"
            f"{summary.ratings_seconds:>8.2f}{rate / worker_rate:>13.1f}",
            flush=True,
        )
        ok &= rate >= TARGET or game != "arschmallows"
    print(
        f"{args.matches} matches per game in groups of {args.batch}; 'store s' and 'rate s' "
        f"are the seconds spent storing (compressing, committing) and rating (in the rating "
        f"thread, on the same core); workers fed = coordinator/s / one worker/s"
    )
    print(
        f"target: >= {TARGET} matches/s for 4-seat Arschmallows on one core: "
        f"{'met' if ok else 'NOT met'}"
    )
    return 0 if ok or args.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
