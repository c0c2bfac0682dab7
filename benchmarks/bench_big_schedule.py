"""Benchmark (c): a tournament file of 10^7 matches. Time from starting ``mallows tournament
run`` to the first stored match, and the process's memory (RSS) while it runs, sampled every
second for ``--seconds``; then the process is killed (kill -9) and the database is checked.

    python benchmarks/bench_big_schedule.py [--seconds 60] [--workers 1]

The file: Take4, 4 seats, twelve random-bot variants: C(12, 4) = 495 tables x 4 rotations x
5,051 deals = 10,000,980 matches. Targets: first match stored within 10 s, RSS under 300 MB and
flat (the last ten seconds no higher than seconds 15 to 25 after the first match, within
10%). With
``--workers N > 1`` the RSS is the coordinator's (Ray's workers are other processes).
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

ROOT = Path(__file__).resolve().parents[1]
MALLOWS = str(Path(sys.executable).with_name("mallows"))
BOTS = ["random"] + [f"random:call=0.{i:02d}" for i in range(1, 12)]
FILE = f"""
name = "big"
game = "take4"
players = 4
deals = 5051
seed = 2026
bots = {BOTS!r}
""".replace("'", '"')


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def stored(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=1)
        try:
            return con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


#: The longest wait for the first stored match (a loaded machine starts slowly).
FIRST_WAIT = 300.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--workers", type=int, default=1)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.seconds = 3
    folder = Path(tempfile.mkdtemp(prefix="mallows-big-"))
    toml, db = folder / "big.toml", folder / "big.db"
    toml.write_text(FILE)
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
    print(
        f"load average {os.getloadavg()[0]:.1f}; {MALLOWS} tournament run (10,000,980 "
        f"matches) --workers {args.workers}",
        flush=True,
    )
    t0 = time.monotonic()
    proc = subprocess.Popen(
        [
            MALLOWS,
            "tournament",
            "run",
            str(toml),
            "--db",
            str(db),
            "--workers",
            str(args.workers),
            "--quiet",
        ],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    first = None
    samples: list[tuple[float, float, int]] = []
    try:
        # until the first match (at most FIRST_WAIT s), then --seconds more
        while (first is None and time.monotonic() - t0 < FIRST_WAIT) or (
            time.monotonic() - t0 < args.seconds + (first or 0)
        ):
            if proc.poll() is not None:
                print("the run ended early:", proc.stderr.read()[-2000:])
                return 1
            n = stored(db)
            now = time.monotonic() - t0
            if first is None and n > 0:
                first = now
                print(f"first match stored after {first:.1f} s", flush=True)
            if first is not None:
                samples.append((now, rss_mb(proc.pid), n))
                if len(samples) % 10 == 1:
                    print(
                        f"  {now:6.1f} s: RSS {samples[-1][1]:6.1f} MB, {n:,} matches stored",
                        flush=True,
                    )
            time.sleep(1.0 if first is not None else 0.1)
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
    if not samples:
        print(f"no match stored within {FIRST_WAIT:.0f} s")
        return 1
    rss = [s[1] for s in samples]
    # "early": seconds 15 to 25 after the first match (Ray's start-up is over by then)
    early = max([r for (t, r, _) in samples if first + 15 <= t <= first + 25] or rss[:10])
    late = max(rss[-10:])
    played = samples[-1][2] - samples[0][2]
    span = samples[-1][0] - samples[0][0]
    print(
        f"RSS: max {max(rss):.1f} MB; 15-25 s after the first match {early:.1f} MB, last ten seconds "
        f"{late:.1f} MB; {played:,} matches in {span:.0f} s ({played / span:.0f}/s)"
    )
    after = stored(db)
    print(f"after kill -9: {after:,} matches stored, database {db.stat().st_size / 1e6:.1f} MB")
    ok_first = first is not None and first <= 10
    ok_rss = max(rss) < 300
    ok_flat = late <= early * 1.10
    print(
        f"targets: first match within 10 s: {'met' if ok_first else 'NOT met'}; RSS under "
        f"300 MB: {'met' if ok_rss else 'NOT met'}; flat: {'met' if ok_flat else 'NOT met'}"
    )
    return 0 if (ok_first and ok_rss and ok_flat) or args.smoke else 1


if __name__ == "__main__":
    sys.exit(main())
