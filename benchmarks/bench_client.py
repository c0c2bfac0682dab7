"""Benchmark: what the protocol client over a channel costs, a decision and a whole run.

Figures, each the median of ``--repeat`` measurements:

1. a decision's round trip in-process (``InProcessBot.act`` of a bot that returns at once)
   against calling the bot's ``act`` directly: the client's and the in-process channel's cost;
2. a decision's round trip to a bot process (``SubprocessBot.act``, ``sandbox = "off"``, an
   echo bot) against the pipe's physical cost (one line there and back between two processes,
   no protocol): the client's and the pipe channel's cost; with ``--sandboxed``, the same bot
   sandboxed (frozen between decisions, as in a tournament);
3. whole runs: ``--matches`` Take4 matches of 3 shipped ``random`` bots in-process, and the
   same with user copies of ``random`` in their own processes (``BotPool``: reused across the
   matches, ``sandbox = "off"``, or sandboxed with ``--sandboxed``), in matches per second.

``--against DIR`` measures a second checkout too (its ``platform/`` first on ``sys.path``, in
a fresh interpreter), alternating the two ``--repeat`` times, and prints this tree's figures
against that one's as ratios (above 1: this tree is slower), so both come from the same run
on the same machine under the same load.

Run: ``python benchmarks/bench_client.py [--against DIR] [--repeat N] [--sandboxed]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

HERE = Path(__file__).resolve()

ECHO_BOT = r"""
import os, sys
buf = b""
while True:
    while b"\n" not in buf:
        chunk = os.read(0, 65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    if line.startswith(b'{"type":"hello"'):
        os.write(1, b'{"type":"hello","protocol":1,"name":"echo","version":"1","games":[]}\n')
    elif line.startswith(b'{"type":"quit"'):
        sys.exit(0)
    elif line.startswith(b'{"type":"act"'):
        os.write(1, b'{"type":"action","action":{"x":1}}\n')
    else:
        os.write(1, b'{"type":"ok"}\n')
"""


class Quick:
    """A bot that answers at once."""

    def act(self, observation: dict) -> dict:
        return {"x": 1}


def _median_call(fn, n: int) -> float:
    clock = time.perf_counter
    times = []
    for _ in range(n):
        t0 = clock()
        fn()
        times.append(clock() - t0)
    return statistics.median(times)


def in_process(n: int) -> dict:
    from mallows.agents.protocol import InProcessBot

    bot = Quick()
    handle = InProcessBot(bot, "quick")
    obs = {"x": 1}
    handle.start({"seed": 1})
    return {
        "in-process decision, us": _median_call(lambda: handle.act(obs), n) * 1e6,
        "direct call, us": _median_call(lambda: bot.act(obs), n) * 1e6,
    }


def pipe_echo(n: int) -> float:
    """One line there and back between two processes over pipes, no protocol."""
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    child = subprocess.Popen(
        [
            sys.executable,
            "-S",
            "-c",
            "import os\nwhile True:\n    d = os.read(0, 4096)\n    if not d: break\n"
            "    os.write(1, d)",
        ],
        stdin=a_r,
        stdout=b_w,
    )
    os.close(a_r)
    os.close(b_w)
    line = b'{"type":"act","observation":{"x":1}}\n'

    def once() -> None:
        os.write(a_w, line)
        os.read(b_r, 4096)

    for _ in range(200):
        once()
    result = _median_call(once, n)
    os.close(a_w)
    child.wait()
    os.close(b_r)
    return result


def process(n: int, sandbox: str) -> float:
    from mallows.agents.process import SubprocessBot
    from mallows.agents.protocol import Limits

    bot = SubprocessBot(
        "echo",
        [sys.executable, "-S", "-c", ECHO_BOT],
        limits=Limits(decision_seconds=5.0, match_seconds=1e9, sandbox=sandbox),
        bot_paths=[],
        python=True,
    )
    bot.handshake(time.monotonic() + 30)
    try:
        for _ in range(200):
            bot.act({"x": 1})
        bot.times.clear()
        for _ in range(n):
            bot.act({"x": 1})
        return statistics.median(bot.times)
    finally:
        bot.close()


def runs(matches: int, sandbox: str) -> dict:
    from mallows.agents.pool import BotPool
    from mallows.agents.protocol import Limits
    from mallows.agents.registry import load_bot
    from mallows.games import get_game
    from mallows.runner.match import play_match

    options = get_game("take4").make_options()
    limits = Limits(sandbox=sandbox)
    trusted = [load_bot("random") for _ in range(3)]
    t0 = time.perf_counter()
    for seed in range(matches):
        play_match("take4", options, seed, [s.handle(limits) for s in trusted])
    inproc = matches / (time.perf_counter() - t0)
    source = (HERE.parents[1] / "bots" / "random.py").read_text()
    with tempfile.TemporaryDirectory() as folder:
        copies = []
        for i in range(3):
            path = Path(folder) / f"rnd{i}.py"
            path.write_text(source)
            copies.append(load_bot(str(path)))
        with BotPool() as pool:
            t0 = time.perf_counter()
            for seed in range(matches):
                handles = [pool.handle(s, limits, ("take4", seed)) for s in copies]
                play_match("take4", options, seed, handles)
            isolated = matches / (time.perf_counter() - t0)
    return {"in-process run, matches/s": inproc, f"{sandbox} run, matches/s": isolated}


def measure(n: int, matches: int, sandboxed: bool) -> dict:
    """Every figure, once, in this interpreter."""
    out = in_process(n * 10)
    out["pipe decision, us"] = process(n, "off") * 1e6
    out["pipe echo, us"] = pipe_echo(n) * 1e6
    if sandboxed:
        out["sandboxed decision, us"] = process(n, "on") * 1e6
    out.update(runs(matches, "on" if sandboxed else "off"))
    return out


def _child(tree: Path, args: argparse.Namespace) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree / "platform"))
    command = [sys.executable, str(HERE), "--json", "-n", str(args.n), "--matches"]
    command += [str(args.matches)] + (["--sandboxed"] if args.sandboxed else [])
    # run from the tree itself: its own bots/ are the shipped ones (a bots/ in the current
    # folder would shadow them, and the copies found there would not run in-process)
    done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("-n", type=int, default=2000, help="decisions per round-trip figure")
    ap.add_argument("--matches", type=int, default=40, help="matches per whole run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--sandboxed", action="store_true", help="also the sandbox's figures")
    ap.add_argument("--against", type=Path, help="another checkout to compare with")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.n, args.matches, args.repeat = 20, 1, 1
    if args.json:
        print(json.dumps(measure(args.n, args.matches, args.sandboxed)))
        return
    trees = [("this tree", HERE.parents[1])]
    if args.against is not None:
        trees.append(("against", args.against.resolve()))
    figures: dict[str, list[dict]] = {label: [] for label, _ in trees}
    for _ in range(args.repeat):
        for label, tree in trees:  # alternating: the same load for both
            figures[label].append(
                _child(tree, args)
                if len(trees) > 1  # each tree in an interpreter of its own
                else measure(args.n, args.matches, args.sandboxed)
            )
    medians = {
        label: {k: statistics.median(f[k] for f in runs_) for k in runs_[0]}
        for label, runs_ in figures.items()
    }
    mine = medians["this tree"]
    print(f"median of {args.repeat}; {args.n} decisions a figure, {args.matches} matches a run")
    for key, value in mine.items():
        line = f"  {key}: {value:.2f}"
        if "against" in medians:
            theirs = medians["against"][key]
            # a ratio of costs: above 1 means this tree is slower
            ratio = theirs / value if key.endswith("matches/s") else value / theirs
            line += f" (against {theirs:.2f}: cost ratio {ratio:.3f})"
        print(line)
    print(
        f"  client and in-process channel over a direct call: "
        f"{mine['in-process decision, us'] / mine['direct call, us']:.1f}x; "
        f"client and pipe channel over the pipe alone: "
        f"{mine['pipe decision, us'] / mine['pipe echo, us']:.2f}x"
    )


if __name__ == "__main__":
    main()
