"""A hosted Python bot in a sandbox ends without the interpreter's teardown
(``mallows.agents.host.end``), which made every bot process's end take milliseconds: what the
bot would see of an ordinary exit stays. Its ``atexit`` handlers run and their output reaches
its log, the exit status is kept (1 for a bot that could not be loaded), and a thread of its
own still running gets the ordinary exit that waits for it. Outside a sandbox the exit is the
ordinary one: a file the bot left open is flushed as before (it may outlive the process)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import needs_sandbox
from mallows.agents.host import SANDBOXED_ENV
from mallows.agents.process import SubprocessBot
from mallows.agents.protocol import Limits

LIMITS = Limits(start_seconds=30.0, sandbox="off")

ATEXIT_BOT = """
import atexit, os, sys
atexit.register(
    lambda: sys.stderr.write("goodbye from atexit %s\\n" % os.environ.get("MALLOWS_IN_SANDBOX"))
)
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


def _ended(tmp_path: Path, source: str, sandboxed: bool, **env: str) -> tuple[int, str]:
    """Host ``source`` as the platform starts it (``sandboxed``: with the variable the sandbox
    sets), say hello and quit on its stdin, and wait: (exit status, its stderr). The host
    alone: no platform that might stop it first."""
    path = tmp_path / "bot.py"
    path.write_text(source)
    environ = {k: v for k, v in os.environ.items() if k != SANDBOXED_ENV}
    environ.update(env, **({SANDBOXED_ENV: "1"} if sandboxed else {}))
    run = subprocess.run(
        [sys.executable, "-P", "-m", "mallows.agents.host", str(path)],
        input='{"type":"hello","protocol":1}\n{"type":"quit"}\n',
        capture_output=True,
        text=True,
        timeout=60,
        env=environ,
    )
    return run.returncode, run.stderr


BOTH = pytest.mark.parametrize("sandboxed", [True, False], ids=["sandboxed", "not-sandboxed"])


@BOTH
def test_the_bots_atexit_handlers_run_and_reach_its_log(tmp_path, sandboxed):
    code, err = _ended(tmp_path, ATEXIT_BOT, sandboxed)
    assert code == 0
    assert "goodbye from atexit" in err, err


@BOTH
def test_the_exit_status_is_kept(tmp_path, sandboxed):
    code, err = _ended(tmp_path, "raise RuntimeError('broken at import')\n", sandboxed)
    assert code == 1, err
    assert "broken at import" in err, err


@BOTH
def test_a_thread_of_the_bots_own_is_waited_for(tmp_path, sandboxed):
    code, err = _ended(tmp_path, THREAD_BOT, sandboxed)
    assert code == 0
    assert "my thread finished" in err, err


LEAVES_OPEN = """
import os, sys
LOG = open(os.environ["BOT_LOG"], "w")  # never closed: the interpreter's teardown flushes it
LOG.write("written before the end\\n")
class Noisy:
    def __del__(self):
        sys.stderr.write("torn down\\n")
KEEP = Noisy()
class Bot:
    name = "leaver"
    def act(self, observation):
        return observation["legal"][0]
"""


def test_outside_a_sandbox_the_teardown_still_flushes_what_the_bot_left_open(tmp_path):
    log = tmp_path / "bot.log"
    code, err = _ended(tmp_path, LEAVES_OPEN, False, BOT_LOG=str(log))
    assert code == 0 and "torn down" in err, err
    assert log.read_text() == "written before the end\n"


def test_in_a_sandbox_the_teardown_is_skipped(tmp_path):
    # (what it would flush could only be in the sandbox's own /tmp, gone with the process)
    code, err = _ended(tmp_path, LEAVES_OPEN, True, BOT_LOG=str(tmp_path / "bot.log"))
    assert code == 0 and "torn down" not in err, err


@pytest.mark.parametrize(
    "mode", [pytest.param("on", marks=needs_sandbox()), "off"], ids=["sandboxed", "not-sandboxed"]
)
def test_every_process_of_a_batch_ends_with_its_handlers_run(tmp_path, mode):
    """Quit to every process, then wait for each (as ``BotPool.close`` does): each ends with
    status 0 and its ``atexit`` output, and only a sandboxed one was told it is in a sandbox
    (``bench_sandbox`` measures how long the ends take)."""
    (tmp_path / "bot.py").write_text(ATEXIT_BOT)
    bots = [
        SubprocessBot(
            f"b{i}",
            [sys.executable, "-P", "-m", "mallows.agents.host", str(tmp_path / "bot.py")],
            limits=dataclasses.replace(LIMITS, sandbox=mode),
            bot_paths=[str(tmp_path / "bot.py")],
            python=True,
        )
        for i in range(8)
    ]
    try:
        for bot in bots:
            bot.handshake(time.monotonic() + 30)
        for bot in bots:
            bot.quit()
        for bot in bots:
            assert bot.proc.wait(timeout=30) == 0
        told = "1" if mode == "on" else "None"
        tails = [b.channel.process.stderr_tail() for b in bots]
        assert all(f"goodbye from atexit {told}" in tail for tail in tails), tails
    finally:
        for bot in bots:
            bot.close()
