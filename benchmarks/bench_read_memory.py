"""Benchmark: the peak memory of every command that reads many stored records.

    python benchmarks/bench_read_memory.py hunt [--keys 20] [--deals 10]
    python benchmarks/bench_read_memory.py paths [--matches 10000 100000] [--only report]

``hunt`` builds, under ``--keys`` fresh secret keys (one new database each: other bot seeds,
other matches), the 52 small tournaments of the field that once drove ``mallows export`` to
23 GB (every Arschmallows rule and option set at 2-6 seats and every Take4 option set at 2-4
seats, ``--deals`` deals each, through the real run path in this process), then runs
``mallows export --db`` on each database with its standard output to a pipe and prints the
export's peak resident memory, its exit status and the largest stored record.

``paths`` builds databases of ``--matches`` stored matches (``bigdb.build``) and prints the
peak memory of each read path over each of them: ``export``, ``export --trajectories``,
``report``, ``replay``, ``db check``, ``ratings`` (recomputed), ``tournament show``, the
whole-history fit a ladder's standings come from (``ratings --system plackett-luce``) and
``serve`` answering its index and the pages it links to; and over a database of one comparison
of as many matches (``bigdb.build_compare``) ``compare``'s resume and its ``tournament show``. The
figure that matters is whether a path's peak grows with the number of records.

Every command runs as the real console script in a child process, its address space capped
(``--cap-mb``, default 4096), so a path that allocates without bound fails with an out-of-memory
error instead of taking the machine with it: the peak is read from the kernel
(``wait4``'s ``ru_maxrss``).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

MALLOWS = Path(sys.executable).with_name("mallows")

ARSCHMALLOWS_VARIANTS: list[tuple[str, dict]] = [
    ("standard", {}),
    ("supermallows", {}),
    ("standard", {"table_cards": 4}),
    ("standard", {"table_cards": 2, "rounds": 2}),
    ("standard", {"table_cards": 10, "rounds": 2}),
    ("standard", {"final_turns": False, "next_starter": "highest_round"}),
    ("supermallows", {"caller_strictly_lowest": False, "double_negative": True}),
    ("standard", {"max_turns_per_round": 5, "rounds": 2}),
]
TAKE4_VARIANTS: list[dict] = [
    {},
    {"max_rounds": 6},
    {"rank_losers_by_progress": True},
    {"max_rounds": 9, "rank_losers_by_progress": True},
]
LIMITS = {"decision_seconds": 30.0, "match_seconds": 600.0}


def field(deals: int) -> list[dict]:
    """The 52 tournament definitions (as a TOML file would give them), every seed distinct."""
    out: list[dict] = []

    def add(game: str, players: int, bots: list[str], rules: str | None, options: dict) -> None:
        t = {
            "name": f"t{len(out) + 1:02d}",
            "game": game,
            "players": players,
            "deals": deals,
            "seed": 1000 + len(out),
            "bots": bots,
            "options": options,
            "limits": dict(LIMITS),
        }
        if rules:
            t["rules"] = rules
        out.append(t)

    for players in (2, 3, 4, 5, 6):
        bots = ["random", "random:call=0.05", "greedy", "heuristic", "random:call=0.3"]
        bots += ["random:call=0.1"] if players == 6 else []
        for rules, options in ARSCHMALLOWS_VARIANTS:
            add("arschmallows", players, bots, rules, options)
    for players in (2, 3, 4):
        for options in TAKE4_VARIANTS:
            add("take4", players, ["random", "greedy", "denial", "random:call=0.2"], None, options)
    return out


def build_field(db: Path, deals: int) -> int:
    """Play the whole field into a new database ``db`` (a fresh secret key); matches stored."""
    from mallows.results.store import Store
    from mallows.runner.executor import InProcessExecutor
    from mallows.tournaments.run import run_tournament
    from mallows.tournaments.roundrobin.spec import parse_tournament

    store = Store(db)
    for definition in field(deals):
        run_tournament(parse_tournament(definition), store, InProcessExecutor())
    n = store.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    store.close()
    return n


def peak(args: list[str], cap_mb: int, timeout: float = 1800.0) -> tuple[float, int, float]:
    """(peak resident MB, exit status, seconds) of ``mallows ARGS``, its output drained."""

    def cap() -> None:
        limit = cap_mb << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        [str(MALLOWS), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        preexec_fn=cap,
        env=env,
    )
    assert proc.stdout is not None
    deadline = t0 + timeout
    while proc.stdout.read(1 << 16):
        if time.perf_counter() > deadline:
            proc.kill()
            break
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024, proc.returncode, time.perf_counter() - t0


def largest_record(db: Path) -> tuple[int, int]:
    """(largest stored compressed record, largest decoded size its frame claims) in bytes."""
    import zstandard

    con = sqlite3.connect(db)
    stored = claimed = 0
    for (blob,) in con.execute("SELECT record_z FROM matches WHERE record_z IS NOT NULL"):
        stored = max(stored, len(blob))
        try:
            claimed = max(claimed, zstandard.get_frame_parameters(blob).content_size)
        except zstandard.ZstdError:
            pass
    con.close()
    return stored, claimed


def hunt(keys: int, deals: int, cap_mb: int, keep: Path | None) -> None:
    print(
        f"{'key':>4} {'records':>8} {'build s':>8} {'export MB':>10} {'exit':>5} "
        f"{'export s':>9} {'largest z':>10} {'claims':>10}",
        flush=True,
    )
    worst = 0.0
    for k in range(keys):
        folder = Path(tempfile.mkdtemp(prefix="mallows-hunt-"))
        db = folder / "field.db"
        t0 = time.perf_counter()
        n = build_field(db, deals)
        built = time.perf_counter() - t0
        mb, code, secs = peak(["export", "--db", str(db)], cap_mb)
        stored, claimed = largest_record(db)
        worst = max(worst, mb)
        print(
            f"{k:>4} {n:>8} {built:>8.0f} {mb:>10.1f} {code:>5} {secs:>9.1f} {stored:>10} "
            f"{claimed:>10}",
            flush=True,
        )
        if keep is not None and (code != 0 or mb > 300):
            shutil.copy(db, keep / f"field-{k}.db")
        shutil.rmtree(folder)
    print(f"worst export peak over {keys} keys: {worst:.1f} MB", flush=True)


PATHS: list[tuple[str, list[str]]] = [
    ("export", ["export", "--db", "{db}"]),
    ("export --trajectories", ["export", "--trajectories", "--db", "{db}"]),
    ("report", ["report", "--db", "{db}", "-o", "{out}/site"]),
    ("replay", ["replay", "big/0", "--db", "{db}"]),
    ("db check", ["db", "check", "--db", "{db}"]),
    ("ratings", ["ratings", "--db", "{db}"]),
    ("tournament show", ["tournament", "show", "big", "--db", "{db}"]),
    # the whole-history fit a ladder reads its standings from, over the stored results
    ("ratings (whole-history fit)", ["ratings", "--system", "plackett-luce", "--db", "{db}"]),
]
# over a database holding one comparison of as many stored matches (``bigdb.build_compare``):
# its resume (the stored pairs read into the test, then nothing left to play) and its page
COMPARE_PATHS: list[tuple[str, list[str]]] = [
    (
        "compare (resume)",
        [
            "compare",
            "greedy",
            "random",
            "--game",
            "take4",
            "--name",
            "cmp",
            "--max-matches",
            "{matches}",
            "--db",
            "{cmp}",
            "-q",
        ],
    ),
    ("tournament show (compare)", ["tournament", "show", "cmp", "--db", "{cmp}"]),
]


def serve_peak(db: Path, pages: int = 40, timeout: float = 600.0) -> tuple[float, int]:
    """(peak resident MB of ``mallows serve`` over ``db``, pages fetched): the index and up to
    ``pages`` pages it links to (leaderboards, bot pages, match lists, replays), one at a time,
    then the server's high-water mark read from the kernel before it is stopped."""
    import re
    import urllib.request

    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    proc = subprocess.Popen(
        [str(MALLOWS), "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"(http://\S+?)/index.html", line)
        if not found:
            raise RuntimeError(f"serve did not start: {line!r}")
        base = found.group(1)
        deadline = time.perf_counter() + timeout

        def get(path: str) -> str:
            with urllib.request.urlopen(
                base + path, timeout=max(1.0, deadline - time.perf_counter())
            ) as r:
                return r.read().decode("utf-8", "replace")

        index = get("/index.html")
        links = list(dict.fromkeys(re.findall(r'href="/?((?:t|b|g|m)/[^"#?]+)"', index)))
        fetched = 1
        for link in links[:pages]:
            page = get("/" + link)
            fetched += 1
            for more in re.findall(r'href="/?((?:b|m)/[^"#?]+)"', page)[:2]:
                if fetched < pages:
                    get("/" + more)
                    fetched += 1
        with open(f"/proc/{proc.pid}/status") as f:
            hwm = next(int(x.split()[1]) for x in f if x.startswith("VmHWM:"))
        return hwm / 1024, fetched
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def paths(sizes: list[int], cap_mb: int, only: list[str] | None = None) -> None:
    """``only``: just these read paths (by label; ``serve`` for the server)."""
    import bigdb

    results: dict[str, list[float]] = {}
    for matches in sizes:
        folder = Path(tempfile.mkdtemp(prefix="mallows-paths-"))
        db, cmp = folder / "big.db", folder / "cmp.db"
        bigdb.build(db, matches)
        bigdb.build_compare(cmp, matches)
        for label, template in PATHS + COMPARE_PATHS:
            if only and label not in only:
                continue
            args = [a.format(db=db, out=folder, cmp=cmp, matches=matches) for a in template]
            mb, code, _ = peak(args, cap_mb)
            # compare's own exit status says its verdict (0 H1, 1 H0, 3 none): 2 and 70 fail
            ok = code == 0 or (label.startswith("compare") and code in (1, 3))
            results.setdefault(label, []).append(mb if ok else -mb)
        if not only or "serve" in only:
            mb, fetched = serve_peak(db)
            results.setdefault(f"serve ({fetched} pages)", []).append(mb)
        shutil.rmtree(folder)
    head = "".join(f"{f'{m:,} matches':>16}" for m in sizes)
    print(f"{'read path':<28}{head}   (peak resident MB; negative: the command failed)")
    for label, figures in results.items():
        print(f"{label:<28}" + "".join(f"{v:>16.1f}" for v in figures))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    from smoke import add_smoke

    add_smoke(ap)  # --smoke: the read paths over one small database
    sub = ap.add_subparsers(dest="what")
    h = sub.add_parser("hunt")
    h.add_argument("--keys", type=int, default=20)
    h.add_argument("--deals", type=int, default=10)
    h.add_argument("--keep", type=Path, default=None, help="copy suspicious databases here")
    p = sub.add_parser("paths")
    p.add_argument("--matches", type=int, nargs="+", default=[10_000, 100_000])
    p.add_argument(
        "--only", nargs="+", default=None, help="just these read paths (e.g. report serve)"
    )
    for s in (h, p):
        s.add_argument("--cap-mb", type=int, default=4096)
    a = ap.parse_args()
    if a.smoke:
        # every builder and measuring function once, over one small database each
        paths(
            [300], 4096, only=["export", "ratings (whole-history fit)", "compare (resume)", "serve"]
        )
    elif a.what is None:
        ap.error("say what to measure: hunt or paths")
    elif a.what == "hunt":
        hunt(a.keys, a.deals, a.cap_mb, a.keep)
    else:
        paths(a.matches, a.cap_mb, a.only)


if __name__ == "__main__":
    main()
