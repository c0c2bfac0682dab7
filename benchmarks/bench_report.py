"""Report speed: how long ``mallows report`` takes for a database, and what it writes.

Times ``Site.write`` (what ``mallows report`` runs: every leaderboard with its charts, a page
per bot, a replay page per match computed by the engine) over the given database, and prints
the wall time, the number of files and matches, matches per second and the site's size. Make the
demo's database first (800 matches):

    mallows tournament run tournaments/demo.toml --db /tmp/demo.db
    python benchmarks/bench_report.py --db /tmp/demo.db [--out /tmp/site]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from mallows.report.site import Site
from mallows.results.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", required=True, type=Path)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="mallows-report-"))
    store = Store(args.db, readonly=True)
    matches = sum(t["done"] for t in store.tournaments())
    t0 = time.perf_counter()
    files = Site(store).write(out)
    wall = time.perf_counter() - t0
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"report: {files} files for {matches} matches in {wall:.1f} s "
          f"({matches / wall:.0f} matches/s), {size / 1e6:.1f} MB in {out}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} "
          f"(the report runs in one process)")


if __name__ == "__main__":
    main()
