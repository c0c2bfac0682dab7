"""Nothing of a local Ray outlives the ``mallows`` process that started it, ``kill -9`` included.

Ray ties its main processes to the driver (the kernel kills them when it dies), but not the
agents its raylet starts (``ray::DashboardAgent``, ``ray::RuntimeEnvAgent``): after a
``kill -9`` of the driver they are adopted by PID 1 and run on. So before a local Ray starts,
``Reaper()`` marks this process's environment with a token that every process Ray starts
inherits, and starts a small watcher (``python -m mallows.runner.reaper``) in its own
session. Twice a second the watcher notes this process's descendants (pid and start time, from
``/proc``), and it waits on a pipe whose only writer is this process: the read returns when this
process closes it (``Reaper.close()``, after ``ray.shutdown()``) or dies in any way. Then it ends
every process it noted that still runs (the same start time: never a reused pid), every process
carrying the token (the agents rewrite their title, and with it, sometimes, their environment),
and their descendants: SIGTERM, then SIGKILL after a grace period.

Linux only (it reads ``/proc``); elsewhere ``Reaper`` does nothing.
"""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

ENV = "MALLOWS_RAY_OWNER"
GRACE_SECONDS = 3.0
WATCH_SECONDS = 0.5  # how often the watcher notes the owner's descendants


class Reaper:
    """Start the watcher and mark this process's environment (Ray's processes inherit it)."""

    def __init__(self) -> None:
        self.token = uuid.uuid4().hex
        self._write: int | None = None
        self.proc: subprocess.Popen | None = None
        if not Path("/proc/self/environ").exists():
            return
        read, self._write = os.pipe()
        env = {k: v for k, v in os.environ.items() if k != ENV}
        try:
            self.proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "mallows.runner.reaper",
                    str(read),
                    self.token,
                    str(os.getpid()),
                ],
                pass_fds=(read,),
                env=env,
                start_new_session=True,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        finally:
            os.close(read)
        os.environ[ENV] = self.token

    def close(self, wait: float = 10.0) -> None:
        """After ``ray.shutdown()``: end whatever it left behind, and the watcher."""
        if os.environ.get(ENV) == self.token:
            del os.environ[ENV]
        if self._write is not None:
            os.close(self._write)
            self._write = None
        if self.proc is not None:
            try:
                self.proc.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                pass
            self.proc = None


def _starttime(pid: int) -> int | None:
    try:
        stat = open(f"/proc/{pid}/stat", "rb").read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    return None if fields[0] == b"Z" else int(fields[19])


def descendants(root: int) -> set[int]:
    """Every live descendant of ``root`` (through ``/proc/<pid>/task/<tid>/children``)."""
    out, todo = set(), [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                text = open(f"/proc/{pid}/task/{tid}/children").read()
            except OSError:
                continue
            for child in map(int, text.split()):
                if child not in out:
                    out.add(child)
                    todo.append(child)
    return out


def marked(token: str, skip: set[int]) -> list[int]:
    """The pids of the processes whose environment carries ``token`` (a process that rewrites
    its title, as Ray's agents do, may lose it: ``descendants`` covers those)."""
    needle = f"{ENV}={token}".encode()
    out = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in skip:
            continue
        try:
            with open(f"/proc/{entry.name}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    out.append(int(entry.name))
        except OSError:
            continue
    return out


def _targets(token: str, known: dict[int, int | None]) -> set[int]:
    """What is still alive of what was seen below the owner (the same process: same start
    time, not a reused pid), what carries the token, and their descendants."""
    alive = {pid for pid, started in known.items() if started and _starttime(pid) == started}
    alive |= set(marked(token, {os.getpid()}))
    for pid in list(alive):
        alive |= descendants(pid)
    alive.discard(os.getpid())
    return alive


def reap(
    token: str, known: dict[int, int | None] | None = None, grace: float = GRACE_SECONDS
) -> int:
    """End every process of the owner's Ray: SIGTERM, then SIGKILL what is left after
    ``grace`` seconds. Returns how many were found."""
    known = dict(known or {})
    found = _targets(token, known)
    for pid in found:
        known.setdefault(pid, _starttime(pid))
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and _targets(token, known):
        time.sleep(0.1)
    for _ in range(3):  # what is left, and what was starting meanwhile
        left = _targets(token, known)
        if not left:
            break
        for pid in left:
            known.setdefault(pid, _starttime(pid))
            _signal(pid, signal.SIGKILL)
        time.sleep(0.2)
    return len(found)


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def main(argv: list[str]) -> None:
    fd, token, owner = int(argv[0]), argv[1], int(argv[2])
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    known: dict[int, int | None] = {}
    while True:  # note the owner's descendants until it closes the pipe or dies
        try:
            ready, _, _ = select.select([fd], [], [], WATCH_SECONDS)
            if ready and not os.read(fd, 4096):
                break
        except OSError:
            break
        for pid in descendants(owner) - known.keys():
            known[pid] = _starttime(pid)
    reap(token, known)


if __name__ == "__main__":
    main(sys.argv[1:])
