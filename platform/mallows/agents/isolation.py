"""Whom a bot runs as and with what limits when it is not in its sandbox, the platform's own
hardening, and the bot's environment: the process-isolation layer that ``SubprocessBot``
(``mallows.agents.process``) starts every bot under, sandboxed or not.

How a bot stays out of the platform's memory (all of it at spawn time; the round trip is
unchanged):

- the platform process makes itself non-dumpable (Linux ``prctl(PR_SET_DUMPABLE, 0)``) before
  it starts an isolated bot, so a process of the same user without ``CAP_SYS_PTRACE`` can
  neither ptrace it nor open its ``/proc/<pid>/mem``, ``environ``, ``maps`` or ``fd``
  (``harden_platform``);
- when the platform runs as root, the bot runs as an unprivileged user (``MALLOWS_BOT_USER``,
  default ``nobody``), or, when that user cannot reach the interpreter or the bot's files, as
  root without any capability (bounding set emptied, ``SECBIT_NOROOT``), see ``plan_run_as``;
- the child gets ``PR_SET_NO_NEW_PRIVS`` (no setuid escalation), ``RLIMIT_AS``
  (``Limits.memory_mb``), ``RLIMIT_CORE`` 0 and ``RLIMIT_FSIZE`` (``STDERR_LIMIT_BYTES``: its
  stderr file cannot grow past it), and only an allowlist of the platform's environment
  variables (``bot_environment``).
"""

from __future__ import annotations

import ctypes
import grp
import os
from pathlib import Path
import pwd
import resource
import shutil
import stat
import sys
import sysconfig
from dataclasses import dataclass
from typing import Callable, Sequence

from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.wire import dumps
from mallows.games import PLUGINS_ENV, plugin_games

STDERR_LIMIT_BYTES = (
    8 * 1024 * 1024
)  # the child's RLIMIT_FSIZE: its stderr file cannot grow past it
MIB = 1024 * 1024
SIGPENDING = 256  # a bot's RLIMIT_SIGPENDING: queued signals, more than any runtime keeps
#: A bot's RLIMIT_NOFILE (each process; it cannot raise it): what counts per host user through
#: open files stays small (epoll watches: at most (NOFILE / 2) ** 2 a process)
NOFILE = 256
#: The soft limit on open files a platform process that runs bots (or serves pages) raises
#: itself to, where its hard limit allows (``raise_descriptor_limit``).
MAX_DESCRIPTORS = 65536
BOT_USER_ENV = "MALLOWS_BOT_USER"  # auto (default) | none | a user name
BOT_ENV_ENV = "MALLOWS_BOT_ENV"  # more variable names to pass to bots, comma-separated
DEFAULT_BOT_USER = "nobody"
# The platform's environment variables a bot gets (plus LC_*, and the names in MALLOWS_BOT_ENV):
# what programs need to run, nothing that could be a credential.
BOT_ENV_KEEP = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TERM",
        "TMPDIR",
        "SHELL",
        "PYTHONPATH",
        "PYTHONHOME",
        "PYTHONIOENCODING",
        "PYTHONUTF8",
        "PYTHONUNBUFFERED",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "LD_LIBRARY_PATH",
        "NODE_PATH",
        "JAVA_HOME",
        "GOROOT",
        "SYSTEMROOT",
    }
)

_LINUX = sys.platform.startswith("linux")
PR_SET_DUMPABLE, PR_GET_DUMPABLE = 4, 3
PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS = 24, 28, 38
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
# SECBIT_NOROOT, _NO_SETUID_FIXUP, _NO_CAP_AMBIENT_RAISE and the locks of all three and of
# _KEEP_CAPS: an exec as uid 0 grants no capability, now or after any later exec.
SECUREBITS_LOCKED_DOWN = 0b11101111
CAP_SETPCAP = 8
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_libc_handle = None


def _libc() -> ctypes.CDLL:
    global _libc_handle
    if _libc_handle is None:
        _libc_handle = ctypes.CDLL(None, use_errno=True)
        _libc_handle.prctl.restype = ctypes.c_int
        _libc_handle.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    return _libc_handle


def harden_platform() -> bool:
    """Make this process non-dumpable (Linux): a process of the same user without
    ``CAP_SYS_PTRACE`` can then neither ptrace it nor read its ``/proc/<pid>/mem``, ``environ``,
    ``maps`` or ``fd``, and it writes no core dump. Called before every isolated bot starts (a
    platform that plays only in-process bots is left as it is). Returns whether it is in effect;
    elsewhere than Linux it does nothing and returns False."""
    if not _LINUX:
        return False
    libc = _libc()
    if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:  # pragma: no cover - cannot fail on Linux
        return False
    return libc.prctl(PR_GET_DUMPABLE, 0, 0, 0, 0) == 0


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


_can_drop: bool | None = None


def can_drop_capabilities() -> bool:
    """Whether this process (root) can start a child with no capabilities at all: Linux, and
    ``CAP_SETPCAP`` (needed to empty the bounding set and lock the securebits)."""
    global _can_drop
    if _can_drop is None:
        _can_drop = False
        if _LINUX:
            try:
                with open("/proc/self/status") as f:
                    for line in f:
                        if line.startswith("CapEff:"):
                            _can_drop = bool(int(line.split()[1], 16) >> CAP_SETPCAP & 1)
            except (OSError, ValueError):
                pass
    return _can_drop


def _drop_capabilities_fn() -> Callable[[], None]:
    """A function for the child (after fork, before exec) that leaves it no capability, now or
    after exec; everything it needs is prepared here, so the child imports and looks up
    nothing."""
    libc = _libc()
    prctl, capset, get_errno = libc.prctl, libc.capset, ctypes.get_errno
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()

    def drop() -> None:
        if prctl(PR_SET_SECUREBITS, SECUREBITS_LOCKED_DOWN, 0, 0, 0) != 0:
            raise OSError(get_errno(), "prctl(PR_SET_SECUREBITS)")
        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)  # EINVAL before Linux 4.3
        for cap in range(last + 1):
            if prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                raise OSError(get_errno(), f"prctl(PR_CAPBSET_DROP, {cap})")
        if capset(ctypes.byref(header), data) != 0:
            raise OSError(get_errno(), "capset")

    return drop


def _limit_settings(limits: Limits, nproc: int | None = None, memory_mb: int | None = None) -> list:
    """``(resource, (soft, hard))`` for a bot: no core files, no message queue, a few queued
    signals (``SIGPENDING``), no locked memory, ``NOFILE`` open files, ``RLIMIT_FSIZE``, ``RLIMIT_AS`` from ``memory_mb`` (default
    ``limits.memory_mb``) and ``RLIMIT_NPROC`` ``nproc``, never above the platform's own hard
    limits."""
    wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_FSIZE, STDERR_LIMIT_BYTES)]
    # No POSIX message queue: their bytes are counted per host user, so one bot using them up
    # would be seen by every other bot of that user (and no bot needs one).
    wanted.append((resource.RLIMIT_MSGQUEUE, 0))
    # Queued signals are counted per host user too: a few each, so that no bot can use up the
    # user's quota (the kernel counts each user namespace's own against its limit first).
    wanted.append((resource.RLIMIT_SIGPENDING, SIGPENDING))
    # Locked shared memory (SHM_LOCK, hugetlb memfds) is counted per host user as well, up
    # to the RLIMIT_MEMLOCK of whoever made the sandbox's namespace: none for a bot (no bot
    # needs to lock memory), so no bot moves what another may lock.
    wanted.append((resource.RLIMIT_MEMLOCK, 0))
    wanted.append((resource.RLIMIT_NOFILE, NOFILE))
    if nproc:
        wanted.append((resource.RLIMIT_NPROC, nproc))
    if memory_mb is None:
        memory_mb = getattr(limits, "memory_mb", 0) or 0
    if memory_mb > 0:
        wanted.append((resource.RLIMIT_AS, int(memory_mb * MIB)))
    settings = []
    for which, value in wanted:
        hard = resource.getrlimit(which)[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # never above what the platform itself may use
        settings.append((which, (value, value)))
    return settings


def raise_descriptor_limit() -> int:
    """Raise this process's soft limit on open files to its hard limit (at most
    ``MAX_DESCRIPTORS``); returns the soft limit now. A default of 1,024 is little for a
    process that holds a pool of sandboxed bots (about 8 descriptors each: pipes, stderr file,
    cgroup files, pidfd) or a server's connections: past it, a bot could not be started and
    its seat would forfeit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = MAX_DESCRIPTORS if hard == resource.RLIM_INFINITY else min(hard, MAX_DESCRIPTORS)
    if soft != resource.RLIM_INFINITY and soft < want:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError):
            pass
    return soft


def _child_setup(limits: Limits, drop_caps: bool) -> Callable[[], None]:
    """The ``preexec_fn`` of a bot without its sandbox: resource limits, then (root fallback)
    no capabilities, then no new privileges. Runs in the child between fork and exec, after the
    switch of user."""
    settings = _limit_settings(limits)
    setrlimit = resource.setrlimit
    drop = _drop_capabilities_fn() if drop_caps else None
    prctl = _libc().prctl if _LINUX else None

    def setup() -> None:
        for which, value in settings:
            setrlimit(which, value)
        if drop is not None:
            drop()
        if prctl is not None:
            prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)

    return setup


@dataclass(frozen=True)
class RunAs:
    """Whom a bot runs as. ``uid``/``gid`` None: the platform's own user; ``drop_caps``: root
    without capabilities; ``note``: what was chosen and why, for people."""

    user: str | None = None
    uid: int | None = None
    gid: int | None = None
    home: str | None = None
    drop_caps: bool = False
    note: str = ""


_R, _X = 4, 1


def _path_problem(path: str, uid: int, gids: set[int], bits: int, user: str) -> str | None:
    """Why ``user`` (``uid``, ``gids``) cannot reach ``path`` with ``bits`` (read 4, execute 1;
    directories on the way need execute), from the mode bits (ACLs are not read); or None."""
    real = os.path.realpath(path)
    parts = real.split(os.sep)
    for i in range(1, len(parts) + 1):
        here = os.sep.join(parts[:i]) or os.sep
        last = i == len(parts)
        need = bits if last else _X
        try:
            st = os.stat(here)
        except OSError as exc:
            return f"{here} cannot be inspected ({exc.strerror})"
        if last and stat.S_ISDIR(st.st_mode):
            need |= _X
        if st.st_uid == uid:
            have = st.st_mode >> 6 & 7
        elif st.st_gid in gids:
            have = st.st_mode >> 3 & 7
        else:
            have = st.st_mode & 7
        if have & need != need:
            try:
                owner = pwd.getpwuid(st.st_uid).pw_name
            except KeyError:
                owner = str(st.st_uid)
            try:
                owner += ":" + grp.getgrgid(st.st_gid).gr_name
            except KeyError:
                owner += f":{st.st_gid}"
            verb = (
                "enter"
                if not last
                else "read and enter"
                if stat.S_ISDIR(st.st_mode)
                else "execute"
                if need == _X
                else "read"
            )
            return f"user {user} cannot {verb} {here} ({stat.filemode(st.st_mode)} {owner})"
    return None


def _needed_paths(command: Sequence[str], cwd: str | None) -> list[tuple[str, int, str]]:
    """``(path, bits, what)`` that the bot's user must reach for the bot to run."""
    program = command[0]
    if os.sep not in program:
        program = shutil.which(program) or program
    elif not os.path.isabs(program) and cwd:
        program = os.path.join(cwd, program)
    out = [(program, _X, "the bot's program")]
    if cwd:
        out.append((cwd, _R | _X, "the bot's folder"))
    for arg in command[1:]:
        path = arg if os.path.isabs(arg) or not cwd else os.path.join(cwd, arg)
        if os.sep in arg or (cwd and os.path.exists(path)):
            if os.path.exists(path):
                out.append((path, _R, "the bot's file"))
    if os.path.exists(program) and os.path.realpath(program) == os.path.realpath(sys.executable):
        libs = {os.path.dirname(os.__file__)}
        libs.update(
            p
            for p in (sysconfig.get_paths().get("purelib"), sysconfig.get_paths().get("platlib"))
            if p
        )
        if "mallows.agents.host" in command:
            libs.add(str(Path(__file__).resolve().parents[2]))  # the folder holding mallows/
        out.extend(
            (p, _R | _X, "the Python installation's") for p in sorted(libs) if os.path.isdir(p)
        )
    return out


def plan_run_as(command: Sequence[str], cwd: str | None) -> RunAs:
    """Whom to run a bot as, from ``MALLOWS_BOT_USER``:

    - unset or ``auto``: as the platform's own user when it is not root (it cannot switch);
      as root, as ``nobody`` when ``nobody`` can reach the program, the bot's folder and files
      and the Python installation; otherwise as root without capabilities (Linux), so it still
      cannot read the non-dumpable platform (but it can read and write root's files);
    - ``none``: as the platform's own user, unchanged (root keeps its capabilities: for
      trusted bots only);
    - a user name: as that user (the platform must be root), or a ``BotFailure`` saying what
      that user cannot reach."""
    choice = os.environ.get(BOT_USER_ENV, "").strip()
    if choice.lower() in ("none", "off", "0", "no"):
        return RunAs(note=f"as the platform's own user ({BOT_USER_ENV}={choice})")
    explicit = choice.lower() not in ("", "auto")
    name = choice if explicit else DEFAULT_BOT_USER
    try:
        pw = pwd.getpwnam(name)
    except KeyError:
        if explicit:
            raise BotFailure(
                f"cannot run the bot as user {name!r} ({BOT_USER_ENV}={choice}): "
                f"there is no such user",
                kind="error",
            ) from None
        pw = None
    euid = os.geteuid()
    if euid != 0 or (pw is not None and pw.pw_uid == euid):
        if explicit and pw is not None and pw.pw_uid != euid:  # (explicit: pw is known)
            raise BotFailure(
                f"cannot run the bot as user {name!r} ({BOT_USER_ENV}={choice}): "
                f"only a platform running as root can switch users",
                kind="error",
            )
        return RunAs(note="as the platform's own user")
    problem: str | None = f"there is no user {name}"
    if pw is not None:
        gids = {pw.pw_gid}
        problem = None
        for path, bits, what in _needed_paths(command, cwd):
            why = _path_problem(path, pw.pw_uid, gids, bits, name)
            if why:
                problem = f"{why}, on the way to {what} {path}".replace(
                    "the Python installation's", "the Python installation at"
                )
                break
        if problem is None:
            return RunAs(
                user=name, uid=pw.pw_uid, gid=pw.pw_gid, home=pw.pw_dir, note=f"as user {name}"
            )
        if explicit:
            raise BotFailure(
                f"cannot run the bot as user {name} ({BOT_USER_ENV}={choice}): "
                f"{problem}. Make it readable by {name} (for example chmod o+rx), "
                f"or unset {BOT_USER_ENV} to run such a bot as root without "
                f"capabilities",
                kind="error",
            )
    if can_drop_capabilities():
        return RunAs(drop_caps=True, note=f"as root without capabilities ({problem})")
    return RunAs(
        note=f"as root with its capabilities: {problem}, and this platform cannot "
        f"drop capabilities (not Linux, or no CAP_SETPCAP)"
    )


def bot_environment(run_as: RunAs) -> dict:
    """The environment of a bot: the platform's variables in ``BOT_ENV_KEEP``, ``LC_*`` and
    those named in ``MALLOWS_BOT_ENV``; ``HOME``/``USER``/``LOGNAME`` of the bot's user."""
    extra = {n.strip() for n in os.environ.get(BOT_ENV_ENV, "").split(",") if n.strip()}
    env = {
        k: v
        for k, v in os.environ.items()
        if k in BOT_ENV_KEEP or k.startswith("LC_") or k in extra
    }
    if run_as.user is not None:
        env.update(HOME=run_as.home or "/", USER=run_as.user, LOGNAME=run_as.user)
    env.setdefault("PYTHONUNBUFFERED", "1")  # a Python bot's print() reaches us at once
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # never bytecode in its (snapshot's) folder
    env[PLUGINS_ENV] = dumps(plugin_games()).decode()  # the platform's games, no scan
    return env
