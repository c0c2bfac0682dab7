"""Benchmark: sandboxed tournaments against in-process ones, and the sandbox's start-up cost.

1. The tournament command, as a user runs it and as the issue measured it: ``mallows tournament
   run FILE --workers 1`` (wall time of the whole command: start-up, the file's check, the
   matches, storage, ratings), both games, user copies of the shipped ``random`` bot (in a
   temporary bots folder, so they are not shipped and run sandboxed, processes reused across
   the matches of the run) against the same file with every bot in-process
   (``MALLOWS_ISOLATE=0``). Take4: 4 bots, 3 seats, 5 deals = 60 matches; Arschmallows: 5 bots,
   4 seats, 3 deals = 60 matches. Target (issue 35): sandboxed at least 0.5x in-process in
   both games.
   Then one user bot (sandboxed) against the shipped bots (in-process), as ``bots check`` and
   ``compare`` play one (``ONE_USER_BOT``): there its freezer is the only one the platform
   freezes, which costs most without the platform's frozen empty freezer (section 4).
   Each command runs ``--repeat`` times, alternating, and the median counts.
2. The same tournaments inside one process (``run_tournament`` alone, no interpreter start, no
   file check: a stricter ratio, since the in-process run then costs almost nothing but the
   games), and, for scale, the same with ``sandbox = "off"`` (the same reused processes,
   process isolation only) and, with ``--per-match``, one process per seat of every match.
3. Start-up per process: ``true`` started plainly (``subprocess``) and in its sandbox
   (``bwrap`` with every option ``mallows.agents.sandbox`` uses, its pids cgroup included),
   median of ``--starts`` each, each start after 50 ms without one (as between a tournament's
   starts); the difference is the sandbox's cost. Target: within 10 ms.
   Also the whole start of a hosted Python bot (spawn, hello, quit) with and without sandbox.

4. A decision's round trip, sandboxed (frozen between requests and thawed for each, as in a
   tournament), the same without the platform's frozen empty freezer (``cgroups._KEEPER``),
   beside the same bot process unfrozen, and the pipe's physical cost (two
   processes passing one line back and forth over pipes), measured in the same run on the
   match's CPU. Section 2 also runs the sandboxed tournaments without freezing and CPU
   placement (patched out in this process only): the issue's target is that they cost at most
   20% of the sandboxed throughput.

5. What is left, per game: the sandboxed tournament once more, untimed, counting its decisions
   and the bot processes it starts (the file's check included) and keeping the observations
   its bots were sent; a decision's cost through a hosted copy of ``random`` over those
   observations, one process per seat answering in turn on one CPU (as in a match), without
   the sandbox and in it; and the floor this sets: the in-process command plus every decision
   at process isolation's cost, with no sandbox and no process start at all, is the fastest a
   process-isolated run can be here, so the best ratio any sandbox could reach.

A worker keeps a match and its bots' processes on one CPU and starts the processes it needs
next on the others (``mallows.agents.affinity``), so the sandboxed run uses a second CPU where
there is one: the machine's capacity (two CPU-bound processes against one) and load average are
printed beside the figures.

Run: ``python benchmarks/bench_sandbox.py [--starts N] [--repeat N] [--per-match]``.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from capacity import capacity  # noqa: E402  (benchmarks/, beside this file)
from mallows.agents import sandbox
from mallows.agents.process import SubprocessBot
from mallows.agents.protocol import Limits
from mallows.seeding import fresh_key
from mallows.results.store import Store
from mallows.runner import executor, worker
from mallows.tournaments.run import run_tournament
from mallows.tournaments.roundrobin.spec import load_tournament
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

ROOT = Path(__file__).resolve().parents[1]
#: one secret key for every run of this benchmark: each fresh database would draw its own
#: (``tournaments.secrecy``), so the runs compared would deal different cards
KEY = fresh_key()
MALLOWS = Path(sys.executable).with_name("mallows")  # the console script of this environment
TARGET_RATIO = 0.5  # issue 35 (0.25 before it)
TARGET_MS = 10.0
IDLE_S = 0.05  # before each timed start: see starts()
GAMES = {"take4": (4, 3, 5), "arschmallows": (5, 4, 3)}  # bots, seats, deals: 60 matches each


def _matches(game: str) -> int:
    bots, seats, deals = GAMES[game]
    return math.comb(bots, seats) * seats * deals


class PerMatch(executor.InProcessExecutor):
    """One process per seat of every match (no pool): how isolation ran before reuse."""

    def run_batches(self, jobs, expected=None):
        for job in jobs:
            yield [worker.play_job(job)]


def _no_forfeits(store: Store, name: str) -> None:
    """Refuse a run in which a seat forfeited: its figure would time the in-process random
    policy that plays for the seat, not the bot (a sandbox that could not start, say)."""
    for match_id, record in store.records(name, only_forfeits=True):
        reasons = [r for r in json.loads(record)["result"]["forfeits"] if r]
        raise SystemExit(f"{name}: match {match_id} had a forfeit, so no figure: {reasons[0]}")


def tournament(
    folder: Path, game: str, tag: str, isolate: str, ex, sandbox_off: bool = False
) -> tuple[int, float]:
    bots, seats, deals = GAMES[game]
    path = folder / f"{game}-{tag}.toml"
    names = ", ".join(f'"u{i}"' for i in range(bots))
    path.write_text(
        f'name = "{game}-{tag}"\ngame = "{game}"\nplayers = {seats}\n'
        f"deals = {deals}\nseed = 7\nbots = [{names}]\n"
        + ('[limits]\nsandbox = "off"\n' if sandbox_off else "")
    )
    os.environ["MALLOWS_ISOLATE"] = isolate
    worker._SPECS.clear()
    t = load_tournament(path)
    store = Store(folder / f"{tag}.db")
    try:
        t0 = time.perf_counter()
        summary = run_tournament(t, store, ex, key=KEY)
        seconds = time.perf_counter() - t0
        _no_forfeits(store, t.name)
        return summary.played, seconds
    finally:
        getattr(store, "close", lambda: None)()
        os.environ.pop("MALLOWS_ISOLATE", None)


#: Section 1's second field: one user bot (sandboxed) among the shipped ones (in-process), as
#: ``bots check`` and ``compare`` play one: seats, deals, the shipped opponents (60 and 40
#: matches)
ONE_USER_BOT = {
    "take4": (3, 20, ["random", "greedy"]),
    "arschmallows": (4, 10, ["random", "greedy", "heuristic"]),
}


def _one_user_bot(game: str, folder: Path) -> tuple[int, list[str]]:
    """``ONE_USER_BOT``'s field for ``game``: (matches, its ``bots``: the user bot by path)."""
    seats, deals, shipped = ONE_USER_BOT[game]
    user = str(folder / "bots" / "u0.py")
    return math.comb(1 + len(shipped), seats) * seats * deals, [user, *shipped]


def _spread(inproc: list[float], boxed: list[float]) -> str:
    """The range of the runs' own ratios (each in-process run against the sandboxed run after
    it), for more than one run."""
    ratios = sorted(a / b for a, b in zip(inproc, boxed))
    return f" (runs {ratios[0]:.2f}-{ratios[-1]:.2f})" if len(ratios) > 1 else ""


def command(
    folder: Path, game: str, isolate: str, field: list[str] | None = None
) -> tuple[int, float]:
    """Wall time of ``mallows tournament run`` on a fresh database: (matches, seconds).
    ``field``: the bots (default: ``GAMES``' user copies ``u0``...), then ``ONE_USER_BOT``'s
    seats and deals."""
    bots, seats, deals = GAMES[game]
    if field is not None:
        seats, deals, _ = ONE_USER_BOT[game]
    path = folder / f"{game}-command.toml"
    names = ", ".join(f'"{n}"' for n in (field or [f"u{i}" for i in range(bots)]))
    path.write_text(
        f'name = "{game}"\ngame = "{game}"\nplayers = {seats}\n'
        f"deals = {deals}\nseed = 7\nbots = [{names}]\n"
    )
    db = folder / f"command-{game}-{isolate or 'sandboxed'}.db"
    db.unlink(missing_ok=True)
    env = dict(os.environ, MALLOWS_ISOLATE=isolate)
    if field is not None:  # the shipped bots from the shipped folder, the user's by its path
        env.pop("MALLOWS_BOTS_DIR", None)
    t0 = time.perf_counter()
    run = subprocess.run(
        [
            str(MALLOWS),
            "tournament",
            "run",
            str(path),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
            "--key",
            KEY.hex(),
        ],
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if run.returncode != 0:
        raise SystemExit(f"mallows tournament run failed:\n{run.stdout}{run.stderr}")
    with Store(db, readonly=True) as store:
        _no_forfeits(store, game)
        return store.count_matches(game), seconds


def starts(n: int) -> float:
    true = shutil.which("true")

    def spawn_ms(mode: str) -> float:
        """The platform's own start of a bot process running ``true``, until it has exited
        (sandbox ``off``: process isolation, the plain subprocess start; ``on``: bwrap).
        Each start follows ``IDLE_S`` without one, as in a tournament (a bot plays before the
        next starts): starts back to back would keep the kernel's cgroup migration lock warm
        and hide what moving a process into a cgroup costs after a pause (a grace period)."""
        times = []
        for _ in range(n):
            h = SubprocessBot("true", [true], limits=Limits(sandbox=mode), bot_paths=[])
            time.sleep(IDLE_S)
            t0 = time.perf_counter()
            h.spawn()
            h.proc.wait()
            h.close()
            times.append(time.perf_counter() - t0)
        return statistics.median(times) * 1000

    spawn_ms("on")  # warm up (the probe, the cgroup folder)
    plain, boxed = spawn_ms("off"), spawn_ms("on")
    cost = boxed - plain
    print(
        f"start-up of a bot process running `true` (median of {n}): plain {plain:.1f} ms, "
        f"sandboxed {boxed:.1f} ms: the sandbox costs {cost:.1f} ms a process (target <= "
        f"{TARGET_MS:g} ms: {'met' if cost <= TARGET_MS else 'NOT met'}); process limit: "
        f"{sandbox.process_limit()}"
    )

    bot = str(ROOT / "bots" / "random.py")
    hosted = 0.0
    for mode in ("off", "on"):
        times = []
        for _ in range(max(5, n // 3)):
            h = SubprocessBot(
                "random-copy",
                [sys.executable, "-P", "-m", "mallows.agents.host", bot],
                limits=Limits(sandbox=mode),
                bot_paths=[bot],
                python=True,
            )
            t0 = time.perf_counter()
            h.handshake(time.monotonic() + 30)
            h.close()
            times.append(time.perf_counter() - t0)
        label = "sandboxed" if mode == "on" else "process only"
        hosted = statistics.median(times)
        print(f"  a hosted Python bot, spawn + hello + quit ({label}): {hosted * 1000:.1f} ms")
    return hosted  # the sandboxed one's


ECHO_BOT = r"""
import os, sys
rfd, wfd = 0, 1
buf = b""
while True:
    while b"\n" not in buf:
        chunk = os.read(rfd, 65536)
        if not chunk:
            sys.exit(0)
        buf += chunk
    line, buf = buf.split(b"\n", 1)
    if line.startswith(b'{"type":"hello"'):
        os.write(wfd, b'{"type":"hello","protocol":1,"name":"echo","version":"1","games":[]}\n')
    elif line.startswith(b'{"type":"quit"'):
        sys.exit(0)
    else:
        os.write(wfd, b'{"type":"action","action":0}\n')
"""


def pipe_round_trip(n: int) -> float:
    """Median seconds of one line there and back between two processes over pipes."""
    a_r, a_w = os.pipe()
    b_r, b_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(a_w)
        os.close(b_r)
        while True:
            data = os.read(a_r, 4096)
            if not data:
                os._exit(0)
            os.write(b_w, data)
    times = []
    line = b'{"type":"act","observation":{"x":1}}\n'
    for _ in range(n):
        t0 = time.perf_counter()
        os.write(a_w, line)
        os.read(b_r, 4096)
        times.append(time.perf_counter() - t0)
    for fd in (a_w, a_r, b_w):
        os.close(fd)
    os.waitpid(pid, 0)
    os.close(b_r)
    return statistics.median(times)


def round_trips(n: int) -> None:
    from mallows.agents import affinity
    from mallows.agents.sandbox import cgroups

    with affinity.pinned() as cpus:
        bot = SubprocessBot(
            "echo",
            [sys.executable, "-S", "-c", ECHO_BOT],
            limits=Limits(decision_seconds=5.0, match_seconds=1e9),
            bot_paths=[],
            python=True,
        )
        bot.handshake(time.monotonic() + 30)
        bot.spin = len(cpus) != 1
        try:
            for _ in range(200):
                bot.act({"x": 1})
            bot.times.clear()
            for _ in range(n):
                bot.act({"x": 1})
            frozen = statistics.median(bot.times)
            # the same without the platform's frozen empty freezer (cgroups._KEEPER): where no
            # other freezer on the machine is frozen, each freeze and thaw then switches the
            # kernel's freezer on and off
            cgroups._drop_keeper(os.getpid())
            bot.times.clear()
            for _ in range(n):
                bot.act({"x": 1})
            unkept = statistics.median(bot.times)
            freezer, bot.wrapped.freezer = bot.wrapped.freezer, None
            if freezer is not None:
                freezer.thaw()
            bot.times.clear()
            for _ in range(n):
                bot.act({"x": 1})
            plain = statistics.median(bot.times)
        finally:
            bot.close()
        pipe = pipe_round_trip(n)
    how = type(freezer).__name__ if freezer is not None else "none"
    print(
        f"4. a decision's round trip (median of {n}, on CPU(s) {sorted(cpus)}): sandboxed "
        f"and frozen between requests ({how}) {frozen * 1e6:.0f} us ({unkept * 1e6:.0f} us "
        f"without the platform's frozen empty freezer), the same process "
        f"unfrozen {plain * 1e6:.0f} us (freezing costs {(frozen - plain) * 1e6:.0f} us a "
        f"decision); the pipe's physical cost (a line there and back between two "
        f"processes) {pipe * 1e6:.0f} us",
        flush=True,
    )


class _NoFreezing:
    """Freezing and CPU placement patched out of this process (for section 2's baseline);
    ``placement=True``: freezing alone (section 5)."""

    def __init__(self, placement: bool = False):
        self.placement = placement

    def __enter__(self):
        from mallows.agents import spawn
        from mallows.agents.sandbox import cgroups

        class Never:
            def __init__(self, *a):
                self.cpu_at_thaw = 0.0

            def freeze(self):
                pass

            def thaw(self):
                pass

            def cpu_seconds(self):
                return -1.0

        self._saved = (
            cgroups.BotCgroup.can_freeze,
            cgroups.BotCgroup.set_cpus,
            spawn.SignalFreezer,
        )
        cgroups.BotCgroup.can_freeze = property(lambda self: False)
        if not self.placement:
            cgroups.BotCgroup.set_cpus = lambda self, cpus: False
        spawn.SignalFreezer = Never
        return self

    def __exit__(self, *exc):
        from mallows.agents import spawn
        from mallows.agents.sandbox import cgroups

        (cgroups.BotCgroup.can_freeze, cgroups.BotCgroup.set_cpus, spawn.SignalFreezer) = (
            self._saved
        )


def _observed(folder: Path, game: str) -> tuple[int, int, list[dict]]:
    """The sandboxed tournament of ``GAMES[game]`` once more, untimed: (its decisions, the bot
    processes it started, the first observations its bots were sent)."""
    from mallows.agents.client import BotClient
    from mallows.agents.spawn import BotProcess

    seen: list[dict] = []
    counts = {"decisions": 0, "spawns": 0}
    act, popen = BotClient.act, BotProcess._popen

    def counted_act(self, observation, events=None):
        counts["decisions"] += 1
        if len(seen) < 4000:
            seen.append(observation)
        return act(self, observation, events)

    def counted_popen(self, *args, **kwargs):  # a process started (``spawn`` may be a no-op)
        counts["spawns"] += 1
        return popen(self, *args, **kwargs)

    BotClient.act, BotProcess._popen = counted_act, counted_popen  # type: ignore[method-assign]
    try:
        tournament(folder, game, "observed", "", executor.InProcessExecutor())
    finally:
        BotClient.act, BotProcess._popen = act, popen  # type: ignore[method-assign]
    return counts["decisions"], counts["spawns"], seen


def decision_cost(observations: list[dict], seats: int, mode: str) -> float:
    """Mean seconds of one decision through a hosted copy of ``random``, ``seats`` processes
    answering in turn (as a match asks its seats) on the match's one CPU, over ``observations``
    (real ones of the game): ``mode`` "off" is process isolation alone, "on" the sandbox."""
    from mallows.agents import affinity
    from mallows.agents.pool import BotPool

    bot = str(ROOT / "bots" / "random.py")
    with affinity.pinned() as cpus:
        bots = []
        try:
            for seat in range(seats):
                h = SubprocessBot(
                    f"random-copy-{seat}",
                    [sys.executable, "-P", "-m", "mallows.agents.host", bot],
                    limits=Limits(decision_seconds=5.0, match_seconds=1e9, sandbox=mode),
                    bot_paths=[bot],
                    python=True,
                )
                h.handshake(time.monotonic() + 30)
                h.start({"seed": seat, "seat": seat, "players": seats, "game": "x"})
                BotPool._place(h, cpus)
                bots.append(h)
            for i, obs in enumerate(observations[:200]):  # warm
                bots[i % seats].act(obs)
            t0 = time.perf_counter()
            for i, obs in enumerate(observations):
                bots[i % seats].act(obs)
            return (time.perf_counter() - t0) / len(observations)
        finally:
            for h in bots:
                h.close()


def floor(
    folder: Path, inproc_command: dict[str, float], inproc_match: dict[str, float], boot: float
) -> None:
    """Section 5: what is left, per game, and the best ratio process isolation alone allows
    here (no sandbox, and no process start at all): for this file's command, and for a long
    run, where the command's fixed cost and the starts (one process per seat of each bot,
    whatever the number of deals) no longer count and a match costs its in-process time
    (``inproc_match``, section 2) plus its decisions."""
    print("5. what is left, and the floor of process isolation on this machine:")
    for game in GAMES:
        bots, seats, _ = GAMES[game]
        decisions, spawned, seen = _observed(folder, game)
        off, on = decision_cost(seen, seats, "off"), decision_cost(seen, seats, "on")
        with _NoFreezing(placement=True):
            thawed = decision_cost(seen, seats, "on")
        a, m = inproc_command[game], inproc_match[game]
        best = a / (a + decisions * off)
        each = decisions / _matches(game)  # decisions a match
        long_best, long_boxed = m / (m + each * off), m / (m + each * on)

        def verdict(x: float) -> str:
            return "within reach" if x >= TARGET_RATIO else "out of reach of any sandbox here"

        print(
            f"   {game}: {decisions} decisions and {spawned} bot processes started (the "
            f"file's check included); a decision through a bot process ({seats} answering in "
            f"turn on one CPU, over the game's own observations) {off * 1e6:.0f} us without "
            f"the sandbox, {on * 1e6:.0f} us in it ({thawed * 1e6:.0f} us in it never "
            f"frozen: freezing is {(on - thawed) * 1e6:.0f} us of it): {decisions * off:.2f} s and "
            f"{decisions * on:.2f} s of decisions, {spawned * boot:.2f} s of sandboxed starts "
            f"({boot * 1000:.0f} ms each). With no sandbox and no start at all this command "
            f"would take at least {a:.2f} + {decisions * off:.2f} s: at most {best:.2f}x "
            f"in-process (target {TARGET_RATIO}x: {verdict(best)}). A long run (a match "
            f"{m * 1000:.2f} ms in-process, {each:.0f} decisions): at most {long_best:.2f}x "
            f"without the sandbox ({verdict(long_best)}), {long_boxed:.2f}x with its decision "
            f"cost",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--starts", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3, help="runs of each command (median)")
    ap.add_argument("--round-trips", type=int, default=2000, help="decisions timed in section 4")
    ap.add_argument(
        "--per-match",
        action="store_true",
        help="also run the sandboxed tournaments with one process per match",
    )
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:  # one deal a table: 12 and 20 matches
        args.starts, args.repeat, args.round_trips = 2, 1, 20
        for game, (bots, seats, _) in list(GAMES.items()):
            GAMES[game] = (bots, seats, 1)
        for game, (seats, _, shipped) in list(ONE_USER_BOT.items()):
            ONE_USER_BOT[game] = (seats, 1, shipped)
    why = sandbox.problem()
    if why:
        raise SystemExit(f"no sandbox on this machine: {why}")
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} "
        f"(shared machine: figures vary); bwrap: {sandbox.bwrap_binary()}",
        flush=True,
    )
    print(capacity(), flush=True)
    folder = Path(tempfile.mkdtemp(prefix="mallows-bench-sandbox-"))
    try:
        bots = folder / "bots"
        bots.mkdir()
        for i in range(max(b for b, _, _ in GAMES.values())):
            shutil.copy(ROOT / "bots" / "random.py", bots / f"u{i}.py")
        os.environ["MALLOWS_BOTS_DIR"] = str(bots)
        ok = True
        inproc_command: dict[str, float] = {}
        inproc_match: dict[str, float] = {}
        print(
            "1. the tournament command (mallows tournament run FILE --workers 1), "
            f"median of {args.repeat}:"
        )
        for game in GAMES:
            inproc, boxed = [], []
            for _ in range(args.repeat):
                played, seconds = command(folder, game, "0")
                inproc.append(seconds)
                played_boxed, seconds = command(folder, game, "")
                boxed.append(seconds)
                assert played == played_boxed == _matches(game), (played, played_boxed)
            a, b = statistics.median(inproc), statistics.median(boxed)
            inproc_command[game] = a
            ok = ok and a / b >= TARGET_RATIO
            print(
                f"   {game}: in-process {a:.2f} s ({played / a:.1f} matches/s), sandboxed "
                f"{b:.2f} s ({played / b:.1f} matches/s): {a / b:.2f}x{_spread(inproc, boxed)} "
                f"(target >= {TARGET_RATIO}x: {'met' if a / b >= TARGET_RATIO else 'NOT met'})",
                flush=True,
            )
        # one user bot among shipped ones: its freezer the only one (the smoke: one game)
        for game in list(GAMES)[: 1 if args.smoke else None]:
            matches, field = _one_user_bot(game, folder)
            inproc, boxed = [], []
            for _ in range(args.repeat):
                inproc.append(command(folder, game, "0", field)[1])
                played, seconds = command(folder, game, "", field)
                boxed.append(seconds)
                assert played == matches, (played, matches)
            a, b = statistics.median(inproc), statistics.median(boxed)
            print(
                f"   {game}, one user bot against {', '.join(field[1:])}: in-process "
                f"{a:.2f} s, sandboxed {b:.2f} s ({matches} matches): {a / b:.2f}x"
                f"{_spread(inproc, boxed)}",
                flush=True,
            )
        print("2. the same tournaments inside one process (run_tournament alone):")
        for game in GAMES:
            played, inproc = tournament(
                folder, game, "inprocess", "0", executor.InProcessExecutor()
            )
            inproc_match[game] = inproc / played
            _, boxed = tournament(folder, game, "sandboxed", "", executor.InProcessExecutor())
            with _NoFreezing():
                _, unfrozen = tournament(folder, game, "unfrozen", "", executor.InProcessExecutor())
            cost = 1 - unfrozen / boxed  # the share of the throughput freezing takes
            line = (
                f"   {game}: in-process {played / inproc:.1f} matches/s, sandboxed "
                f"(reused processes) {played / boxed:.1f} matches/s: {inproc / boxed:.2f}x; "
                f"without freezing and CPU placement {played / unfrozen:.1f} matches/s: "
                f"they cost {cost:.0%} of the throughput (target <= 20%: "
                f"{'met' if cost <= 0.20 else 'NOT met'})"
            )
            _, plain = tournament(
                folder, game, "plain", "", executor.InProcessExecutor(), sandbox_off=True
            )
            line += (
                f'; the same processes without the sandboxing (sandbox = "off") '
                f"{played / plain:.1f} matches/s ({inproc / plain:.2f}x)"
            )
            if args.per_match:
                _, once = tournament(folder, game, "permatch", "", PerMatch())
                line += (
                    f"; one process per match {played / once:.1f} matches/s ({inproc / once:.2f}x)"
                )
            print(line, flush=True)
        print("3. ", end="")
        boot = starts(args.starts)
        round_trips(args.round_trips)
        floor(folder, inproc_command, inproc_match, boot)
        print("tournament target " + ("met" if ok else "NOT met"))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
