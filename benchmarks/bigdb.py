"""A big results database, built quickly: synthetic stored matches inserted through the store.

``build(path, matches)`` registers a Take4 tournament of 2-player matches among six shipped bots
(the schedule's own players and seeds for each index, as a run stores them), then stores
``matches`` matches whose records are one real match's record (played once, through the
engine) with each match's players and seeded random ranks: every page of the report and of
``serve`` can show them (a replay replays), without playing 150,000 matches. The leaderboards
are refreshed at the end, as a finished run leaves them. Used by ``bench_serve.py`` and
``bench_report.py``; run alone it prints how long the build took:

    python benchmarks/bigdb.py --db /tmp/big.db --matches 150000
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

from mallows.results.store import MatchRow, Store
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

BOTS = ["random", "greedy", "denial", "random:call=0.1", "random:call=0.2", "random:call=0.3"]


def _tournament(name: str, matches: int):
    from mallows.tournaments.roundrobin.spec import parse_tournament

    pairs = len(BOTS) * (len(BOTS) - 1) // 2
    deals = max(1, -(-matches // (pairs * 2)))
    return parse_tournament(
        {
            "name": name,
            "game": "take4",
            "players": 2,
            "deals": deals,
            "seed": 26,
            "secret": False,  # synthetic results of shipped bots: nothing to keep secret
            "bots": BOTS,
        },
        source="bigdb",
    )


def _record(t, spec) -> dict:
    from mallows.agents.protocol import Limits
    from mallows.agents.registry import load_bot
    from mallows.runner.match import play_match

    handles = [load_bot(b, isolate=False).handle(Limits()) for b in spec.seats]
    return play_match("take4", t.effective_options, spec.seed, handles, list(spec.seats))


def build(path: Path, matches: int, name: str = "big", chunk: int = 5000) -> float:
    """Build the database at ``path`` (which must not exist); returns the seconds it took."""
    from mallows.tournaments.run import refresh_ratings, register
    from mallows.tournaments.roundrobin.schedule import schedule

    t0 = time.perf_counter()
    t = _tournament(name, matches)
    store = Store(path)
    register(store, t)
    sched = schedule(t)
    template = _record(t, sched[0])
    _store_synthetic(store, name, sched.specs(range(min(matches, len(sched)))), template, chunk)
    refresh_ratings(store, name)
    store.close()
    return time.perf_counter() - t0


def build_compare(path: Path, matches: int, name: str = "cmp", chunk: int = 5000) -> float:
    """A database at ``path`` holding one stored comparison (``greedy`` against ``random`` at
    Take4) of ``matches`` synthetic matches, as ``mallows compare`` stores them, for its
    resume to read; returns the seconds the build took."""
    from mallows.tournaments.compare.format import keyed, register
    from mallows.tournaments.compare.spec import PairSchedule, make_comparison

    t0 = time.perf_counter()
    store = Store(path)
    c = make_comparison(
        "greedy", "random", game="take4", max_matches=matches, name=name, check_bots=False
    )
    c = keyed(store, c)
    register(store, c)
    sched = PairSchedule(c)
    template = _record(c, next(sched.specs([0])))
    _store_synthetic(store, name, sched.specs(range(min(matches, len(sched)))), template, chunk)
    store.close()
    return time.perf_counter() - t0


def _store_synthetic(store: Store, name: str, specs, template: dict, chunk: int) -> None:
    """One stored match per schedule entry of ``specs``: ``template``'s record with the
    entry's players and seed and seeded random ranks (2 seats)."""
    rng = random.Random(26)
    rows = []
    for spec in specs:
        ranks = [0, 1] if rng.random() < 0.5 else [1, 0]
        record = dict(
            template,
            players=list(spec.seats),
            seed=spec.seed,
            result=dict(template["result"], ranks=ranks),
        )
        rows.append(
            MatchRow(
                f"{name}/{spec.index}",
                name,
                spec.index,
                "take4",
                spec.table,
                spec.rotation,
                spec.deal,
                spec.seed,
                list(spec.seats),
                ranks,
                False,
                json.dumps(record, separators=(",", ":")),
                0.01,
            )
        )
        if len(rows) >= chunk:
            store.add_matches(rows)
            rows = []
    if rows:
        store.add_matches(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--db", type=Path, default=None, help="the file to build (required)")
    ap.add_argument("--matches", type=int, default=150_000)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        import tempfile

        args.matches = 20
        args.db = args.db or Path(tempfile.mkdtemp(prefix="mallows-bigdb-")) / "smoke.db"
    if args.db is None:
        ap.error("--db is required: the database file to build")
    seconds = build(args.db, args.matches)
    print(f"built {args.db}: {args.matches} matches in {seconds:.1f} s")


if __name__ == "__main__":
    main()
