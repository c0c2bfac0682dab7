"""Benchmark (b): a simulated large cluster. A local Ray with ``--cpus`` logical CPUs (32) on
this machine plays Take4 matches between bots that sleep ``--sleep`` seconds (50 ms) per
decision, so the work is waiting, not CPU; matches per second against the ideal.

    python benchmarks/bench_cluster.py [--cpus 32] [--sleep 0.05] [--matches 1200]

The ideal is ``cpus / match duration``, the duration measured first by playing a few matches
one after another in this process (no contention). Then the whole run path (lazy schedule,
``RayExecutor`` flow control, storing, rating) plays ``--matches`` matches; Ray's start and its
workers' first batch are timed apart (warm-up), the rate is over the rest. The bots are
``sleepy`` (random play after a sleep; written to a temporary bots folder) and run in the
worker's process (MALLOWS_ISOLATE=0), as a trusted bot would. Target: >= 80% of ideal.
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
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

SLEEPY = '''
"""sleepy: plays like random after sleeping MALLOWS_SLEEPY_SECONDS per decision."""
import os, random, time
from mallows.agents.policy import random_action

class Bot:
    games = ("arschmallows", "take4")

    def __init__(self, tag: str = ""):
        self.rng = random.Random(0)
        self.sleep = float(os.environ.get("MALLOWS_SLEEPY_SECONDS", "0.05"))

    def match_start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation):
        time.sleep(self.sleep)
        return random_action(observation, self.rng)
'''


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpus", type=int, default=32)
    ap.add_argument("--sleep", type=float, default=0.05)
    ap.add_argument("--matches", type=int, default=1200)
    ap.add_argument("--sample", type=int, default=3)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.cpus, args.sleep, args.matches, args.sample = 2, 0.0, 40, 1
    folder = Path(tempfile.mkdtemp(prefix="mallows-cluster-"))
    (folder / "bots").mkdir()
    (folder / "bots" / "sleepy.py").write_text(SLEEPY)
    os.environ.update(
        MALLOWS_BOTS_DIR=str(folder / "bots"),
        MALLOWS_ISOLATE="0",
        MALLOWS_SLEEPY_SECONDS=str(args.sleep),
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
    )
    print(capacity(), flush=True)

    from mallows import seeding
    from mallows.results.store import Store
    from mallows.runner.cluster import RayExecutor
    from mallows.runner.worker import play_job
    from mallows.tournaments.run import jobs_for, run_tournament
    from mallows.tournaments.roundrobin.schedule import schedule
    from mallows.tournaments.roundrobin.spec import parse_tournament

    bots = [f"sleepy:tag={c}" for c in "abcde"]
    deals = -(-args.matches // 20)  # 5 tables x 4 rotations x deals
    t = parse_tournament(
        {
            "name": "cluster",
            "game": "take4",
            "players": 4,
            "deals": deals,
            "seed": 2026,
            "bots": bots,
        }
    )
    # the sample is scheduled here, not through a store: key its secret deals with a key of
    # its own (as a database's key would)
    t = dataclasses.replace(t, chance=seeding.Chance(t.derivation, seeding.fresh_key(), t.secret))
    sample = [play_job(j) for j in jobs_for(t, schedule(t)[: args.sample])]
    assert all(o.error is None for o in sample), sample[0].error
    duration = sum(o.seconds for o in sample) / len(sample)
    ideal = args.cpus / duration
    print(
        f"one match: {duration:.2f} s alone ({args.sample} played in this process); ideal "
        f"on {args.cpus} CPUs: {ideal:.1f} matches/s",
        flush=True,
    )

    t0 = time.perf_counter()
    executor = RayExecutor(args.cpus)
    start = time.perf_counter() - t0
    warm = parse_tournament(
        {"name": "warm-up", "game": "take4", "players": 4, "deals": 1, "seed": 1, "bots": bots}
    )
    warm = dataclasses.replace(warm, chance=t.chance)  # keyed as the sample above
    folder_db = folder / "cluster.db"
    t0 = time.perf_counter()
    list(executor.run(jobs_for(warm, list(schedule(warm)) + list(schedule(warm))[:12])))
    warmup = time.perf_counter() - t0
    print(
        f"Ray start {start:.1f} s, warm-up ({args.cpus} matches at once) {warmup:.1f} s: not "
        f"counted",
        flush=True,
    )
    arrivals: list[float] = []
    durations: list[float] = []

    def on_outcome(outcome, spec, live) -> None:
        arrivals.append(time.perf_counter())
        durations.append(outcome.seconds)

    try:
        store = Store(folder_db)
        summary = run_tournament(t, store, executor, on_outcome=on_outcome)
    finally:
        executor.close()
    rate = summary.played / summary.wall
    # steadiness: matches per 5-second window over the middle of the run
    first, last = arrivals[0], arrivals[-1]
    windows = []
    w = first + 5
    while w + 5 <= last:
        windows.append(sum(1 for a in arrivals if w <= a < w + 5) / 5)
        w += 5
    print(
        f"played {summary.played} matches in {summary.wall:.1f} s: {rate:.1f} matches/s = "
        f"{100 * rate / ideal:.0f}% of ideal ({ideal:.1f}/s); load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    inside = sum(durations) / len(durations)
    print(
        f"a match took {inside:.2f} s on average inside the run ({duration:.2f} s alone: the "
        f"rest is this machine's contention); against {args.cpus} / {inside:.2f} s = "
        f"{args.cpus / inside:.1f}/s the run reached {100 * rate * inside / args.cpus:.0f}% "
        f"(what flow control and the coordinator lose)"
    )
    if windows:
        print(
            f"per 5 s window (after the first): min {min(windows):.1f}, max "
            f"{max(windows):.1f} matches/s"
        )
    ok = rate >= 0.8 * ideal
    print(f"target: >= 80% of ideal: {'met' if ok else 'NOT met'}")
    return 0 if ok or args.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
