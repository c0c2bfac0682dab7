"""``mallows serve`` on a big database: how long and how big its pages are, cold, and whether
requests fail or wait while a tournament writes.

Builds a database of ``--matches`` synthetic stored matches (``bigdb.py``: 150,000 by default,
about 40 s) unless ``--db`` names one, starts the real ``mallows serve`` on it, and prints for
the index, a tournament page, a page of its match list and a replay: the wall time of the
first (cold) request and its size, then again once the background boards are ready. Then it
starts a tournament run writing into the same database (``--workers 1``) and fires
``--requests`` requests from 8 threads at once, printing how many failed and the slowest.
The issue's bar: index and tournament page under 1 s and 1 MB; no request fails.

    python benchmarks/bench_serve.py [--db /tmp/big.db] [--matches 150000]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bigdb import build
from mallows.report.data import slug
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

MALLOWS = str(Path(sys.executable).with_name("mallows"))
RUN = """name = "{name}"
game = "take4"
players = 2
deals = 20000
seed = 3
bots = ["random", "greedy", "denial"]
"""


def fetch(url: str) -> tuple[int, int, float]:
    t0 = time.perf_counter()
    try:
        with urllib.request.urlopen(url, timeout=60) as r:
            size = len(r.read())
            status = r.status
    except urllib.error.HTTPError as e:
        status, size = e.code, 0
    except OSError:
        status, size = -1, 0
    return status, size, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--matches", type=int, default=150_000)
    ap.add_argument("--requests", type=int, default=200)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.matches, args.requests = 100, 2
    folder = Path(tempfile.mkdtemp(prefix="mallows-bench-serve-"))
    db = args.db
    if db is None or not db.exists():
        db = db or folder / "big.db"
        print(f"building {db}: {args.matches} matches ... {build(db, args.matches):.1f} s")
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        line = proc.stdout.readline()
        base = re.search(r"(http://\S+):(\d+)/", line)
        root = f"{base.group(1)}:{base.group(2)}"
        t = slug("big")
        pages = {
            "index": "/index.html",
            "tournament page": f"/t/{t}.html",
            "match list page 100": f"/t/{t}/100.html",
            "replay": f"/m/{t}/77.html",
        }
        for when in ("cold", "warm (boards computed)"):
            for what, path in pages.items():
                status, size, wall = fetch(root + path)
                print(
                    f"{when:>22}  {what:<20} {wall * 1000:7.0f} ms  {size / 1e3:8.1f} KB  "
                    f"(HTTP {status})"
                )
            if when == "cold":
                time.sleep(1)
                deadline = time.monotonic() + 180
                while time.monotonic() < deadline:  # until the full board has replaced the partial
                    status, size, wall = fetch(root + pages["tournament page"])
                    body = urllib.request.urlopen(root + pages["tournament page"]).read()
                    if b"are being computed" not in body:
                        break
                    time.sleep(2)
        toml = folder / "writer.toml"
        writer_name = f"writer-{os.getpid()}"
        toml.write_text(RUN.format(name=writer_name))
        # its stderr to a file: a pipe nobody reads until the end could fill and block it
        writer_log = (folder / "writer.log").open("w+b")
        writer = subprocess.Popen(
            [MALLOWS, "tournament", "run", str(toml), "--db", str(db), "--workers", "1", "--quiet"],
            stdout=subprocess.DEVNULL,
            stderr=writer_log,
            start_new_session=True,
            # Ctrl-C's default, as in a terminal: a shell's background job (``cmd &``, a CI
            # script's) inherits SIGINT ignored, and the SIGINT below would be lost
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        time.sleep(2)
        urls = [root + p for p in (list(pages.values()) + [f"/t/{slug(writer_name)}.html"])]
        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(fetch, [urls[i % len(urls)] for i in range(args.requests)]))
        still_writing = writer.poll() is None
        if still_writing:
            os.killpg(writer.pid, signal.SIGINT)
        try:
            writer.wait(60)
        except subprocess.TimeoutExpired:
            os.killpg(writer.pid, signal.SIGKILL)
            writer.wait()
            writer_log.seek(0)
            raise SystemExit(
                "the writer (mallows tournament run) did not stop within 60 s of its SIGINT; "
                f"the end of its stderr: {writer_log.read().decode(errors='replace')[-2000:]}"
            ) from None
        if not still_writing:
            writer_log.seek(0)
            print("the writer ended early:", writer_log.read().decode(errors="replace")[-500:])
        failed = sum(1 for s, _, _ in results if s != 200)
        slowest = max(w for _, _, w in results)
        print(
            f"while a run writes{' (it was still writing at the end)' if still_writing else ''}:"
            f" {args.requests} requests from 8 threads, {failed} failed, slowest "
            f"{slowest * 1000:.0f} ms, median "
            f"{sorted(w for _, _, w in results)[len(results) // 2] * 1000:.0f} ms"
        )
        print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(10)


if __name__ == "__main__":
    main()
