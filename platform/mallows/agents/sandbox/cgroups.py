"""A bot process's cgroups: what limits, places, accounts for and stops all of its processes
together, whatever they do (``setsid``, ``sched_setaffinity``, forks).

``BotCgroup`` makes one folder per controller (cgroup v1) or one folder (v2) for one bot
process, named ``mallows-bot-<platform pid>-<n>``:

- ``pids``: at most ``MAX_PROCESSES`` processes and threads;
- ``memory``: the memory of all its processes and its tmpfs together (``memory_mb``);
- ``cpuset``: the CPUs of its match (``set_cpus``); a bot cannot leave it (it sees no
  ``/sys``, and ``sched_setaffinity`` cannot go outside a cpuset);
- ``cpu`` (and ``cpuacct`` in v1): one scheduling and accounting group for the whole tree, so
  48 ``setsid`` children are one entity to the scheduler, not 48 (autogroups apply only to the
  root cgroup), and ``cpu_seconds`` says what it used;
- ``freezer`` (v1; ``cgroup.freeze`` in v2): ``freeze``/``thaw``. The platform keeps every bot
  frozen except while it answers a request, so no bot computes, or signals, between its own
  decisions, and an opponent's processes cannot take the decider's CPU. On v1 a platform
  process keeps one empty freezer cgroup frozen, which makes every other freeze and thaw
  cheap (``_KEEPER``).

Where a controller cannot be used (no permission, not mounted) it is left out; ``Freezer``
then stops the bot's processes with ``SIGSTOP`` instead (``signals.py``). How bwrap gets into
its cgroups: a process moved by another one costs the kernel an RCU grace period (5 to 20 ms
unless another move happened a moment before), a process that moves itself through a v1
``tasks`` file does not; so bwrap moves itself (``joins``: in the child before exec when the
platform is root, ``mallows.agents.sandbox.hostuser``; else by a shell, ``launcher``), and
``attach`` moves bwrap's first child into what is left (v2). Probes are cached and change
nothing (``base``); the folders left by a platform that was killed are swept once per base, at
the first cgroup made there.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import math
import os
import select
import time
from pathlib import Path
from typing import Iterable

MAX_PROCESSES = 64  # processes and threads of one bot process, itself included
REMOVE_WAIT = 0.5  # seconds a removal waits for the end of a bot's processes
CONTROLLERS = ("pids", "memory", "cpuset", "cpu", "cpuacct", "freezer")
_LIMIT_FILE = {"pids": "pids.max", "memory": "memory.limit_in_bytes", "cpuset": "cpuset.cpus"}
_V2_FILE = {"pids": "pids.max", "memory": "memory.max", "cpuset": "cpuset.cpus"}
_V2_CORE = ("freezer", "cpuacct")  # in v2 every cgroup has cgroup.freeze and cpu.stat
_counter = itertools.count()
_PENDING: list = []  # cgroup folders whose removal found them still in use
_SWEPT: set = set()


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


@functools.cache
def base(controller: str) -> tuple[str, str] | None:
    """``(folder, "v1"|"v2")`` under which this process may make cgroups of ``controller``, or
    ``None``. Read from ``/proc/self/cgroup`` and the folder's permissions; makes nothing."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    candidates = []
    for line in lines:
        try:
            _, controllers, rel = line.split(":", 2)
        except ValueError:
            continue
        if controller in controllers.split(","):
            candidates.append((f"/sys/fs/cgroup/{controller}{rel.rstrip('/')}", "v1"))
        elif controllers == "":
            for root in ("/sys/fs/cgroup", "/sys/fs/cgroup/unified"):
                if os.path.exists(f"{root}/cgroup.controllers"):
                    candidates.append((f"{root}{rel.rstrip('/')}", "v2"))
                    break
    for path, kind in sorted(candidates, key=lambda c: c[1]):
        if kind == "v1":
            ok = os.path.exists(os.path.join(path, "tasks"))
        elif controller in _V2_CORE:
            ok = os.path.exists(os.path.join(path, "cgroup.procs"))
        else:
            ok = controller in _read(os.path.join(path, "cgroup.subtree_control")).split()
        if ok and os.access(path, os.W_OK | os.X_OK):
            return path, kind
    return None


def _sweep(folder: str) -> None:
    """Remove the empty cgroups left by platforms that were killed (``kill -9``, a Ray worker
    ended at shutdown) before they could remove their bots' cgroups."""
    if folder in _SWEPT:
        return
    _SWEPT.add(folder)
    try:
        entries = os.listdir(folder)
    except OSError:
        return
    for name in entries:
        parts = name.split("-")
        if name.startswith("mallows-bot-") and len(parts) == 4 and parts[2].isdigit():
            try:
                os.kill(int(parts[2]), 0)
                continue  # its platform is alive (or the pid was reused): leave it
            except ProcessLookupError:
                pass
            except OSError:
                continue
            _kill_members(os.path.join(folder, name), name)
            try:
                os.rmdir(os.path.join(folder, name))  # fails, harmlessly, if still in use
            except OSError:
                pass


def _kill_members(folder: str, name: str) -> None:
    """SIGKILL every process left in the cgroup ``folder`` of a platform that is gone, and
    thaw the freezer cgroup ``name`` (on cgroup v1 a folder of the freezer's own hierarchy,
    not ``folder``): a bwrap whose parent was killed at the wrong instant (between its clone
    and the child's ``PR_SET_PDEATHSIG``) outlives it, blocked for ever, PID 1 of its own
    namespace; its cgroup is how it is found (issue 26, item 10)."""
    freezer = base("freezer")
    thaw = os.path.join(freezer[0], name) if freezer is not None else folder
    for _ in range(20):
        pids = [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split() if p.isdigit()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        for where in {folder, thaw}:
            _write_if_there(os.path.join(where, "freezer.state"), "THAWED")
            _write_if_there(os.path.join(where, "cgroup.freeze"), "0")
        time.sleep(0.01)


def _write(path: str, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _write_if_there(path: str, value: str) -> None:
    try:
        _write(path, value)
    except OSError:
        pass


#: cgroup v1's freezer keeps one machine-wide count of its freezing cgroups in a kernel static
#: key: each time it goes from 0 to 1 or back, the kernel patches its code on every CPU while it
#: holds the machine's one freezer mutex. A lone bot frozen after every decision paid that twice
#: a decision (80 µs a write at the median on a 2-CPU VM, a mean of 0.4-0.7 ms under load, and
#: every other freezer write on the machine waited on the mutex meanwhile). So a platform
#: process keeps one empty freezer cgroup frozen while it lives (``_keep_freezer_on``): the
#: count never falls to 0 and a bot's freeze or thaw is a couple of microseconds. It holds no
#: process, so it changes nothing else; it is named like the bots' cgroups
#: (``mallows-bot-<pid>-keep``), so the reaper and the sweep remove it after a ``kill -9``.
_KEEPER: dict[int, str] = {}  # platform pid -> its frozen empty freezer cgroup


def _keep_freezer_on(folder: str) -> None:
    """Make this process's frozen empty freezer cgroup under ``folder`` (v1), once."""
    pid = os.getpid()
    if pid in _KEEPER:
        return
    path = os.path.join(folder, f"mallows-bot-{pid}-keep")
    try:
        if not os.path.isdir(path):
            os.mkdir(path)
        _write(os.path.join(path, "freezer.state"), "FROZEN")
    except OSError:
        return  # only slower without it
    _KEEPER[pid] = path
    atexit.register(_drop_keeper, pid)


def _drop_keeper(pid: int) -> None:
    path = _KEEPER.get(pid)
    if path is not None and pid == os.getpid():
        try:
            os.rmdir(path)
        except OSError:
            pass
        _KEEPER.pop(pid, None)


def cpus_text(cpus: Iterable[int]) -> str:
    return ",".join(str(c) for c in sorted(cpus))


class BotCgroup:
    """One bot process's cgroups, made before the spawn, in place before the bot runs, removed
    once bwrap's first child has ended (``remove``). ``limits``: controller -> the value of its
    limit (``pids``, ``memory``: a number; ``cpuset``: CPUs) or ``None`` (grouping only:
    ``cpu``, ``cpuacct``, ``freezer``). ``self_join``: bwrap writes itself into the v1
    cgroups (``joins``), so its outer process counts against the pids limit too."""

    def __init__(self, limits: dict, self_join: bool = False):
        self.dirs: dict[str, tuple[str, str]] = {}  # controller -> (folder, kind)
        self.procs: dict[str, int] = {}  # folder -> an fd of its cgroup.procs
        self.joins: list[str] = []  # the tasks files bwrap writes itself into (v1)
        self.pid: int | None = None  # bwrap's first child, once attached
        self.pidfd: int | None = None  # the same, as a pidfd: its end is awaited
        self._state_fd: int | None = None  # freezer.state (v1) or cgroup.freeze (v2)
        self._usage_fd: int | None = None  # cpuacct.usage (v1) or cpu.stat (v2)
        self._usage_v2 = False
        self.frozen = False
        self.cpu_at_thaw = 0.0  # cpu_seconds() when it was last thawed
        _remove_pending()
        self.name = f"mallows-bot-{os.getpid()}-{next(_counter)}"
        from mallows.agents import cgroup_reaper  # kills what a kill -9 would leave in them

        cgroup_reaper.ensure(sorted({found[0] for found in map(base, limits) if found is not None}))
        try:
            for controller, value in limits.items():
                found = base(controller)
                if found is None:
                    continue
                folder, kind = found
                _sweep(folder)
                path = os.path.join(folder, self.name)
                if not os.path.isdir(path):  # v2, or co-mounted v1: one folder
                    os.mkdir(path)
                self.dirs[controller] = (path, kind)
                joins = self_join and kind == "v1"
                if controller == "cpuset":
                    self._cpuset_init(path, kind, value)
                elif value is not None:
                    if controller == "pids" and joins:
                        value += 1  # bwrap's outer process joins too
                    files = _LIMIT_FILE if kind == "v1" else _V2_FILE
                    _write(os.path.join(path, files[controller]), str(value))
                if controller == "memory" and kind == "v2":
                    _write_if_there(os.path.join(path, "memory.swap.max"), "0")
                if controller == "freezer":
                    if kind == "v1":
                        _keep_freezer_on(folder)
                    name = "freezer.state" if kind == "v1" else "cgroup.freeze"
                    self._state_fd = os.open(os.path.join(path, name), os.O_WRONLY)
                if controller == "cpuacct":
                    if kind == "v1":
                        self._usage_fd = os.open(os.path.join(path, "cpuacct.usage"), os.O_RDONLY)
                    else:
                        self._usage_fd = os.open(os.path.join(path, "cpu.stat"), os.O_RDONLY)
                        self._usage_v2 = True
                if path not in self.procs:
                    self.procs[path] = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY)
                    if joins:
                        self.joins.append(os.path.join(path, "tasks"))
        except OSError:
            self.remove()
            raise

    @staticmethod
    def _cpuset_init(path: str, kind: str, cpus: Iterable[int]) -> None:
        parent = os.path.dirname(path)
        if kind == "v1":  # a v1 cpuset takes no task before it has memory nodes and CPUs
            mems = _read(os.path.join(parent, "cpuset.mems")).strip()
            _write(os.path.join(path, "cpuset.mems"), mems or "0")
        allowed = _read(
            os.path.join(parent, "cpuset.cpus.effective" if kind == "v2" else "cpuset.cpus")
        ).strip()
        text = cpus_text(cpus) if cpus else allowed
        _write(os.path.join(path, "cpuset.cpus"), text or allowed)

    def launcher(self, shell: str) -> list[str]:
        """The argv to put before bwrap's: a shell that writes itself into ``self.joins`` (a
        process moving itself costs no grace period) and, only if every write worked, becomes
        bwrap (``exec``); ``[]`` when there is nothing to join that way."""
        if not self.joins:
            return []
        script = " && ".join(f'echo 0 > "${i}"' for i in range(1, len(self.joins) + 1))
        return [
            shell,
            "-c",
            f'{script} && shift {len(self.joins)} && exec "$@"',
            "mallows-sandbox",
            *self.joins,
        ]

    def attach(self, pid: int) -> None:
        """Make sure ``pid`` (bwrap's first child, waiting on its block fd) is in every cgroup:
        it is already in those bwrap joined itself (checked in ``/proc/<pid>/cgroup``); it is
        moved into the others."""
        self.pid = pid
        if self.pidfd is None and hasattr(os, "pidfd_open"):
            try:
                self.pidfd = os.pidfd_open(pid)
            except OSError:  # before Linux 5.3: ``remove`` polls the folders instead
                pass
        inside = _member_of(pid, self.name) if self.joins else set()
        for controller, (path, kind) in self.dirs.items():
            if (controller, kind) in inside:
                continue
            fd = self.procs.get(path)
            if fd is not None:
                os.write(fd, str(pid).encode())
                self.procs.pop(path)  # v2: one folder, every controller; moved once is enough
                os.close(fd)
        # the rest (folders bwrap joined itself) are of no more use: a pool holds many bots
        for fd in self.procs.values():
            os.close(fd)
        self.procs = {}

    def has(self, controller: str) -> bool:
        return controller in self.dirs

    # -- placing, stopping, accounting -----------------------------------------------------

    def set_cpus(self, cpus: Iterable[int]) -> bool:
        """Hold every process of the bot to ``cpus`` (its match's); False without a cpuset."""
        if "cpuset" not in self.dirs or not cpus:
            return False
        path, _ = self.dirs["cpuset"]
        try:
            _write(os.path.join(path, "cpuset.cpus"), cpus_text(cpus))
        except OSError:
            return False
        return True

    @property
    def can_freeze(self) -> bool:
        return self._state_fd is not None

    def freeze(self) -> None:
        """Stop every process of the bot (the kernel finishes it at once, asynchronously)."""
        fd = self._state_fd
        if fd is not None and not self.frozen:
            # noted first: an interrupt landing between the two leaves ``frozen`` True, so a
            # later thaw (a kill's, say) writes the thaw; never a frozen bot noted as running
            self.frozen = True
            os.pwrite(fd, b"FROZEN" if not self._v2_freezer() else b"1", 0)

    def thaw(self) -> None:
        """Let the bot's processes run again; notes ``cpu_seconds()`` then (``cpu_at_thaw``)."""
        fd = self._state_fd
        if fd is not None and self.frozen:
            os.pwrite(fd, b"THAWED" if not self._v2_freezer() else b"0", 0)
            self.frozen = False
        if self._usage_fd is not None:
            self.cpu_at_thaw = self.cpu_seconds()

    def _v2_freezer(self) -> bool:
        return self.dirs.get("freezer", ("", "v1"))[1] == "v2"

    def cpu_seconds(self) -> float:
        """The CPU time all the bot's processes have used (user and system), or -1 unknown."""
        fd = self._usage_fd
        if fd is None:
            return -1.0
        try:
            text = os.pread(fd, 4096, 0).decode()
        except OSError:
            return -1.0
        if not self._usage_v2:
            return int(text.strip() or 0) / 1e9
        for line in text.splitlines():
            if line.startswith("usage_usec "):
                return int(line.split()[1]) / 1e6
        return -1.0

    def hit(self, controller: str) -> bool:
        """Whether the limit of ``controller`` refused something (a fork; memory)."""
        if controller not in self.dirs:
            return False
        path, kind = self.dirs[controller]
        if controller == "pids":
            text = _read(os.path.join(path, "pids.events"))
            return any(line.split()[-1] != "0" for line in text.splitlines() if line.strip())
        if kind == "v1":
            return _read(os.path.join(path, "memory.failcnt")).strip() not in ("", "0")
        events = dict(
            line.split()
            for line in _read(os.path.join(path, "memory.events")).splitlines()
            if line.strip()
        )
        return events.get("oom_kill", "0") != "0" or events.get("max", "0") != "0"

    def remove(self) -> None:
        """Thaw (a frozen process cannot die), then remove the folders once bwrap's first child
        has ended (the PID namespace's init: when it has, every process of the bot has).
        bwrap's outer process may exit a moment before that child, so its end is awaited on a
        pidfd (at most ``REMOVE_WAIT``), not slept on; a folder still busy after that is
        removed later, by the next ``BotCgroup`` or at exit (``_remove_pending``). Safe to call
        twice."""
        if self._state_fd is not None:
            try:
                self.frozen = True
                self.thaw()
            except OSError:
                pass
        fds, self.procs = list(self.procs.values()), {}
        for fd in (self._state_fd, self._usage_fd):
            if fd is not None:
                fds.append(fd)
        self._state_fd = self._usage_fd = None
        for fd in fds:
            os.close(fd)
        pidfd, self.pidfd = self.pidfd, None
        if pidfd is not None:
            try:
                poller = select.poll()
                poller.register(pidfd, select.POLLIN)
                poller.poll(math.ceil(REMOVE_WAIT * 1000))
            finally:
                os.close(pidfd)
        paths = {p for p, _ in self.dirs.values()}
        self.dirs = {}
        if paths:
            _PENDING.extend(paths)
            _remove_pending(REMOVE_WAIT if pidfd is None else 0.005)


def _member_of(pid: int, name: str) -> set:
    """``(controller, kind)`` of the cgroups named ``name`` that ``pid`` is in."""
    out: set[tuple[str, str]] = set()
    for line in _read(f"/proc/{pid}/cgroup").splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3 and parts[2].rstrip("/").endswith("/" + name):
            if parts[1]:
                out.update((c, "v1") for c in parts[1].split(","))
            else:
                out.update((c, "v2") for c in CONTROLLERS)
    return out


def _remove_pending(wait: float = 0.0) -> None:
    """Remove the cgroup folders in ``_PENDING`` that are no longer in use, trying again for
    up to ``wait`` seconds (in short steps) while some are still busy."""
    if not _PENDING:
        return
    deadline = time.monotonic() + wait
    step = 0.0002
    while True:
        for path in list(_PENDING):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:  # still in use: the kernel is tearing the processes down
                continue
            try:
                _PENDING.remove(path)
            except ValueError:  # another thread removed it
                pass
        if not _PENDING or time.monotonic() + step > deadline:
            return
        time.sleep(step)
        step = min(step * 2, 0.01)


atexit.register(_remove_pending, REMOVE_WAIT)


def memory_limit() -> str:
    """How the memory of a bot's processes is limited here, for people."""
    if base("memory"):
        return (
            "a memory cgroup (memory_mb plus its /tmp, all its processes together) and "
            "RLIMIT_AS (memory_mb, each process)"
        )
    return "RLIMIT_AS (memory_mb, each process; no memory cgroup can be made here)"


def process_limit() -> str:
    """How the number of processes is limited here, for people."""
    if base("pids"):
        return f"a pids cgroup ({MAX_PROCESSES} processes)"
    return f"RLIMIT_NPROC ({MAX_PROCESSES} processes more than the bots' host user already has)"


def cpu_control() -> str:
    """How a bot's CPU is placed, grouped and stopped here, for people."""
    parts = []
    parts.append(
        "a cpuset (the match's CPU)"
        if base("cpuset")
        else "CPU affinity (no cpuset can be made here: a bot can move itself)"
    )
    parts.append("one cpu group" if base("cpu") else "no cpu group")
    parts.append(
        "frozen between its decisions by a "
        + ("freezer cgroup" if base("freezer") else "SIGSTOP of each of its processes")
    )
    return ", ".join(parts)
