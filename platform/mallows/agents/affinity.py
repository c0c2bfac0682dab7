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

Linux only (``os.sched_setaffinity``); elsewhere every function does nothing.
"""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

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


def _set(cpus) -> bool:
    try:
        os.sched_setaffinity(0, cpus)
        return True
    except (AttributeError, OSError, ValueError):
        return False


def _claim(cpus: list[int]) -> tuple[int, int] | None:
    """The first of ``cpus`` no other mallows process on this machine holds (an exclusive
    ``flock`` on a file per CPU in the temporary folder, released when the holder exits):
    ``(cpu, fd)``, or None when every one is taken."""
    import fcntl
    import tempfile

    for cpu in cpus:
        try:
            fd = os.open(
                os.path.join(tempfile.gettempdir(), f"mallows-cpu-{cpu}.lock"),
                os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW,
                0o644,
            )
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return cpu, fd
        except OSError:
            os.close(fd)
    return None


@contextlib.contextmanager
def pinned() -> Iterator[frozenset]:
    """Keep the calling thread, and the processes it starts, on one CPU of those it may use,
    until the block ends; yields the CPUs it is on. The CPU is one no other mallows worker on
    this machine has (the one it runs on now if free): two workers never share one. Where every
    CPU is taken, or there is only one, nothing is pinned."""
    before = current()
    if not _SUPPORTED or len(before) < 2:
        yield before
        return
    now = _this_cpu()
    claim = _claim(sorted(before, key=lambda c: (c != now, c)))
    if claim is None or not _set(frozenset({claim[0]})):
        if claim is not None:
            os.close(claim[1])
        yield before
        return
    try:
        yield frozenset({claim[0]})
    finally:
        _set(before)
        os.close(claim[1])


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
