"""A hosted Python bot ends without the interpreter's teardown (``mallows.agents.host.end``),
which made every bot process's end take milliseconds: what the bot would see of an ordinary
exit stays. Its ``atexit`` handlers run and their output reaches its log, the exit status is
kept (1 for a bot that could not be loaded), and a thread of its own still running gets the
ordinary exit that waits for it."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from mallows.agents.process import SubprocessBot
from mallows.agents.protocol import Limits

LIMITS = Limits(start_seconds=30.0, sandbox="off")

ATEXIT_BOT = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("goodbye from atexit\\n"))
class Bot:
    name = "leaver"
    def act(self, observation):
        return observation["legal"][0]
"""

THREAD_BOT = """
import sys, threading, time
def late():
    time.sleep(0.3)
    sys.stderr.write("my thread finished\\n")
threading.Thread(target=late).start()  # not a daemon: an ordinary exit waits for it
class Bot:
    name = "threaded"
    def act(self, observation):
        return observation["legal"][0]
"""


def _ended(tmp_path: Path, source: str, name: str = "bot.py") -> tuple[int, str]:
    """Host ``source`` as the platform starts it, say hello and quit on its stdin, and wait:
    (exit status, its stderr). The host alone: no platform that might stop it first."""
    path = tmp_path / name
    path.write_text(source)
    run = subprocess.run(
        [sys.executable, "-P", "-m", "mallows.agents.host", str(path)],
        input='{"type":"hello","protocol":1}\n{"type":"quit"}\n',
        capture_output=True,
        text=True,
        timeout=60,
    )
    return run.returncode, run.stderr


def test_the_bots_atexit_handlers_run_and_reach_its_log(tmp_path):
    code, err = _ended(tmp_path, ATEXIT_BOT)
    assert code == 0
    assert "goodbye from atexit" in err, err


def test_the_exit_status_is_kept(tmp_path):
    code, err = _ended(tmp_path, "raise RuntimeError('broken at import')\n")
    assert code == 1, err
    assert "broken at import" in err, err


def test_a_thread_of_the_bots_own_is_waited_for(tmp_path):
    code, err = _ended(tmp_path, THREAD_BOT)
    assert code == 0
    assert "my thread finished" in err, err


@pytest.mark.parametrize("n", [8])
def test_every_process_of_a_batch_ends_with_its_handlers_run(tmp_path, n):
    """Quit to every process, then wait for each (as ``BotPool.close`` does): each ends with
    status 0 and its ``atexit`` output (``bench_sandbox`` measures how long that takes)."""
    (tmp_path / "bot.py").write_text(ATEXIT_BOT)
    bots = [
        SubprocessBot(
            f"b{i}",
            [sys.executable, "-P", "-m", "mallows.agents.host", str(tmp_path / "bot.py")],
            limits=LIMITS,
            bot_paths=[str(tmp_path / "bot.py")],
            python=True,
        )
        for i in range(n)
    ]
    try:
        for bot in bots:
            bot.handshake(time.monotonic() + 30)
        for bot in bots:
            bot.quit()
        for bot in bots:
            assert bot.proc.wait(timeout=30) == 0
        assert all("goodbye from atexit" in b.channel.process.stderr_tail() for b in bots)
    finally:
        for bot in bots:
            bot.close()
