"""What of ``/proc`` and ``/dev`` a bot sees: nothing that another process can move.

A bot gets a fresh ``/proc`` of its own PID namespace, so its processes' folders are its own.
What is left of ``/proc`` is the machine's: every counter there (free memory, CPU time, open
files, AIO contexts, pseudo-terminals, interrupts, ...) moves with what another bot does, and
two bots of one author running at once could signal each other through it. So:

- ``LIVE``: the entries left as they are: per process (``self``, ``thread-self``, the PID
  folders), per namespace (``mounts``, ``net``, ``sysvipc``: the bot's own) and the machine's
  constants (the kernel's version, devices, file systems, symbols, ...);
- ``EMPTY``: entries that list other processes' objects (file locks, keys): shown empty;
- everything else, found when the copy is made and not named anywhere (so a counter a new
  kernel adds is frozen too): ``/proc/sys`` whole, and every other file or folder at the top
  of ``/proc``, shown as a copy taken once (``frozen``: per boot and user, or per process). A
  copy holds only what every user may read (``S_IROTH``): never more than the bot could read
  live.

``/dev`` is made here too (``dev_argv``): the harmless devices (``null``, ``zero``, ``full``,
``random``, ``urandom``, ``tty``) and the ``fd`` links, no ``/dev/ptmx`` or ``/dev/pts``:
pseudo-terminals are counted machine-wide (``/proc/sys/kernel/pty/nr``) and no bot needs one.
"""

from __future__ import annotations

import atexit
import os
import shutil
import stat
import tempfile

from mallows.agents.sandbox.snapshot import SCRATCH_ENV, copy_file, publish, readable

LIVE = frozenset(
    {
        "self",
        "thread-self",
        "mounts",
        "net",
        "sysvipc",
        "cmdline",
        "config.gz",
        "consoles",
        "crypto",
        "devices",
        "dma",
        "execdomains",
        "filesystems",
        "iomem",
        "ioports",
        "kallsyms",
        "misc",
        "modules",
        "mtrr",
        "version",
        "version_signature",
    }
)
EMPTY = frozenset({"locks", "keys", "key-users"})
#: In ``/proc/sys/net/*/conf`` and ``*/neigh``, the folders kept: a bot's network namespace has
#: only its loopback (the host's interfaces are neither its business nor cheap to copy).
NET_KEPT = frozenset({"all", "default", "lo"})
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_FROZEN: list[list[tuple[str, str]]] = []


def _copy_tree(src: str, dst: str) -> None:
    """``src``'s folders and its files every user may read, as read-only copies."""
    os.mkdir(dst, 0o755)
    try:
        entries = list(os.scandir(src))
    except OSError:
        entries = []
    per_interface = src.startswith("/proc/sys/net/") and src.rsplit("/", 1)[1] in (
        "conf",
        "neigh",
    )
    for entry in entries:
        if per_interface and entry.name not in NET_KEPT:
            continue
        target = os.path.join(dst, entry.name)
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode) and readable(st.st_mode):
            _copy_tree(entry.path, target)
        elif stat.S_ISREG(st.st_mode) and readable(st.st_mode):
            copy_file(entry.path, target)
    os.chmod(dst, 0o555)


def _snapshot(folder: str) -> list[tuple[str, str]]:
    """Fill ``folder`` with the copies (see ``frozen``); ``(copy, /proc/name)`` of each."""
    out = []
    for entry in sorted(os.scandir("/proc"), key=lambda e: e.name):
        name = entry.name
        if name.isdigit() or name in LIVE:
            continue
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        copy = os.path.join(folder, name)
        if name in EMPTY:
            if stat.S_ISREG(st.st_mode):
                with open(copy, "wb"):
                    pass
                os.chmod(copy, 0o444)
                out.append((copy, f"/proc/{name}"))
            continue
        if not readable(st.st_mode):
            continue  # the bot's host user cannot read it live either
        if stat.S_ISDIR(st.st_mode):
            _copy_tree(entry.path, copy)
        elif not (stat.S_ISREG(st.st_mode) and copy_file(entry.path, copy)):
            continue
        out.append((copy, f"/proc/{name}"))
    return out


#: the list of a shared snapshot's entries, written last: a folder without it is incomplete
INDEX = ".entries"


def _shared(memory: str) -> list[tuple[str, str]] | None:
    """The snapshot this user's platform processes share until the machine restarts, in
    ``memory`` (a tmpfs, emptied at boot), named by the user and the boot: made once, by the
    first process that needs it (complete before it gets its name), then only read. None
    where it cannot be made or trusted (the caller then takes a copy of its own)."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip().replace("-", "")[:16]
    except OSError:
        return None
    if not boot.isalnum():
        return None

    def fill(folder: str) -> None:
        names = [name for _, name in _snapshot(folder)]
        with open(os.path.join(folder, INDEX), "w") as f:
            f.write("\n".join(names))
        os.chmod(os.path.join(folder, INDEX), 0o444)

    final = publish(memory, f"mallows-proc-shared-{os.geteuid()}-{boot}", fill)
    if final is None:
        return None
    try:
        with open(os.path.join(final, INDEX)) as f:
            names = f.read().split()
    except OSError:
        return None
    return [(os.path.join(final, name[len("/proc/") :]), name) for name in names]


def frozen() -> list[tuple[str, str]]:
    """``(copy, /proc/name)`` for every entry at the top of ``/proc`` that is neither in
    ``LIVE`` nor a PID folder: a frozen copy, or an empty file for ``EMPTY``, in a folder
    every user can read and only this user can write.

    Taken once per boot and user where there is a ``/dev/shm`` (``_shared``: a snapshot costs
    about 1,100 files and a second or more, which a command paid on every start and again to
    remove it at exit), else once per process (removed when the process exits); under a
    run's scratch folder (``SCRATCH_ENV``) once per process too, removed with the run. A
    snapshot shows every bot the same fixed values whenever it was taken: what another
    process does later never reaches it."""
    if not _FROZEN:
        memory = "/dev/shm"  # a tmpfs where there is one: a thousand small files, written fast
        here = memory if os.path.isdir(memory) and os.access(memory, os.W_OK) else None
        # a Ray worker never runs atexit: under a run's scratch folder (made and removed by
        # the process that owns the run, ``runner.cluster``) the copies go with the run
        scratch = os.environ.get(SCRATCH_ENV)
        shared = _shared(here) if here is not None and not scratch else None
        if shared is not None:
            _FROZEN.append(shared)
            return shared
        here = scratch if scratch and os.path.isdir(scratch) else here
        folder = tempfile.mkdtemp(prefix="mallows-proc-", dir=here)
        atexit.register(shutil.rmtree, folder, True)
        out = _snapshot(folder)
        os.chmod(folder, 0o755)
        _FROZEN.append(out)
    return _FROZEN[0]


def proc_argv() -> list[str]:
    """bwrap's options for ``/proc``: the bot's own, read-only, with ``frozen()`` bound on."""
    argv = ["--proc", "/proc", "--remount-ro", "/proc"]
    for copy, name in frozen():
        argv += ["--ro-bind", copy, name]
    return argv


def dev_argv() -> list[str]:
    """bwrap's options for ``/dev``: a read-only tmpfs with ``DEVICES`` bound in and the
    ``fd`` links (``/dev/shm`` is mounted on it afterwards by the caller)."""
    argv = ["--perms", "0755", "--tmpfs", "/dev"]
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            argv += ["--dev-bind", f"/dev/{name}", f"/dev/{name}"]
    for i, name in enumerate(("stdin", "stdout", "stderr")):
        argv += ["--symlink", f"/proc/self/fd/{i}", f"/dev/{name}"]
    argv += ["--symlink", "/proc/self/fd", "/dev/fd", "--dir", "/dev/shm"]
    return argv
