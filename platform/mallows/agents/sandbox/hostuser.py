"""Whom a sandbox is, outside: the host uid that uid 1000 inside the sandbox maps to.

bwrap makes the sandbox's user namespace as the user that runs it, and maps the bot's uid 1000
to that user. A platform running as root therefore never runs bwrap as root: the child it
starts joins the bot's cgroups (as root: a process moving itself costs nothing), then drops to
``MALLOWS_SANDBOX_USER`` (default ``nobody``, uid 65534; a name or a number, never 0), with no
supplementary group, and only then becomes bwrap (``child_setup``). To the kernel every
sandboxed bot is that unprivileged user: ``/proc/sys`` and every root-owned file refuse it
whatever its uid inside. A platform that is not root runs bwrap as itself: the bot is the
platform's (unprivileged) user outside.

What that user cannot reach on the host (the platform's Python under ``/root``, the snapshot
cache in root's home) is still bound into the sandbox: before dropping root, the child makes a
private mount namespace of its own (seen by nothing else), mounts a small tmpfs on a folder
bots never see (``STAGE_CANDIDATES``) and binds each such path there; bwrap, now unprivileged,
binds it from there to the path it has inside. Only the paths the sandbox binds anyway are
staged; what they hold keeps its owners and modes.

``problem()`` says why no unprivileged user can be used here (no such user, uid 0, a root
without ``CAP_SETUID``), or ``None``; the sandbox then refuses bots with that message.
"""

from __future__ import annotations

import ctypes
import functools
import os
import pwd
from dataclasses import dataclass

USER_ENV = "MALLOWS_SANDBOX_USER"
DEFAULT_USER = "nobody"
STAGE_CANDIDATES = ("/run", "/mnt", "/media", "/srv", "/opt", "/var/tmp")
CLONE_NEWNS = 0x00020000
MS_BIND, MS_REC, MS_PRIVATE, MS_NOSUID, MS_NODEV = 4096, 16384, 1 << 18, 2, 4
CAP_SETGID, CAP_SETUID = 6, 7


@dataclass(frozen=True)
class HostUser:
    """The host user of the sandboxes: ``uid``/``gid``; ``switch``: the platform is root and
    drops to it in the child; ``name`` for people."""

    uid: int
    gid: int
    name: str
    switch: bool

    def describe(self) -> str:
        how = "the platform drops root for it" if self.switch else "the platform's own user"
        return f"uid 1000 inside is host uid {self.uid} ({self.name}: {how})"


def _capabilities() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


@functools.cache
def _resolve(choice: str, euid: int) -> HostUser | str:
    if euid != 0:
        try:
            name = pwd.getpwuid(euid).pw_name
        except KeyError:
            name = str(euid)
        return HostUser(euid, os.getegid(), name, switch=False)
    wanted = choice or DEFAULT_USER
    try:
        pw = pwd.getpwuid(int(wanted)) if wanted.isdigit() else pwd.getpwnam(wanted)
        uid, gid, name = pw.pw_uid, pw.pw_gid, pw.pw_name
    except KeyError:
        if not wanted.isdigit():
            return (
                f"the platform runs as root, and the sandbox's host user {wanted!r} "
                f"({USER_ENV}) does not exist: create it (useradd --system mallows-bot) "
                f"and set {USER_ENV}, or name another unprivileged user or a uid"
            )
        uid = gid = int(wanted)  # a bare uid of a range kept for bots
        name = wanted
    if uid == 0 or gid == 0:
        return (
            f"{USER_ENV}={wanted!r} is root: a bot's sandbox never runs as root; name an "
            f"unprivileged user (the default is {DEFAULT_USER})"
        )
    caps = _capabilities()
    if not (caps >> CAP_SETUID & 1 and caps >> CAP_SETGID & 1):
        return (
            "the platform runs as root without CAP_SETUID/CAP_SETGID, so it cannot drop "
            "to an unprivileged user for the sandbox; run the platform as an ordinary "
            "user, or give it those capabilities"
        )
    return HostUser(uid, gid, name, switch=True)


def host_user() -> HostUser | str:
    """The sandboxes' host user, or why there can be none (a message)."""
    return _resolve(os.environ.get(USER_ENV, "").strip(), os.geteuid())


def problem() -> str | None:
    found = host_user()
    return found if isinstance(found, str) else None


@functools.lru_cache(maxsize=4096)
def reachable(path: str, uid: int, gid: int, directory: bool) -> bool:
    """Whether ``uid``/``gid`` can reach ``path`` (enter every folder on the way; read it, and
    enter it if it is a folder), from the mode bits."""
    from mallows.agents.isolation import _path_problem

    bits = 4 | (1 if directory else 0)
    return _path_problem(path, uid, {gid}, bits, str(uid)) is None


@functools.cache
def stage_dir() -> str | None:
    """The folder the child mounts its staging tmpfs on (in its own mount namespace only)."""
    for candidate in STAGE_CANDIDATES:
        if os.path.isdir(candidate) and not os.path.islink(candidate):
            return candidate
    return None


@functools.cache
def _libc():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mount.argtypes = [
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_char_p,
        ctypes.c_ulong,
        ctypes.c_char_p,
    ]
    libc.unshare.argtypes = [ctypes.c_int]
    return libc


def child_setup(
    user: HostUser,
    joins: list[str],
    staged: list[tuple[str, str, bool]],
    rlimits: list | None = None,
):
    """The ``preexec_fn`` of bwrap when the platform is root: join the cgroups (``joins``),
    set ``rlimits`` (``(resource, (soft, hard))``: set here, since a root without
    ``CAP_SYS_RESOURCE`` cannot ``prlimit`` another user's process), stage ``staged``
    (``(source, slot, is_dir)``) in a private mount namespace, then drop to ``user`` for good.
    Everything is prepared here; the child calls only system calls."""
    import resource

    setrlimit = resource.setrlimit
    limits = list(rlimits or [])
    libc = _libc()
    mount, unshare, get_errno = libc.mount, libc.unshare, ctypes.get_errno
    top = (stage_dir() or "").encode()
    pairs = [(src.encode(), slot.encode(), is_dir) for src, slot, is_dir in staged]
    uid, gid = user.uid, user.gid

    def setup() -> None:
        for path in joins:
            fd = os.open(path, os.O_WRONLY)
            try:
                os.write(fd, b"0")
            finally:
                os.close(fd)
        for which, value in limits:
            setrlimit(which, value)
        if pairs:
            if unshare(CLONE_NEWNS) != 0:
                raise OSError(get_errno(), "unshare(CLONE_NEWNS)")
            if mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None) != 0:
                raise OSError(get_errno(), "mount --make-rprivate /")
            if (
                mount(b"mallows-stage", top, b"tmpfs", MS_NOSUID | MS_NODEV, b"mode=0755,size=64k")
                != 0
            ):
                raise OSError(get_errno(), "mount tmpfs on the staging folder")
            for src, slot, is_dir in pairs:
                if is_dir:
                    os.mkdir(slot, 0o755)
                else:
                    os.close(os.open(slot, os.O_WRONLY | os.O_CREAT, 0o644))
                if mount(src, slot, None, MS_BIND | MS_REC, None) != 0:
                    raise OSError(get_errno(), f"bind {src!r}")
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)

    return setup
