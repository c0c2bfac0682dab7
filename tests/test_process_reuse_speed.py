"""The pieces that make isolated bots cheap, each against real processes: a worker's CPU
(``agents.affinity``), spares started in the background (``agents.pool``), the platform's games
handed to a bot process (``games.PLUGINS_ENV``), and the adaptive wait for an answer
(``SubprocessBot._spin``). Their speed is measured by ``benchmarks/bench_sandbox.py``; here,
that they do what they say and break nothing.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time

import pytest

from conftest import REPO, processes_with
from mallows.agents import affinity, sandbox
from mallows.agents.pool import BotPool
from mallows.agents.process import SPIN_MISSES
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.runner.match import play_match

CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
ON = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=15.0)
OFF = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=15.0, sandbox="off")
LIMITS = ON if sandbox.problem() is None else OFF
needs_cpus = pytest.mark.skipif(
    CPUS < 2 or not hasattr(os, "sched_setaffinity"), reason="needs two CPUs and Linux affinity"
)


def cpus_of(pid: int) -> str:
    with open(f"/proc/{pid}/status") as f:
        return next(line.split()[1] for line in f if line.startswith("Cpus_allowed_list"))


@pytest.fixture
def user_random(tmp_path_factory) -> str:
    """A user's copy of the random bot: not shipped, so it runs isolated (sandboxed where the
    machine can)."""
    folder = tmp_path_factory.mktemp("userbot")
    folder.chmod(0o755)
    path = folder / "myrandom.py"
    shutil.copy(REPO / "bots" / "random.py", path)
    return str(path)


# -- affinity ------------------------------------------------------------------------------------

PIN = textwrap.dedent("""
    import sys
    from mallows.agents import affinity
    share = frozenset(map(int, sys.argv[1].split(",")))
    with affinity.pinned(share) as cpus:
        print(",".join(map(str, sorted(cpus))), flush=True)
        sys.stdin.readline()
""")


@needs_cpus
def test_two_workers_are_pinned_to_different_cpus_and_a_third_is_not_pinned():
    # the shares an executor hands its workers (``affinity.assign``), one more than CPUs
    shares = affinity.assign(affinity.current(), CPUS + 1)
    procs = []
    try:
        seen = []
        for share in shares:
            p = subprocess.Popen(
                [sys.executable, "-c", PIN, ",".join(map(str, sorted(share)))],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            procs.append(p)
            seen.append(set(map(int, p.stdout.readline().split(","))))
        pinned, last = seen[:-1], seen[-1]
        assert all(len(s) == 1 for s in pinned), seen
        assert len(set().union(*pinned)) == CPUS, f"two workers share a CPU: {seen}"
        assert len(last) == CPUS, f"beyond the run's CPUs, a worker runs unpinned: {seen}"
    finally:
        for p in procs:
            p.communicate("\n", timeout=10)


@needs_cpus
def test_a_pinned_block_restores_the_threads_cpus():
    before = affinity.current()
    with affinity.pinned() as cpus:
        assert len(cpus) == 1 and affinity.current() == cpus
    assert affinity.current() == before
    with affinity.pinned(frozenset({max(before)})) as cpus:  # an executor's share
        assert affinity.current() == cpus == frozenset({max(before)})
    assert affinity.current() == before


@needs_cpus
def test_move_takes_a_process_its_threads_and_its_children():
    code = (
        "import subprocess, sys, threading, time; threading.Thread(target=time.sleep, "
        "args=(30,), daemon=True).start(); c = subprocess.Popen(['sleep', '30']); "
        "print(c.pid, flush=True); time.sleep(30)"
    )
    p = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        child = int(p.stdout.readline())
        target = frozenset({max(affinity.current())})
        affinity.move(p.pid, target)
        assert cpus_of(child) == str(max(target))
        for tid in os.listdir(f"/proc/{p.pid}/task"):
            assert cpus_of(int(tid)) == str(max(target)), f"thread {tid} was not moved"
    finally:
        p.kill()
        p.wait()
        subprocess.run(["pkill", "-f", "^sleep 30$"], check=False)


# -- the pool: spares in the background ----------------------------------------------------------


def play_one(handles, seed: int) -> dict:
    record = play_match(
        "take4",
        get_game("take4").make_options(None, None),
        seed,
        handles,
        [f"s{i}" for i in range(len(handles))],
    )
    assert record["result"]["forfeits"] == [None] * len(handles), record["result"]["forfeits"]
    return record


def test_spares_started_in_the_background_live_to_play_their_matches(user_random):
    """A spare is started by the pool's own thread, which lives as long as the pool: bwrap's
    --die-with-parent kills a process whose starting thread has ended."""
    spec, other = load_bot(user_random), load_bot("random")
    assert spec.isolated
    with BotPool() as pool:
        first = pool.handle(spec, LIMITS, ("take4", 1), spares=2)
        play_one([first, other.handle(LIMITS)], 1)
        time.sleep(0.5)  # the spares have long started, their starting calls have returned
        pids = []
        for deal in (2, 3):
            lease = pool.handle(spec, LIMITS, ("take4", deal))
            play_one([lease, other.handle(LIMITS)], deal)
            pids.append(lease.bot.proc.pid if lease.bot else None)
        assert pool.started == 3, "the spares were not the ones that played"


@needs_cpus
def test_a_process_plays_on_the_cpu_of_its_match(user_random):
    spec, other = load_bot(user_random), load_bot("random")
    with BotPool() as pool, affinity.pinned() as here:
        seen = []

        class Watch:
            """A seat that looks at where the bot's process runs while the match plays."""

            def __init__(self, lease):
                self.lease, self.name = lease, lease.name

            def start(self, info):
                self.lease.start(info)

            def act(self, observation):
                seen.append(cpus_of(self.lease.bot.proc.pid))
                return self.lease.act(observation)

            def end(self, info):
                self.lease.end(info)

            def close(self):
                self.lease.close()

        for deal in (1, 2, 3):
            play_one(
                [Watch(pool.handle(spec, LIMITS, ("take4", deal), spares=2)), other.handle(LIMITS)],
                deal,
            )
        assert set(seen) == {str(min(here))}, seen


def test_a_pool_closed_while_its_spares_start_leaves_no_process(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    folder.chmod(0o755)
    path = folder / f"spare{os.getpid()}x.py"
    shutil.copy(REPO / "bots" / "random.py", path)
    spec = load_bot(str(path))
    with BotPool() as pool:
        pool.handle(spec, LIMITS, ("take4", 1), spares=5)  # never played: closed at once
    time.sleep(0.3)
    assert processes_with(path.name) == []


def test_a_bot_expected_ahead_has_its_processes_before_it_sits_down(user_random):
    """``BotPool.expect`` (the worker's look-ahead): a bot the pool has no process of gets one
    for each rotation of a deal, started in the background; its matches then play on those,
    every rotation on one of its own, and nothing more is started for them."""
    spec, other = load_bot(user_random), load_bot("random")
    with BotPool() as pool:
        pool.expect(spec, LIMITS, spares=2)
        assert pool.started == 3
        pool.expect(spec, LIMITS, spares=2)  # known now: nothing more
        pool.expect(other, LIMITS, spares=2)  # in-process: no process
        assert pool.started == 3
        pids = set()
        for _ in range(3):  # one deal's three rotations: three processes
            lease = pool.handle(spec, LIMITS, ("take4", 7), spares=2)
            process = lease.bot  # the lease lets go of it when the match closes it
            play_one([lease, other.handle(LIMITS)], 7)
            pids.add(process.proc.pid)
        assert pool.started == 3 and len(pids) == 3, (pool.started, pids)


def test_the_look_ahead_reads_the_jobs_only_so_far_and_yields_each_once_in_order():
    from mallows.runner.worker import LOOKAHEAD, Job, ahead

    read = []

    def jobs():  # lazy, as a run's schedule is: note how far it has been read
        for i in range(50):
            read.append(i)
            yield Job(i, "take4", {}, i, ("random", "greedy"), LIMITS)

    with BotPool() as pool:
        seen = []
        for job in ahead(jobs(), pool):
            assert len(read) <= job.index + LOOKAHEAD + 1, (job.index, len(read))
            seen.append(job.index)
    assert seen == list(range(50))


# -- the games a bot process sees ----------------------------------------------------------------

GAMES_BOT = textwrap.dedent("""
    import sys
    from mallows.agents.policy import EveryGame

    class Bot:
        games = EveryGame()

        def __init__(self):
            games = self.games  # read from the registry in the bot's own process
            scanned = "importlib.metadata" in sys.modules
            self.name = f"scanned={scanned} games={','.join(games)}"

        def act(self, observation):
            return observation["legal_actions"][0]
""")


@pytest.mark.parametrize("limits", [ON, OFF], ids=["sandbox", "sandbox off"])
def test_a_bot_process_is_told_the_platforms_games_and_scans_nothing(tmp_path, limits):
    if limits is ON and sandbox.problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox.problem()}")
    tmp_path.chmod(0o755)
    path = tmp_path / "gamesbot.py"
    path.write_text(GAMES_BOT)
    path.chmod(0o644)
    hello = load_bot(str(path)).describe(sandbox=limits.sandbox)
    from mallows.games import game_ids

    assert hello["name"] == f"scanned=False games={','.join(game_ids())}", hello


def test_a_malformed_games_variable_falls_back_to_the_scan():
    code = (
        "import os; os.environ['MALLOWS_GAME_PLUGINS'] = '[1, 2'; "
        "from mallows.games import game_ids; print(','.join(game_ids()))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "arschmallows" in out.stdout and "take4" in out.stdout, out


# -- the adaptive wait -------------------------------------------------------------------------

SLOW_BOT = textwrap.dedent("""
    import time

    class Bot:
        def __init__(self, delay="0"):
            self.delay = float(delay)

        def act(self, observation):
            time.sleep(self.delay)
            return observation["legal_actions"][0]
""")


@pytest.mark.parametrize(
    "delay,spinning",
    [("0", True), ("0.01", False)],
    ids=["quick bot: watched", "slow bot: not watched"],
)
def test_the_platform_watches_only_for_answers_that_come_quickly(
    tmp_path, monkeypatch, delay, spinning
):
    from mallows.agents import process

    if spinning:  # a window a quick bot's answer lands in even when both CPUs are busy
        # elsewhere (at the default 0.5 ms, a loaded machine may schedule it only later)
        monkeypatch.setattr(process, "SPIN_SECONDS", 0.05)
    tmp_path.chmod(0o755)
    path = tmp_path / "paced.py"
    path.write_text(SLOW_BOT)
    path.chmod(0o644)
    handle = load_bot(f"{path}:delay={delay}").handle(OFF)
    handle.spin = True
    play_one([handle, load_bot("random").handle(OFF)], 5)
    assert handle._spins >= 3 * SPIN_MISSES
    if spinning:  # a quick bot's answers arrive while the platform watches
        assert handle.caught > 0, (handle._spins, handle._misses)
    else:  # a slow one (10 ms, 20 times the window) is never caught watching: after
        # SPIN_MISSES misses in a row it is no longer watched
        assert handle.caught == 0 and handle._misses >= SPIN_MISSES, (handle._spins, handle._misses)


def test_an_answer_that_arrives_while_the_platform_watches_is_read_whole(tmp_path):
    """The watched and the sleeping paths read into one buffer: nothing lost between them."""
    tmp_path.chmod(0o755)
    path = tmp_path / "paced.py"
    path.write_text(SLOW_BOT)
    path.chmod(0o644)
    for delay in ("0", "0.0004", "0.002"):
        handle = load_bot(f"{path}:delay={delay}").handle(OFF)
        record = play_one([handle, load_bot("random").handle(OFF)], 9)
        json.dumps(record)
