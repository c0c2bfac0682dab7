"""``mallows serve`` under load: 100 clients for 30 s on loopback while a ladder plays,
p50/p99 per page, the first event of a stream, errors and the server's peak memory; beside a
baseline server on the same database when one is given.

Builds a database of ``--matches`` synthetic matches (``bigdb.py``) unless ``--db`` names one,
starts ``mallows serve`` on it (and a ``mallows ladder run`` playing into it, unless
``--no-writer``), then ``--clients`` asyncio clients each ask in turn for the index, the
tournament page, a bot's page and a replay, for ``--seconds`` seconds or ``--max-requests``
requests in all, whichever ends first (bounded in count and time; loopback only). Another
client opens ``/events`` again and again and times its first event. ``--baseline CMD`` (a
command that runs another mallows, e.g. an older checkout's: ``"python -m ..."``) is measured
the same way, one after the other, and each figure is printed with their ratio. To compare
with an older ``serve`` on the same database, unpack that version's ``platform`` folder
(``git archive REV platform | tar -x -C OLD``, plus the built ``_engine_core`` module) and give
``--baseline "env PYTHONPATH=OLD/platform python -c 'from mallows.cli import main; main()'"``.
The writer's ladder runs on the same mallows as the server it is measured beside (a newer one
would migrate an older server's database under it). An older mallows refuses a database of a
newer schema: give it ``--baseline-db``, the same matches built by its own ``bigdb.py``
(``PYTHONPATH=OLD/platform python OLD/benchmarks/bigdb.py`` builds through that version's store).

    python benchmarks/bench_serve_load.py --db big.db [--clients 100] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bigdb import build  # noqa: E402
from mallows.report.data import slug  # noqa: E402

MALLOWS = [str(Path(sys.executable).with_name("mallows"))]
LADDER = """name = "load-ladder"
game = "take4"
players = 2
seed = 5
max_matches = 200000
bots = ["random:call=0.1", "random:call=0.2", "random:call=0.3"]  # alike: never answered
[limits]
sandbox = "off"
[[questions]]
type = "order"
certainty = 0.9999
"""


async def get(port: int, path: str, timeout: float = 120.0) -> tuple[int, float]:
    """(status, seconds) of one GET over a new connection; status -1 when it failed."""
    t0 = time.perf_counter()
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), timeout)
        writer.write(
            f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n".encode()
        )
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)  # until the server closes
        writer.close()
        status = int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else -1
    except (OSError, asyncio.TimeoutError, ValueError, IndexError):
        status = -1
    return status, time.perf_counter() - t0


async def first_event(port: int, timeout: float = 120.0) -> tuple[int, float]:
    """(status, seconds until the first event) of ``/events``; 404 on a server without it."""
    t0 = time.perf_counter()
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET /events HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        status = int(head.split(b" ", 2)[1])
        if status == 200:
            while not (await asyncio.wait_for(reader.readline(), timeout)).startswith(b"event:"):
                pass
        writer.close()
    except (OSError, asyncio.TimeoutError, ValueError, asyncio.IncompleteReadError):
        status = -1
    return status, time.perf_counter() - t0


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))]


async def load(port: int, paths: list[str], clients: int, seconds: float, cap: int) -> dict:
    times: dict[str, list[float]] = {p: [] for p in [*paths, "/events (first event)"]}
    errors: dict[str, int] = {}
    deadline = time.monotonic() + seconds
    count = 0

    async def client(k: int) -> None:
        nonlocal count
        i = k
        while time.monotonic() < deadline and count < cap:
            count += 1
            path = paths[i % len(paths)]
            i += 1
            status, took = await get(port, path)
            if status == 200:
                times[path].append(took)
            else:
                errors[f"{path} {status}"] = errors.get(f"{path} {status}", 0) + 1

    async def streams() -> None:
        while time.monotonic() < deadline:
            status, took = await first_event(port)
            if status == 200:
                times["/events (first event)"].append(took)
            elif status != 404:
                errors[f"/events {status}"] = errors.get(f"/events {status}", 0) + 1
            await asyncio.sleep(0.2)

    t0 = time.monotonic()
    await asyncio.gather(*(client(k) for k in range(clients)), streams())
    return {"times": times, "errors": errors, "wall": time.monotonic() - t0}


def peak_rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


def written(db: Path) -> int:
    """Matches the writer's ladder has stored so far."""
    import sqlite3

    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as con:
        row = con.execute(
            "SELECT count(*) FROM matches WHERE tournament = 'load-ladder'"
        ).fetchone()
    return int(row[0])


def measure(command: list[str], db: Path, args: argparse.Namespace, folder: Path) -> dict:
    serve = subprocess.Popen(
        [*command, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    writer = None
    try:
        port = int(re.search(r":(\d+)/index\.html", serve.stdout.readline()).group(1))
        if not args.no_writer:
            (folder / "writer.toml").write_text(LADDER)
            writer = subprocess.Popen(
                [*command, "ladder", "run", str(folder / "writer.toml"), "--db", str(db)]
                + ["--workers", "1", "--quiet"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        t = slug("big")
        paths = ["/index.html", f"/t/{t}.html", f"/b/{slug('greedy')}.html", f"/m/{t}/7.html"]
        before = written(db)
        out = asyncio.run(load(port, paths, args.clients, args.seconds, args.max_requests))
        out["rss"] = peak_rss_mb(serve.pid)
        out["written"] = written(db) - before
        return out
    finally:
        if writer is not None:  # killed as a crash would (what it stored stays)
            os.killpg(writer.pid, signal.SIGKILL)
            writer.wait(timeout=30)
        os.killpg(serve.pid, signal.SIGTERM)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(serve.pid, signal.SIGKILL)
            serve.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, default=None)
    ap.add_argument("--matches", type=int, default=1_000_000)
    ap.add_argument("--clients", type=int, default=100)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--max-requests", type=int, default=50_000)
    ap.add_argument("--baseline", default=None, help="a command running another mallows")
    ap.add_argument("--no-writer", action="store_true")
    ap.add_argument(
        "--baseline-db",
        type=Path,
        default=None,
        help="the baseline's copy of the database (an older mallows refuses a newer schema)",
    )
    from smoke import add_smoke

    add_smoke(ap)  # --smoke: a small database, a few clients for a second, no writer
    args = ap.parse_args()
    if args.smoke:
        args.matches, args.clients, args.seconds, args.no_writer = 500, 2, 1.0, True
    folder = Path(tempfile.mkdtemp(prefix="mallows-bench-load-"))
    db = args.db
    if db is None or not db.exists():
        db = db or folder / "big.db"
        print(f"building {db}: {args.matches} matches ... {build(db, args.matches):.1f} s")
    runs = {"serve": measure(MALLOWS, db, args, folder)}
    report({"serve": runs["serve"]}, args)  # printed at once: the baseline may take long
    if args.baseline:
        runs["baseline"] = measure(shlex.split(args.baseline), args.baseline_db or db, args, folder)
        report(runs, args)


def report(runs: dict, args: argparse.Namespace) -> None:
    print(f"{args.clients} clients, {args.seconds:g} s, loopback, writer: {not args.no_writer}")
    print(f"{'page':32} {'server':8} {'answers':>8} {'p50 s':>8} {'p99 s':>8}")
    for path in runs["serve"]["times"]:
        for who, run in runs.items():
            t = run["times"][path]
            print(f"{path:32} {who:8} {len(t):8} {pct(t, 50):8.3f} {pct(t, 99):8.3f}")
        if "baseline" in runs and runs["baseline"]["times"][path] and runs["serve"]["times"][path]:
            ratio = pct(runs["baseline"]["times"][path], 99) / pct(runs["serve"]["times"][path], 99)
            print(f"{'':32} p99 baseline / serve: {ratio:.1f}x")
    for who, run in runs.items():
        errors = sum(run["errors"].values())
        print(
            f"{who}: {errors} errors {run['errors'] or ''}; wall {run['wall']:.1f} s; "
            f"peak RSS {run['rss']:.0f} MB; the ladder stored {run['written']} matches meanwhile"
        )


if __name__ == "__main__":
    main()
