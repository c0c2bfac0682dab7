"""Which CPUs a match and its bots' processes run on.

An isolated bot and the platform hand the turn to each other hundreds of times a match: the
platform writes an observation and sleeps in ``poll``, the bot wakes, answers and sleeps in
``read``, the platform wakes. When the two sleep on different CPUs each hand-over wakes an idle
CPU, which on a virtual machine costs far more than the exchange itself (measured on a 2-CPU
VM: a pipe round trip 75 µs across two CPUs, 5 µs on one). A match is sequential anyway (one
seat decides at a time), so the platform keeps a match and the processes of its bots on one CPU
(``pinned``), and starts the processes it will need later (``BotPool`` spares) on the other
CPUs, where their interpreters load beside the match instead of in its way; a process is moved
to the match's CPU (``move``) when it is leased. The CPUs of one process are a performance hint
only: a bot that moves itself slows only its own matches.

Which CPU a worker gets is the executor's to say, from the CPUs its run was given (``assign``:
one each, from ``os.sched_getaffinity`` of the run), never a claim shared by the machine: two
runs do not wait on each other's claims, and nothing is written outside the run.

Linux only (``os.sched_setaffinity``); elsewhere every function does nothing.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterable, Iterator

_SUPPORTED = hasattr(os, "sched_setaffinity")


def current() -> frozenset:
    """The calling thread's CPUs (empty where unknown)."""
    try:
        return frozenset(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return frozenset()


def _this_cpu() -> int | None:
    """The CPU the calling process runs on now (``/proc/self/stat``, field 39)."""
    try:
        with open("/proc/self/stat", "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[36])
    except (OSError, ValueError, IndexError):
        return None


def _set(cpus: Iterable[int]) -> bool:
    try:
        os.sched_setaffinity(0, cpus)
        return True
    except (AttributeError, OSError, ValueError):
        return False


def assign(cpus: frozenset, workers: int) -> list[frozenset]:
    """The CPUs of each of the ``workers`` workers of one run that was given ``cpus`` (the
    executor's ``current()``): one CPU of its own each, in order, while there are; a worker
    beyond them gets the whole set (it runs unpinned). With fewer than two CPUs nothing is
    pinned. Per run, from the run's own CPUs: no machine-wide claim, so another run (or
    another user) on the machine can take none of them; runs meant not to share CPUs are given
    disjoint sets (``taskset``)."""
    order = sorted(cpus)
    if len(order) < 2:
        return [frozenset(cpus)] * workers
    return [frozenset({order[i]}) if i < len(order) else frozenset(cpus) for i in range(workers)]


@contextlib.contextmanager
def pinned(cpus: frozenset | None = None) -> Iterator[frozenset]:
    """Keep the calling thread, and the processes it starts, on ``cpus`` (those of them it may
    use: the worker's share from ``assign``) until the block ends; yields the CPUs it is on.
    ``cpus`` None: the run's one worker (in-process), on the CPU it runs on now. Where that
    leaves no CPU, all of them, or there is only one, nothing is pinned."""
    before = current()
    if not _SUPPORTED or len(before) < 2:
        yield before
        return
    if cpus is None:
        now = _this_cpu()
        cpus = frozenset({now if now in before else min(before)})
    target = frozenset(cpus) & before
    if not target or target == before or not _set(target):
        yield before
        return
    try:
        yield target
    finally:
        _set(before)


def move(pid: int, cpus: frozenset) -> None:
    """Move process ``pid``, every thread of it and every process below it, to ``cpus``."""
    if not _SUPPORTED or not cpus:
        return
    todo, seen = [pid], set()
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tids:
            try:
                os.sched_setaffinity(int(tid), cpus)
            except (OSError, ValueError):
                pass
            try:
                with open(f"/proc/{p}/task/{tid}/children", "rb") as f:
                    todo.extend(int(c) for c in f.read().split())
            except (OSError, ValueError):
                pass
