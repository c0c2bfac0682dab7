"""Benchmark: the wire cost of a decision, protocol 1 against protocol 2 (issue 23, item 6).

Every seat of whole matches of each game is an isolated bot (a subprocess hosted by
``mallows.agents.host``, in its sandbox where this machine can make one); the same bot code
(``wire_bot.py``: the random policy) speaks protocol 1, protocol 2 with ``history = "delta"``,
protocol 2 with ``"full"``, protocol 2 (delta) with ``observation = "step"`` (the act carries
the events, ``legal_actions`` and whose step it is: "v2 step"), and the same with the bot
folding its events into the whole observation at every decision ("v2 step+fold": what a bot
that wants the whole observation pays, and what a host that folded for it would), on the same
seeds, interleaved seed by seed so that the modes
share the machine's noise, and so the same decisions cross the wire. ``--table one`` measures
the worst case for protocol 2 instead: one isolated bot (seat 0) among in-process random bots,
so that its events cover every other seat's turn too.

Per decision of the measured seats it prints the bytes the platform sent (the ``act`` line)
and the bot answered, and the time: the handle's round trip (encode, pipe, the bot, decode)
plus the platform's work to make what is sent (the observation, in protocol 2 with the
seat's events, ``Story.deliver``; ``state.observation`` in protocol 1: one timed call a
decision in both), so the figure is all the platform spends on a decision. The median is the figure
to read on a shared machine (the mean carries every other process's interruptions). Beside
them: the physical floor, a raw one-byte pipe round trip between two processes.

Run: ``python benchmarks/bench_wire.py [--matches M] [--players N] [--table all|one]
[--sandbox on|off]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from mallows.agents import history as history_module
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.runner.match import play_match

sys.path.insert(0, str(Path(__file__).parent))
from bench_isolation import pipe_floor  # noqa: E402  (the same floor as bench_isolation)
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

BOT = str(Path(__file__).with_name("wire_bot.py"))
MODES = {
    "v1": "protocol=1",
    "v2 delta": "protocol=2:history=delta",
    "v2 full": "protocol=2:history=full",
    "v2 step": "protocol=2:history=delta:observation=step",
    "v2 step+fold": "protocol=2:history=delta:observation=step:fold=1",
}


class Meter:
    """Counts what one handle sends and receives for decisions (the bytes its pipe channel
    writes and the reply lines it reads)."""

    def __init__(self, handle):
        self.handle = handle
        self.sent = self.received = self.decisions = 0
        channel = handle.channel
        write, readline = channel._write, channel._readline
        deciding = [False]

        def counting_write(data, *args):
            deciding[0] = data.startswith(b'{"type":"act"')
            if deciding[0]:
                self.sent += len(data)
                self.decisions += 1
            return write(data, *args)

        def counting_readline(*args):
            line = readline(*args)
            if deciding[0]:
                self.received += len(line) + 1
            return line

        channel._write, channel._readline = counting_write, counting_readline


class Preparing:
    """Times what the platform does to make a decision's message, for the measured seats:
    ``state.observation`` (protocol 1) or ``Story.deliver`` (2)."""

    def __init__(self, measured: set[int]):
        self.measured, self.spent = measured, 0.0
        self.each: list[float] = []
        self.saved: list = []

    def wrap(self, owner, name: str, seat_at: int) -> None:
        original = getattr(owner, name)
        self.saved.append((owner, name, original))

        def timed(*args):
            t0 = time.perf_counter()
            try:
                return original(*args)
            finally:
                if args[seat_at] in self.measured:
                    took = time.perf_counter() - t0
                    self.spent += took
                    self.each.append(took)

        setattr(owner, name, timed)

    def restore(self) -> None:
        for owner, name, original in reversed(self.saved):
            setattr(owner, name, original)


def play(game: str, mode: str, seed: int, players: int, limits: Limits, table: str):
    params = dict(p.split("=") for p in MODES[mode].split(":"))
    spec = load_bot(BOT)
    spec.params = params
    isolated = players if table == "all" else 1
    handles = [spec.handle(limits) for _ in range(isolated)]
    meters = [Meter(h) for h in handles]
    module = get_game(game)
    prep = Preparing(set(range(isolated)))
    if mode == "v1":
        prep.wrap(
            type(module.new_state(module.make_options(), players, SeededChance(0))),
            "observation",
            1,
        )
    else:
        prep.wrap(history_module.Story, "deliver", 1)
    try:
        others = [load_bot("random").handle() for _ in range(players - isolated)]
        record = play_match(game, module.make_options(), seed, [*handles, *others])
    finally:
        prep.restore()
    assert not any(record["result"]["forfeits"]), record["result"]["forfeits"]
    assert all(h.protocol == (1 if mode == "v1" else 2) for h in handles)
    assert all(
        h.observation_mode == ("step" if "step" in mode else "full" if "v2" in mode else None)
        for h in handles
    )
    times = [t for h in handles for t in h.times]
    return {
        "decisions": sum(m.decisions for m in meters),
        "sent": sum(m.sent for m in meters),
        "back": sum(m.received for m in meters),
        "times": times,
        "prep": prep.spent,
        "preps": prep.each,
        "events": record["events"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=8)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--table", choices=("all", "one"), default="all")
    parser.add_argument(
        "--sandbox",
        choices=("on", "off"),
        default=None,
        help="default: on where this machine can make a sandbox",
    )
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:
        args.matches = 1
    from mallows.agents import sandbox

    mode = args.sandbox or ("on" if sandbox.problem() is None else "off")
    limits = Limits(sandbox=mode, decision_seconds=5.0, start_seconds=30.0)
    who = "every seat" if args.table == "all" else "seat 0 (the others in-process)"
    print(
        f"isolated bots: subprocess, sandbox {mode}, in {who}; {args.matches} matches per "
        f"game and protocol, {args.players} seats"
    )
    print(
        f"{'game':<13} {'protocol':<12} {'decisions':>9} {'B sent/dec':>11} "
        f"{'B back/dec':>11} {'µs/dec p50':>11} {'µs/dec mean':>12} {'of it prep':>11}"
    )
    summary = []
    for game in ("arschmallows", "take4"):
        runs: dict[str, list[dict]] = {m: [] for m in MODES}
        for seed in range(args.matches):
            played = {m: play(game, m, seed, args.players, limits, args.table) for m in MODES}
            texts = {repr(p["events"]) for p in played.values()}
            assert len(texts) == 1, "the same seed must give the same match in every mode"
            for m, figures in played.items():
                runs[m].append(figures)
        figures = {}
        for m, rs in runs.items():
            decisions = sum(r["decisions"] for r in rs)
            times = [t for r in rs for t in r["times"]]
            prep = sum(r["prep"] for r in rs) / decisions
            sent = sum(r["sent"] for r in rs) / decisions
            back = sum(r["back"] for r in rs) / decisions
            prep_p50 = statistics.median([t for r in rs for t in r["preps"]])
            p50 = statistics.median(times) + prep_p50
            mean = sum(times) / decisions + prep
            figures[m] = (sent, p50)
            print(
                f"{game:<13} {m:<12} {decisions:>9} {sent:>11.0f} {back:>11.0f} "
                f"{p50 * 1e6:>11.1f} {mean * 1e6:>12.1f} {prep_p50 * 1e6:>11.1f}"
            )
        v1 = figures["v1"]
        for m in ("v2 delta", "v2 step", "v2 step+fold"):
            v2 = figures[m]
            below = v2[0] < v1[0] and v2[1] < v1[1]
            summary.append(
                f"{game}: {m} / v1 = {v2[0] / v1[0]:.2f} in bytes sent per "
                f"decision, {v2[1] / v1[1]:.2f} in time per decision (median) "
                f"({'below' if below else 'NOT below'} v1 in both)"
            )
    for line in summary:
        print(line)
    print(
        f"physical floor: a raw one-byte pipe round trip takes {pipe_floor() * 1e6:.1f} µs; "
        f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
