"""Benchmark: matches per second for tournaments, in-process and on a local Ray with 2 workers,
in one run; the CPU per match of each; and the share of wall time spent on storage and ratings.

    python benchmarks/bench_tournament.py [FILE ...] [--workers 2] [--repeat 3] [--json]

FILEs default to tournaments/arschmallows-reference.toml (the shipped bots) and
benchmarks/random-field.toml (random bots only). Each executor plays each whole tournament into
its own fresh database, with one secret key drawn for the whole benchmark (as ``--key``
replays), so both play the very same matches. Both are warmed alike first: the same few
matches, in-process and on Ray one match a task so that every Ray worker has started and
imported. Ray's start-up and the warm-ups are timed apart, so the rates are steady-state
throughput. Each file is played ``--repeat`` times on each executor (in-process first, with no
Ray daemons beside it), and the medians are compared (a file of 400 matches plays in about 2 s, where one run is at the
mercy of a passing load). CPU per match: this process's CPU and, on Ray, its workers' (``ray::`` processes,
from ``/proc``). Target (issue 35): Ray on 2 workers at least 1.8x in-process for both files,
on a quiet machine, printed beside the machine's own capacity measured in the same run (two
CPU-bound processes against one: the ceiling of any speed-up). Both executors must give the
same table.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")

from mallows.runner.cluster import RayExecutor  # noqa: E402
from mallows.runner.executor import InProcessExecutor  # noqa: E402
from mallows.seeding import fresh_key  # noqa: E402
from mallows.tournaments.roundrobin.schedule import schedule  # noqa: E402
from mallows.results.store import Store  # noqa: E402
from mallows.tournaments.run import jobs_for, run_tournament  # noqa: E402
from mallows.tournaments.roundrobin.spec import load_tournament  # noqa: E402
from capacity import capacity  # noqa: E402  (benchmarks/, beside this file)
from smoke import add_smoke  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: one secret key for every run: each fresh database would draw its own
#: (``tournaments.secrecy``) and the executors would play different matches
KEY = fresh_key()


def ray_workers_cpu() -> float:
    """CPU seconds used so far by this machine's Ray worker processes (titled ``ray::...``),
    from ``/proc``; they outlive a run, so a run's share is the difference."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if not Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"ray::"):
                continue
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def measure(t, executor, db: Path) -> dict:
    store = Store(db)
    cpu0, workers0 = time.process_time(), ray_workers_cpu()
    s = run_tournament(t, store, executor, key=KEY)
    driver, workers = time.process_time() - cpu0, ray_workers_cpu() - workers0
    cpu = driver + workers  # this process's and its Ray workers'
    table = [
        (r["bot"], round(r["mu"], 9), round(r["sigma"], 9))
        for r in store.ratings("tournament", t.name)
    ]
    store.close()
    return {
        "executor": s.executor,
        "matches": s.played,
        "wall": s.wall,
        "rate": s.played / s.wall,
        "storage": s.storage_seconds,
        "ratings": s.ratings_seconds,
        "share": (s.storage_seconds + s.ratings_seconds) / s.wall,
        "cpu_per_match": cpu / max(1, s.played),
        "cpu_driver": driver,
        "cpu_workers": workers,
        "table": table,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "files",
        nargs="*",
        default=[
            str(ROOT / "tournaments" / "arschmallows-reference.toml"),
            str(ROOT / "benchmarks" / "random-field.toml"),
        ],
    )
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=None)
    ap.add_argument(
        "--repeat", type=int, default=3, help="runs of each file on each executor, alternated"
    )
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.workers, args.repeat = 1, 1
        args.files = [str(ROOT / "benchmarks" / "random-field.toml")]
    os.chdir(ROOT)  # ./bots is the project's: the shipped bots run in-process
    tournaments = [load_tournament(f) for f in args.files]
    tmp = Path(tempfile.mkdtemp(prefix="mallows-bench-"))
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    machine = capacity()  # the ceiling of any speed-up on this machine now, in the same run
    print(machine, flush=True)

    # both executors warmed alike: the same warm-up matches first (imports, the bots' loading)
    first = tournaments[0]
    warm = dataclasses.replace(first, secret=False, name=f"{first.name}-warmup")  # shipped bots
    warm_jobs = schedule(warm)[: 2 * args.workers]
    list(InProcessExecutor().run(jobs_for(warm, warm_jobs)))
    # each file ``--repeat`` times on each executor, in-process first (no Ray daemons running
    # beside it), and the medians compared: one short run is at the mercy of a passing load
    runs: dict[str, dict[str, list[dict]]] = {t.name: {"in": [], "ray": []} for t in tournaments}
    for rep in range(args.repeat):
        for t in tournaments:
            a = measure(t, InProcessExecutor(), tmp / f"{t.name}-in-{rep}.db")
            runs[t.name]["in"].append(a)
            print(f"{t.name} run {rep + 1}: in-process {a['rate']:.1f} matches/s", flush=True)

    t0 = time.perf_counter()
    ray_exec = RayExecutor(args.workers, batch_size=args.batch_size)
    start = time.perf_counter() - t0
    t0 = time.perf_counter()
    # start every worker: one match a task, two tasks a worker (at the default first batch of
    # 4 matches, the 2 * workers matches went as one task, and the second worker's process
    # start and imports, about 0.8 s, were timed as play)
    ray_exec.batch_size = 1
    list(ray_exec.run(jobs_for(warm, warm_jobs)))
    ray_exec.batch_size = args.batch_size
    warmup = time.perf_counter() - t0
    try:
        for rep in range(args.repeat):
            for t in tournaments:
                b = measure(t, ray_exec, tmp / f"{t.name}-ray-{rep}.db")
                runs[t.name]["ray"].append(b)
                print(
                    f"{t.name} run {rep + 1}: ray x{args.workers} {b['rate']:.1f} matches/s",
                    flush=True,
                )
    finally:
        ray_exec.close()

    print(
        f"\nRay start {start:.1f} s and warm-up {warmup:.1f} s, not counted below; "
        f"load average {os.getloadavg()[0]:.1f} at the end; medians of {args.repeat} runs"
    )
    header = (
        f"{'tournament':<24}{'matches':>8}{'in-process/s':>14}{'ray x' + str(args.workers) + '/s':>11}"
        f"{'speed-up (range)':>22}{'CPU ms/match':>14}{'store+rate share':>18}{'same table':>12}"
    )
    print(header)
    ok = True
    figures = []
    for t in tournaments:
        ins, rays = runs[t.name]["in"], runs[t.name]["ray"]
        a, b = _median_run(ins), _median_run(rays)
        speedup = b["rate"] / a["rate"]
        each = sorted(r["rate"] / i["rate"] for i, r in zip(ins, rays))
        same = all(r["table"] == ins[0]["table"] for r in ins + rays)
        ok &= same
        print(
            f"{t.name:<24}{a['matches']:>8}{a['rate']:>14.1f}{b['rate']:>11.1f}"
            f"{speedup:>9.2f}x ({each[0]:.2f}-{each[-1]:.2f})"
            f"{1e3 * a['cpu_per_match']:>7.2f} /{1e3 * b['cpu_per_match']:>5.2f}"
            f"{100 * a['share']:>8.1f}% /{100 * b['share']:>5.1f}%"
            f"{str(same):>12}"
        )
        figures.append(
            {
                "tournament": t.name,
                "in_process": ins,
                "ray": rays,
                "speedup": speedup,
                "speedups": each,
                "same_table": same,
            }
        )
    print(
        "speed-up: the median Ray rate over the median in-process rate, with the range of the"
        " runs' own ratios; store+rate share: time spent on storage and ratings, in-process /"
        " on Ray, as a share of each run's wall time (on Ray it overlaps with play); CPU"
        " ms/match: this process's CPU and, on Ray, its workers' (from /proc), per match,"
        " in-process / on Ray (of the median run)"
    )
    print(machine)
    print("target: Ray on 2 workers >= 1.8x in-process for each file, on a quiet machine")
    if args.json:
        print(json.dumps({"ray_start": start, "warmup": warmup, "runs": figures}, default=str))
    return 0 if ok or args.smoke else 1


def _median_run(runs: list[dict]) -> dict:
    """The run of median rate (the lower middle one of an even count)."""
    return sorted(runs, key=lambda r: r["rate"])[(len(runs) - 1) // 2]


if __name__ == "__main__":
    sys.exit(main())
