"""Stopping a bot without a freezer cgroup: ``SIGSTOP`` to every process below bwrap's first
child (the PID namespace's init), found through ``/proc/<pid>/task/<tid>/children``, swept
again until a sweep finds nothing new (a stopped process cannot fork, so it ends); ``SIGCONT``
to the same to let them run. ``SIGSTOP`` cannot be caught or ignored, not even by the init of a
PID namespace when it comes from outside. Also what the bot's processes have used of the CPU,
from ``/proc/<pid>/stat``, and whether one of them is ready to run."""

from __future__ import annotations

import os
import signal

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def tree(pid: int) -> list[int]:
    """``pid`` and every process below it (its threads' children)."""
    out, todo, seen = [], [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        out.append(p)
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{p}/task/{tid}/children", "rb") as f:
                    todo.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
    return out


def _stat(pid: int) -> list[bytes]:
    with open(f"/proc/{pid}/stat", "rb") as f:
        return f.read().rsplit(b")", 1)[1].split()


class SignalFreezer:
    """``freeze``/``thaw``/``cpu_seconds`` of ``mallows.agents.sandbox.cgroups.BotCgroup``,
    with signals, for the processes below ``init`` (bwrap's first child)."""

    def __init__(self, init: int):
        self.init = init
        self.frozen = False
        self.cpu_at_thaw = 0.0
        self._stopped: list[int] = []

    def freeze(self) -> None:
        if self.frozen:
            return
        self.frozen = True  # first, as BotCgroup.freeze does: an interrupt mid-way still thaws
        stopped: set[int] = set()
        for _ in range(64):  # a sweep that stops nothing new ends it
            fresh = [p for p in tree(self.init) if p != self.init and p not in stopped]
            if not fresh:
                break
            for p in fresh:
                try:
                    os.kill(p, signal.SIGSTOP)
                except OSError:
                    pass
                stopped.add(p)
        self._stopped = sorted(stopped)

    def thaw(self) -> None:
        if self.frozen:
            for p in tree(self.init):
                if p != self.init:
                    try:
                        os.kill(p, signal.SIGCONT)
                    except OSError:
                        pass
            self.frozen = False
        self.cpu_at_thaw = self.cpu_seconds()

    def cpu_seconds(self) -> float:
        total = 0
        for p in tree(self.init):
            try:
                fields = _stat(p)
            except OSError:
                continue
            total += int(fields[11]) + int(fields[12])  # utime, stime
            if p == self.init:
                total += int(fields[13]) + int(fields[14])  # reaped children's
        return total / _TICK


def runnable(init: int) -> bool:
    """Whether a process below ``init`` is running or waiting for a CPU (state ``R``)."""
    for p in tree(init):
        if p == init:
            continue
        try:
            if _stat(p)[0] == b"R":
                return True
        except OSError:
            continue
    return False


def holds(init: int, skip: set[int], inode: tuple[int, int]) -> bool:
    """Whether a process below ``init`` (other than those in ``skip``: bwrap's own) has a file
    descriptor open on ``inode`` (``(st_dev, st_ino)``: the platform's end of a pipe)."""
    for p in tree(init):
        if p in skip:
            continue
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            return True  # cannot look: assume it does
        for fd in fds:
            try:
                st = os.stat(f"/proc/{p}/fd/{fd}")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == inode:
                return True
    return False
