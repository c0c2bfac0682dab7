"""The cgroup reaper (``agents.cgroup_reaper``): when a platform process dies in any way, its
watcher kills whatever its bots' cgroups still hold, frozen ones included, and removes every
folder, on cgroup v1 (the freezer a hierarchy of its own) as on v2; killed with its children
at once, as Ray ends a worker, the watcher is not among them.

Real cgroups, a real frozen process, a real ``kill -9`` of its owner; skipped where this
process cannot make cgroups (not root, no writable hierarchy)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from mallows.agents.sandbox import cgroups

CONTROLLERS = ("pids", "memory", "cpu", "freezer")  # cpu sorts before freezer: the v1 case

OWNER = r"""
import os, subprocess, sys, time
from mallows.agents import cgroup_reaper
from mallows.agents.sandbox import cgroups

found = {c: cgroups.base(c) for c in sys.argv[1:]}
bases = sorted({f[0] for f in found.values()})
cgroup_reaper.ensure(bases)
name = f"mallows-bot-{os.getpid()}-1"
child = subprocess.Popen(["sleep", "1000"], start_new_session=True)
for b in bases:
    path = os.path.join(b, name)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "cgroup.procs"), "w") as f:
        f.write(str(child.pid))
folder, kind = found["freezer"]
state = "freezer.state" if kind == "v1" else "cgroup.freeze"
with open(os.path.join(folder, name, state), "w") as f:
    f.write("FROZEN" if kind == "v1" else "1")
print(child.pid, name, " ".join(bases), flush=True)
time.sleep(1000)
"""


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            out += [int(p) for p in f.read().split()]
    return out


def test_a_frozen_bot_is_thawed_killed_and_its_folders_removed_when_its_owner_dies():
    if any(cgroups.base(c) is None for c in CONTROLLERS):
        pytest.skip("no writable cgroup hierarchy for pids, memory, cpu and freezer here")
    owner = subprocess.Popen(
        [sys.executable, "-c", OWNER, *CONTROLLERS],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = owner.stdout.readline().split()
    assert line, owner.stderr.read()
    pid, name, bases = int(line[0]), line[1], line[2:]
    folders = [os.path.join(b, name) for b in bases]
    try:
        time.sleep(1.0)  # the watcher leaves the bot of a living owner alone
        assert _alive(pid) and all(os.path.isdir(f) for f in folders)
        # as Ray ends a worker: the process and its children killed at once (no atexit, no
        # finally); only a watcher that is not its child is left to thaw and kill the bot
        for child in _children(owner.pid):
            os.kill(child, signal.SIGKILL)
        owner.send_signal(signal.SIGKILL)
        owner.wait(timeout=60)
        deadline = time.monotonic() + 120  # generous: the reaper needs well under a second
        while time.monotonic() < deadline and (
            _alive(pid) or any(os.path.isdir(f) for f in folders)
        ):
            time.sleep(0.1)
        took = time.monotonic() - (deadline - 120)
        assert not _alive(pid), "the frozen bot outlived its owner"
        left = [f for f in folders if os.path.isdir(f)]
        assert not left, f"cgroup folders left: {left}"
        assert took < 30, f"the reaper took {took:.1f} s"  # generous: it takes well under 1 s
    finally:
        if owner.poll() is None:
            owner.kill()
        for f in folders:  # whatever a failure left: thawed, killed, removed
            for state, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
                try:
                    with open(os.path.join(f, state), "w") as out:
                        out.write(value)
                except OSError:
                    pass
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
        time.sleep(0.2)
        for f in folders:
            try:
                os.rmdir(f)
            except OSError:
                pass
