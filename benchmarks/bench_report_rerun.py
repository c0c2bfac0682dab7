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

    python benchmarks/bench_report_rerun.py [--matches 100000] [--new 1000] [--check]

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
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.matches, args.new = 40, 20  # in this process; the tests check the bytes
    work = Path(tempfile.mkdtemp(prefix="mallows-bench-rerun-"))
    try:
        db = work / "all.db"
        built = bigdb.build(db, args.matches + args.new)
        print(f"built {args.matches + args.new:,} matches in {built:.1f} s", flush=True)
        old, site = before(db, args.matches), work / "site"
        run = report_here if args.smoke else report
        rows = [
            (f"from scratch ({args.matches:,} matches)", run(old, site)),
            ("rerun, no change", run(old, site)),
            (f"rerun after {args.new:,} new matches", run(db, site)),
        ]
        print(f"{'mallows report':<36}{'wall s':>9}{'CPU s':>9}{'peak MB':>9}{'load':>7}")
        for label, r in rows:
            print(f"{label:<36}{r['wall']:>9.1f}{r['cpu']:>9.1f}{r['mb']:>9.1f}{r['load']:>7.1f}")
        print(
            f"rerun after new / from scratch: {rows[2][1]['cpu'] / rows[0][1]['cpu']:.3f} of "
            f"the CPU time ({os.cpu_count()} CPUs; the report runs in one process)"
        )
        if args.check:
            fresh = work / "fresh"
            run(db, fresh)
            same = tree(site) == tree(fresh)
            print(f"the rerun's site is byte for byte a report from scratch: {same}")
            if not same:
                raise SystemExit(1)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
