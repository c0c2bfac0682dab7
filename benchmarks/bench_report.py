"""Report size and speed: what ``mallows report`` writes per match, before and after the
compact replay data.

For each tournament of the database, times ``Site.write`` (what ``mallows report`` runs) twice
in the same run: with a replay page per match (``--replay-pages``, the old default: "before")
and with the tournament's replays in a few compressed data files read by one replay page (the
default: "after"). Prints for each: files, bytes, disk use, wall time, the bytes that grow with
the matches (replay pages, data files, match-list pages) per match, and the projected size of
a report of 10^5 such matches (the fixed pages plus 10^5 times the per-match bytes). Target:
about 100 MB for 10^5 matches.

Without ``--db`` it plays a database of real matches first (distinct deals: records that
share nothing but their structure, as a real tournament's do), a Take4 tournament of
``--take4`` 2-player matches and an Arschmallows one of ``--arsch`` 3-player matches:

    python benchmarks/bench_report.py [--take4 2000] [--arsch 300]
    python benchmarks/bench_report.py --db results.db

(``bigdb.py``'s synthetic databases repeat one record, which compresses unrealistically well:
use real matches for the "after" figure.)
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mallows.report.data import slug
from mallows.report.site import Site
from mallows.results.store import Store
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

PROJECTED = 100_000
TAKE4 = """name = "bench-take4"
game = "take4"
players = 2
deals = {deals}
seed = 26
bots = ["random", "greedy", "denial", "random:call=0.2", "random:call=0.5"]
"""
ARSCH = """name = "bench-arsch"
game = "arschmallows"
players = 3
deals = {deals}
seed = 26
bots = ["random", "greedy", "heuristic", "random:call=0.3"]
"""


def play(folder: Path, take4: int, arsch: int) -> Path:
    """A database of real matches: ``take4`` Take4 and ``arsch`` Arschmallows ones (rounded up
    to whole deals)."""
    db = folder / "bench.db"
    mallows = str(Path(sys.executable).with_name("mallows"))
    # matches a deal: 5 bots 2 seats, every pair both ways (20); 4 bots 3 seats (12)
    for name, text, matches, per_deal in (("take4", TAKE4, take4, 20), ("arsch", ARSCH, arsch, 12)):
        if matches <= 0:
            continue
        spec = folder / f"{name}.toml"
        spec.write_text(text.format(deals=max(1, -(-matches // per_deal))))
        t0 = time.perf_counter()
        subprocess.run(
            [mallows, "tournament", "run", str(spec), "--db", str(db), "--workers", "1", "--quiet"],
            check=True,
            capture_output=True,
        )
        print(f"played the {name} tournament in {time.perf_counter() - t0:.1f} s")
    return db


def measure(store: Store, name: str, replay_data: bool, out: Path) -> dict:
    t0 = time.perf_counter()
    files = Site(store, tournament=name, replay_data=replay_data).write(out)
    wall = time.perf_counter() - t0
    growing = [out / "m", out / "d", out / "t" / slug(name)]
    total = disk = grows = 0
    for p in out.rglob("*"):
        if p.is_file():
            st = p.stat()
            total += st.st_size
            disk += st.st_blocks * 512
            if any(g in p.parents for g in growing):
                grows += st.st_size
    return {"files": files, "bytes": total, "disk": disk, "wall": wall, "grows": grows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "--db",
        type=Path,
        default=None,
        help="an existing database (default: play one of real matches)",
    )
    ap.add_argument("--take4", type=int, default=2000, help="Take4 matches to play")
    ap.add_argument("--arsch", type=int, default=300, help="Arschmallows matches to play")
    ap.add_argument(
        "--keep",
        action="store_true",
        help="keep the sites (and the played database) and print where",
    )
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.take4, args.arsch = 10, 3
    work = Path(tempfile.mkdtemp(prefix="mallows-bench-report-"))
    try:
        run(args, work)
    finally:
        if args.keep:
            print(f"sites in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, work: Path) -> None:
    db = args.db or play(work, args.take4, args.arsch)
    store = Store(db, readonly=True)
    for t in store.tournaments():
        n = store.count_matches(t["name"])
        if not n:
            continue
        print(f"\n{t['name']} ({t['game']}, {n} matches)")
        rows = {}
        for label, replay_data in (
            ("before (a page per match)", False),
            ("after (compact data files)", True),
        ):
            m = measure(store, t["name"], replay_data, work / f"site-{int(replay_data)}")
            per = m["grows"] / n
            projected = (m["bytes"] - m["grows"]) + per * PROJECTED
            rows[replay_data] = projected
            print(
                f"  {label:27s} {m['files']:6d} files, {m['bytes'] / 1e6:7.2f} MB "
                f"({m['disk'] / 1e6:.2f} MB on disk), {m['wall']:5.1f} s "
                f"({n / m['wall']:.0f} matches/s); {per:7.0f} bytes per match -> "
                f"{projected / 1e6:6.1f} MB for {PROJECTED:,} matches"
            )
        print(f"  after / before: {rows[True] / rows[False]:.3f} of the size")
    print(
        f"\nmachine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} "
        f"(the report runs in one process)"
    )


if __name__ == "__main__":
    main()
