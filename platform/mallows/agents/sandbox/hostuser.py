"""Whom a sandbox is, outside: the host uid that uid 1000 inside the sandbox maps to.

bwrap makes the sandbox's user namespace as the user that runs it, and maps the bot's uid 1000
to that user. A platform running as root therefore never runs bwrap as root: the child it
starts joins the bot's cgroups (as root: a process moving itself costs nothing), then drops to
the sandbox's host user, with no supplementary group, and only then becomes bwrap
(``child_setup``). To the kernel every sandboxed bot is an unprivileged user: ``/proc/sys``
and every root-owned file refuse it whatever its uid inside.

Which host user: as root, by default a uid of its own for each sandbox, from the pool
``MALLOWS_SANDBOX_UIDS`` (``FIRST-LAST``, default ``DEFAULT_POOL``: uids no account uses):
the kernel counts some resources per host user (pipe buffers, queued signals, message-queue
bytes, processes), and two bots sharing one host uid could signal each other by using them
up. ``claim`` takes a free uid of the pool for one sandbox (an exclusive ``flock`` on its file
in a root-only folder, so two platform processes on one machine never share one) and
``Claim.release`` gives it back. ``MALLOWS_SANDBOX_USER`` (a name or a number, never 0) names
one user for every sandbox instead, as before (then they share its per-user limits). A
platform that is not root runs bwrap as itself: the bot is the platform's (unprivileged) user
outside, shared by every bot it runs (``status`` says so).

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
from typing import Callable

USER_ENV = "MALLOWS_SANDBOX_USER"
POOL_ENV = "MALLOWS_SANDBOX_UIDS"
DEFAULT_POOL = (2_100_000_000, 2_100_065_535)  # no account, no file owner: a uid for each sandbox
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
    pool: tuple[int, int] | None = None  # (first, last): each sandbox claims a uid of its own

    def describe(self) -> str:
        if self.pool is not None:
            return (
                f"uid 1000 inside is a host uid of its own for each sandbox, from "
                f"{self.pool[0]}-{self.pool[1]} ({POOL_ENV}: the platform drops root for it)"
            )
        how = "the platform drops root for it" if self.switch else "the platform's own user"
        return (
            f"uid 1000 inside is host uid {self.uid} ({self.name}: {how}; every sandbox "
            f"shares its per-user limits)"
        )


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
    if not choice:
        pool = _pool(os.environ.get(POOL_ENV, "").strip())
        if isinstance(pool, str):
            return pool
        first = pool[0]
        why = _setuid_problem()
        return why or HostUser(first, first, f"uid {first}", switch=True, pool=pool)
    wanted = choice
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
            f"unprivileged user, or unset it (each sandbox then gets a uid of its own)"
        )
    return _setuid_problem() or HostUser(uid, gid, name, switch=True)


def _setuid_problem() -> str | None:
    caps = _capabilities()
    if not (caps >> CAP_SETUID & 1 and caps >> CAP_SETGID & 1):
        return (
            "the platform runs as root without CAP_SETUID/CAP_SETGID, so it cannot drop "
            "to an unprivileged user for the sandbox; run the platform as an ordinary "
            "user, or give it those capabilities"
        )
    return None


def _pool(text: str) -> tuple[int, int] | str:
    """``(first, last)`` of ``MALLOWS_SANDBOX_UIDS`` (``DEFAULT_POOL`` when empty), or why not."""
    if not text:
        return DEFAULT_POOL
    first, _, last = text.partition("-")
    if first.strip().isdigit() and last.strip().isdigit():
        lo, hi = int(first), int(last)
        if 0 < lo <= hi < 2**32 - 1:
            return lo, hi
    return (
        f"{POOL_ENV}={text!r}: write FIRST-LAST, a range of unused uids above 0 for the "
        f"sandboxes' host users (the default is {DEFAULT_POOL[0]}-{DEFAULT_POOL[1]}), or "
        f"name one user for every sandbox with {USER_ENV}"
    )


@dataclass
class Claim:
    """The host user of one sandbox, and the lock that keeps its uid its own (``fd``)."""

    user: HostUser
    fd: int = -1

    def release(self) -> None:
        fd, self.fd = self.fd, -1
        if fd >= 0:
            os.close(fd)


def _lock_folder() -> str:
    import tempfile

    for top in ("/run", tempfile.gettempdir()):
        folder = os.path.join(top, "mallows-uids")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        st = os.lstat(folder)
        if st.st_uid == os.geteuid() and not os.path.islink(folder) and st.st_mode & 0o077 == 0:
            return folder
    raise OSError("no folder for the sandboxes' uid locks (/run or the temporary folder)")


def claim(user: HostUser) -> Claim:
    """The host user of one new sandbox: ``user`` itself, or for a pool a uid no other sandbox
    on this machine holds now (``OSError`` when every one is taken)."""
    import fcntl
    import random

    if user.pool is None:
        return Claim(user)
    first, last = user.pool
    folder = _lock_folder()
    count = last - first + 1
    start = random.randrange(count)  # few collisions between platform processes
    for i in range(min(count, 4096)):
        uid = first + (start + i) % count
        fd = os.open(
            f"{folder}/{uid}", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600
        )
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue
        return Claim(HostUser(uid, uid, f"uid {uid}", switch=True, pool=user.pool), fd)
    raise OSError(f"every uid of {POOL_ENV} ({first}-{last}) is held by a running sandbox")


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
def _libc() -> ctypes.CDLL:
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
) -> Callable[[], None]:
    """The ``preexec_fn`` of bwrap when the platform is root: join the cgroups (``joins``),
    stage ``staged`` (``(source, slot, is_dir)``; a slot's missing folders are made, open) in
    a private mount namespace, set ``rlimits`` (``(resource, (soft, hard))``: set here, since
    a root without ``CAP_SYS_RESOURCE`` cannot ``prlimit`` another user's process; after the
    staging, which opens files), then drop to ``user`` for good.
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
                parent = os.path.dirname(slot)
                if not os.path.isdir(parent):  # a slot inside a slot: its folder, open
                    os.makedirs(parent, 0o755)
                if is_dir:
                    os.mkdir(slot, 0o755)
                else:
                    os.close(os.open(slot, os.O_WRONLY | os.O_CREAT, 0o644))
                if mount(src, slot, None, MS_BIND | MS_REC, None) != 0:
                    raise OSError(get_errno(), f"bind {src!r}")
        # the limits last: this child still holds every descriptor the platform has open
        # (``close_fds`` happens after this function), so under the bot's RLIMIT_NOFILE the
        # staging's own open() would fail once the platform holds that many (a pool of bot
        # processes does: each has its pipes, stderr file and cgroup files)
        for which, value in limits:
            setrlimit(which, value)
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)

    return setup
