"""Benchmark: ``mallows report`` from scratch, rerun with no change and rerun after 1,000 new
matches, side by side in one run (issue 35, item 4).

Builds a database of ``--matches`` + ``--new`` stored Take4 matches (``bigdb.build``) and a copy
of it as it was before the last ``--new`` were stored, then runs the real console script three
times into one folder: over the copy into a new folder ("from scratch"), over the copy again
("rerun, no change": every replay data file is used again) and over the whole database ("rerun
after N new matches": only the data files from the first new match on are replayed). Prints
for each the wall and CPU seconds (the child's own, from ``wait4``), its peak resident memory
and the machine's load average beside it; ``--check`` also writes a report of the whole
database from scratch and checks that the rerun wrote the same files, byte for byte.

    python benchmarks/bench_report_rerun.py [--matches 100000] [--new 1000] [--repeat 3] [--check]

Each of ``--repeat`` runs writes the three reports into a folder of its own; the table gives
each report's median wall time with the range of the runs.

Targets: from scratch <= 60 s, rerun after 1,000 new matches <= 5 s (10^5 matches).
(``bigdb``'s matches repeat one record, so their data files compress better than real ones;
each match is still replayed through the engine, which is the cost measured here.)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

import bigdb
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

MALLOWS = Path(sys.executable).with_name("mallows")


def report(db: Path, out: Path) -> dict:
    """One ``mallows report`` as a child process: wall and CPU seconds, peak MB, load."""
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(MALLOWS), "report", "--db", str(db), "-o", str(out)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"},
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        assert proc.stderr is not None
        raise SystemExit(f"mallows report failed: {proc.stderr.read().decode()[-2000:]}")
    return {
        "wall": wall,
        "cpu": usage.ru_utime + usage.ru_stime,
        "mb": usage.ru_maxrss / 1024,
        "load": (load + os.getloadavg()[0]) / 2,
    }


def report_here(db: Path, out: Path) -> dict:
    """The same report in this process (``--smoke``: no interpreter start-up per report)."""
    from mallows.report.site import Site
    from mallows.results.store import Store

    load, t0, c0 = os.getloadavg()[0], time.perf_counter(), time.process_time()
    with Store(db, readonly=True) as store:
        Site(store, replay_data=True).write(out)
    return {
        "wall": time.perf_counter() - t0,
        "cpu": time.process_time() - c0,
        "mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "load": (load + os.getloadavg()[0]) / 2,
    }


def tree(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.blake2b(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def before(db: Path, matches: int) -> Path:
    """A copy of ``db`` as it was when only its first ``matches`` matches were stored."""
    copy = db.with_name("before.db")
    shutil.copy(db, copy)
    con = sqlite3.connect(copy)
    with con:
        con.execute("DELETE FROM matches WHERE idx >= ?", [matches])
    con.close()
    return copy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--matches", type=int, default=100_000, help="matches before the new ones")
    ap.add_argument("--new", type=int, default=1_000, help="matches stored after the first report")
    ap.add_argument("--check", action="store_true", help="compare with a report from scratch")
    ap.add_argument("--repeat", type=int, default=3, help="runs of the three reports (medians)")
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.matches, args.new, args.repeat = 40, 20, 1  # in this process; tests check bytes
    work = Path(tempfile.mkdtemp(prefix="mallows-bench-rerun-"))
    try:
        db = work / "all.db"
        built = bigdb.build(db, args.matches + args.new)
        print(f"built {args.matches + args.new:,} matches in {built:.1f} s", flush=True)
        old = before(db, args.matches)
        run = report_here if args.smoke else report
        labels = [
            f"from scratch ({args.matches:,} matches)",
            "rerun, no change",
            f"rerun after {args.new:,} new matches",
        ]
        runs: list[list[dict]] = [[], [], []]
        for n in range(args.repeat):  # each: a new folder, the three reports in turn
            site = work / f"site-{n}"
            for i, r in enumerate((run(old, site), run(old, site), run(db, site))):
                runs[i].append(r)
        print(
            f"{'mallows report':<36}{'wall s':>9}{'(range)':>14}{'CPU s':>9}{'peak MB':>9}"
            f"{'load':>7}   medians of {args.repeat}"
        )
        for label, rs in zip(labels, runs):
            walls = sorted(r["wall"] for r in rs)
            span = f"{walls[0]:.1f}-{walls[-1]:.1f}"
            print(
                f"{label:<36}{median(walls):>9.1f}{span:>14}"
                f"{median(r['cpu'] for r in rs):>9.1f}{median(r['mb'] for r in rs):>9.1f}"
                f"{median(r['load'] for r in rs):>7.1f}"
            )
        ratio = median(r["cpu"] for r in runs[2]) / median(r["cpu"] for r in runs[0])
        print(
            f"rerun after new / from scratch: {ratio:.3f} of the CPU time ({os.cpu_count()} "
            f"CPUs; the report runs in one process)"
        )
        if args.check:
            fresh = work / "fresh"
            run(db, fresh)
            same = all(tree(work / f"site-{n}") == tree(fresh) for n in range(args.repeat))
            print(f"the rerun's site is byte for byte a report from scratch: {same}")
            if not same:
                raise SystemExit(1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
