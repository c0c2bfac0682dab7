"""Benchmark (d): bytes per stored match, both games, 4-seat random-bot tournaments.

    python benchmarks/bench_storage.py [--deals 50]

Each game plays two round robins of five random-bot variants at four seats (5 tables x 4
rotations x ``deals`` matches each) in this process into a fresh database through the real run
path. The first one trains the game's dictionary and pays the file's fixed costs (a page per
table and index, the dictionary); the figure is what the second one adds to the file per match
(rows, indexes, page slack: what a long tournament costs per match). Also printed: the whole
file per match, the compressed record, and the plain JSON record it decodes to (the baseline:
what schema 1 stored). Target: <= 1.5 KB per match for Arschmallows.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

from mallows.results.store import Store
from mallows.runner.executor import InProcessExecutor
from mallows.tournaments.run import run_tournament
from mallows.tournaments.roundrobin.spec import parse_tournament

ROOT = Path(__file__).resolve().parents[1]
BOTS = ["random:call=0.01", "random", "random:call=0.1", "random:call=0.2", "random:call=0.4"]
TARGET = 1500


def file_size(path: Path) -> int:
    con = sqlite3.connect(path)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    return path.stat().st_size + sum(p.stat().st_size for p in path.parent.glob(path.name + "-*"))


def measure(game: str, deals: int, folder: Path) -> dict:
    path = folder / f"{game}.db"
    sizes = []
    for part in ("first", "second"):
        t = parse_tournament(
            {
                "name": f"bytes-{game}-{part}",
                "game": game,
                "players": 4,
                "deals": deals,
                "seed": 2026 + len(sizes),
                "bots": BOTS,
            }
        )
        store = Store(path)
        run_tournament(t, store, InProcessExecutor())
        plain = sum(len(row["record"].encode()) for row in store.export(t.name))
        store.close()
        sizes.append(file_size(path))
    con = sqlite3.connect(path)
    n, blob = con.execute(
        "SELECT COUNT(*), SUM(LENGTH(record_z)) FROM matches WHERE tournament = ?", [t.name]
    ).fetchone()
    total = con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    dictionary = con.execute("SELECT COALESCE(SUM(LENGTH(data)), 0) FROM dictionaries").fetchone()[
        0
    ]
    con.close()
    return {
        "game": game,
        "matches": n,
        "added": (sizes[1] - sizes[0]) / n,
        "file": sizes[1] / total,
        "record": blob / n,
        "plain": plain / n,
        "dictionary": dictionary,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=50)
    args = ap.parse_args()
    os.chdir(ROOT)
    folder = Path(tempfile.mkdtemp(prefix="mallows-bytes-"))
    print(
        f"{'game':<14}{'matches':>8}{'added B/match':>15}{'file B/match':>14}{'record B':>10}"
        f"{'plain JSON B':>14}{'ratio':>7}{'dict B':>8}"
    )
    ok = True
    for game in ("arschmallows", "take4"):
        r = measure(game, args.deals, folder)
        print(
            f"{r['game']:<14}{r['matches']:>8}{r['added']:>15.0f}{r['file']:>14.0f}"
            f"{r['record']:>10.0f}"
            f"{r['plain']:>14.0f}{r['plain'] / r['record']:>6.1f}x{r['dictionary']:>8}",
            flush=True,
        )
        ok &= r["added"] <= TARGET or game != "arschmallows"
    print(
        f"target: <= {TARGET} B added to the file per stored 4-seat Arschmallows random-bot "
        f"match: {'met' if ok else 'NOT met'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
