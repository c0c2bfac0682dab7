"""cgroup v1: a platform process keeps one empty freezer cgroup frozen while it lives
(``sandbox.cgroups._KEEPER``), so the kernel's machine-wide count of freezing cgroups never
falls to 0 and a bot's freeze and thaw stop patching the kernel's code on every CPU
(``benchmarks/bench_sandbox.py`` section 4 prints the round trip). The keeper holds no
process, and nothing of it outlives the platform process: not after a normal exit, not after
``kill -9``."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from mallows.agents.sandbox import cgroups

FREEZER = cgroups.base("freezer")
pytestmark = pytest.mark.skipif(
    FREEZER is None or FREEZER[1] != "v1", reason="no cgroup v1 freezer this process may use"
)

PLATFORM = r"""
import os, subprocess, sys
from mallows.agents.sandbox import cgroups
cg = cgroups.BotCgroup({"freezer": None})
bot = subprocess.Popen(["sleep", "30"])
cg.attach(bot.pid)
cg.freeze()
keeper = cgroups._KEEPER[os.getpid()]
state = open(os.path.join(keeper, "freezer.state")).read().strip()
procs = open(os.path.join(keeper, "cgroup.procs")).read().split()
print(keeper, state, len(procs), flush=True)
if sys.argv[1] == "wait":
    sys.stdin.read()
cg.thaw()
bot.kill(); bot.wait(); cg.remove()
"""


def _start(how: str) -> tuple[subprocess.Popen, list[str]]:
    run = subprocess.Popen(
        [sys.executable, "-c", PLATFORM, how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert run.stdout is not None
    return run, run.stdout.readline().split()


def test_a_platform_process_keeps_one_empty_frozen_freezer_and_removes_it_at_exit():
    run, (keeper, state, procs) = _start("exit")
    assert run.wait(timeout=60) == 0
    assert os.path.basename(keeper) == f"mallows-bot-{run.pid}-keep"
    assert (state, procs) == ("FROZEN", "0")
    assert not os.path.exists(keeper)


def test_the_keeper_of_a_killed_platform_is_removed_by_its_reaper():
    run, (keeper, _, _) = _start("wait")
    assert os.path.isdir(keeper)
    run.kill()
    run.wait(timeout=60)
    deadline = time.monotonic() + 30
    while os.path.exists(keeper) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(keeper)
