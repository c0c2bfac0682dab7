"""Benchmark: decisions per second through the isolated path and in-process, same bot, same run.

The bot is the shipped ``random`` bot, once in-process (``InProcessBot``) and once isolated
(``python -m mallows.agents.host`` in its own process, JSON lines over pipes). Three measurements:

1. round trip, real observations: the observations of real matches of each game are replayed
   through both handles; the isolated time per decision minus the in-process one is the
   overhead of isolation (encode, pipe, decode, and back). Target: at most 50 µs.
2. round trip, the smallest observation: the floor of the wire (two syscalls and a context
   switch each way).
3. whole matches: the same seat played in-process and isolated, engine included.

For scale it also prints the machine's floor: a raw one-byte pipe round trip between two
Python processes (no JSON, no bot), and the load average (the machine may be shared).

Run: ``python benchmarks/bench_isolation.py [--decisions N] [--matches M]``.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import statistics
import time

from mallows import PROTOCOL_VERSION
from mallows.games import get_game
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match

TARGET_US = 50.0


class Recorder:
    """Passes decisions through to a handle and keeps the observations."""

    def __init__(self, inner, keep: list):
        self.inner, self.keep, self.name = inner, keep, inner.name

    def start(self, info):
        self.inner.start(info)

    def act(self, observation):
        self.keep.append(observation)
        return self.inner.act(observation)

    def end(self, info):
        self.inner.end(info)

    def close(self):
        self.inner.close()


def observations(game: str, count: int) -> list[dict]:
    """At least ``count`` observations from real matches of ``game`` (every seat's)."""
    module = get_game(game)
    options = module.make_options(None, None)
    kept: list[dict] = []
    seed = 0
    while len(kept) < count:
        handles = [Recorder(load_bot("random").handle(), kept) for _ in range(3)]
        play_match(game, options, seed, handles)
        seed += 1
    return kept[:count]


def per_decision(handle, obs: list[dict], info: dict, rounds: int = 7) -> float:
    """Best of ``rounds`` passes over ``obs``: seconds per decision (the best pass is the one
    least disturbed by whatever else the machine is doing)."""
    handle.start(info)
    try:
        for o in obs[:200]:  # warm up
            handle.act(o)
        best = float("inf")
        for _ in range(rounds):
            t0 = time.perf_counter()
            for o in obs:
                handle.act(o)
            best = min(best, (time.perf_counter() - t0) / len(obs))
        return best
    finally:
        handle.close()


def pipe_floor(n: int = 20000) -> float:
    """Seconds for a one-byte round trip over two pipes between two Python processes."""
    r1, w1 = os.pipe()
    r2, w2 = os.pipe()
    pid = os.fork()
    if pid == 0:  # the echo child
        for _ in range(n):
            os.write(w2, os.read(r1, 1))
        os._exit(0)
    poller = select.poll()
    poller.register(r2, select.POLLIN)
    t0 = time.perf_counter()
    for _ in range(n):
        os.write(w1, b"x")
        poller.poll(1000)
        os.read(r2, 1)
    spent = (time.perf_counter() - t0) / n
    os.waitpid(pid, 0)
    for fd in (r1, w1, r2, w2):
        os.close(fd)
    return spent


def info_for(game: str) -> dict:
    module = get_game(game)
    return {
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "options": module.make_options(None, None),
        "seat": 0,
        "players": 3,
        "seed": 1,
        "names": ["random"] * 3,
    }


def row(label: str, inproc: float, isolated: float) -> str:
    return (
        f"{label:<34} {1 / inproc:>12,.0f} {1 / isolated:>12,.0f} "
        f"{inproc * 1e6:>9.1f} {isolated * 1e6:>9.1f} {(isolated - inproc) * 1e6:>9.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--matches", type=int, default=20)
    args = parser.parse_args()

    print(
        f"{'':<34} {'in-process':>12} {'isolated':>12} {'in-proc':>9} {'isolated':>9} "
        f"{'overhead':>9}"
    )
    print(
        f"{'':<34} {'decisions/s':>12} {'decisions/s':>12} {'µs/dec':>9} {'µs/dec':>9} "
        f"{'µs/dec':>9}"
    )
    worst = 0.0
    for game in ("take4", "arschmallows"):
        obs = observations(game, args.decisions)
        size = statistics.mean(len(json.dumps(o, separators=(",", ":"))) for o in obs)
        inproc = per_decision(load_bot("random").handle(), obs, info_for(game))
        isolated = per_decision(load_bot("random", isolate=True).handle(), obs, info_for(game))
        worst = max(worst, isolated - inproc)
        print(row(f"round trip, {game} ({size:.0f} B/obs)", inproc, isolated))

    # the game is named (the random policy dispatches on it), the rest is as small as it gets
    tiny = [{"game": "take4", "phase": "end", "legal_actions": [{"type": "pass"}]}] * args.decisions
    inproc = per_decision(load_bot("random").handle(), tiny, info_for("take4"))
    isolated = per_decision(load_bot("random", isolate=True).handle(), tiny, info_for("take4"))
    print(row("round trip, smallest observation", inproc, isolated))

    for game in ("take4", "arschmallows"):
        module = get_game(game)
        options = module.make_options(None, None)
        totals = {}
        for isolate in (False, True):
            decisions, spent = 0, 0.0
            for seed in range(args.matches):
                kept: list[dict] = []
                seat0 = Recorder(load_bot("random", isolate=isolate).handle(), kept)
                others = [load_bot("random").handle() for _ in range(2)]
                t0 = time.perf_counter()
                play_match(game, options, seed, [seat0, *others])
                spent += time.perf_counter() - t0
                decisions += len(kept)
            totals[isolate] = (decisions, spent)
        d0, s0 = totals[False]
        d1, s1 = totals[True]
        assert d0 == d1, "the same seeds must give the same matches"
        print(
            f"whole matches, {game}: {args.matches} matches, {d0} decisions of the measured "
            f"seat; wall time {s0:.2f} s in-process, {s1:.2f} s isolated "
            f"({(s1 - s0) / args.matches * 1000:.1f} ms a match more, process start-up "
            f"included; {(s1 - s0) / d0 * 1e6:.0f} µs a decision all in)"
        )
    print(
        f"machine floor: a raw pipe round trip takes {pipe_floor() * 1e6:.1f} µs; load average "
        f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )
    verdict = "met" if worst <= TARGET_US / 1e6 else "NOT met"
    print(
        f"isolation overhead per decision on real observations: {worst * 1e6:.1f} µs at most "
        f"(target {TARGET_US:.0f} µs: {verdict})"
    )


if __name__ == "__main__":
    main()
