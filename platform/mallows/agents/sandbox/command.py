"""The bwrap command line of one bot process (``wrap``), and which commands a bot may name
(``check_command``).

A bot's sandbox sees, read-only: the system's folders (``SYSTEM_DIRS``), the few files of
``/etc`` a dynamic linker or runtime reads (``ETC_FILES``), for a Python bot the platform's
interpreter, virtual environment and the ``mallows`` package, its own files, and the paths of
``MALLOWS_SANDBOX_BIND``. Nothing else: a manifest's ``command`` may therefore only name the
platform's interpreter (``python``), a program in the system's folders, a file of the bot's
own, or a program under a ``MALLOWS_SANDBOX_BIND`` path (``check_command``, at load and at
submit time). The bot's ``PATH`` keeps only the folders it can see.

What does not depend on the bot is worked out once per process: the start of the argv
(``_fixed_argv``) and the folders of the platform's Python (``_python_runtime``, again when
``sys.path`` changes).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mallows.agents.sandbox import seccomp
from mallows.agents.sandbox.binary import bwrap_binary
from mallows.agents.sandbox.cgroups import MAX_PROCESSES, BotCgroup
from mallows.agents.sandbox.hostuser import (
    HostUser,
    child_setup,
    host_user,
    reachable,
    stage_dir,
)
from mallows.errors import BotError

BOT_UID = BOT_GID = 1000  # the bot's user inside its user namespace
TMP_MB = 64  # the private /tmp (and /dev/shm) of one bot process
BIND_ENV = "MALLOWS_SANDBOX_BIND"  # more read-only paths for every bot, separated by ":"
# What the dynamic linker and common runtimes read in /etc (no user database, no secrets).
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "alternatives",
    "nsswitch.conf",
    "ssl/certs",
    "mime.types",
)
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
PYTHON_NAMES = ("python", "python3")


@dataclass
class Wrapped:
    argv: list[str]
    env: dict
    cgroup: BotCgroup | None = None
    nproc: int | None = None  # RLIMIT_NPROC to set in the child, if any
    binds: list[str] = field(default_factory=list)
    launcher: list[str] = field(default_factory=list)  # goes before argv: BotCgroup.launcher
    fds: list[int] = field(default_factory=list)  # to pass to bwrap, then close
    user: HostUser | None = None
    staged: list[tuple[str, str, bool]] = field(default_factory=list)  # for the host user
    freezer: object = None  # what freezes the bot: its cgroup, or a signals.SignalFreezer

    def command(self, *options: str) -> list[str]:
        """What to start: the launcher, then bwrap with ``options`` first."""
        return [*self.launcher, self.argv[0], *options, *self.argv[1:]]

    def setup(self, rlimits: list | None = None) -> Callable[[], None] | None:
        """The child's ``preexec_fn`` when the platform is root (``hostuser.child_setup``:
        it sets ``rlimits`` itself), else None (the caller ``prlimit``s bwrap's child)."""
        if self.user is None or not self.user.switch:
            return None
        joins = self.cgroup.joins if self.cgroup is not None else []
        return child_setup(self.user, joins, self.staged, rlimits)

    def close_fds(self) -> None:
        fds, self.fds = self.fds, []
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass


_PYTHON: dict = {}  # _python_key() -> what _python_runtime returns


def _python_key() -> tuple:
    return (
        sys.executable,
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        tuple(sys.path),
    )


def _python_runtime() -> tuple[list[str], str]:
    """``(folders, interpreter)``: the folders a bot run by this Python needs (its
    installation, virtual environment, site folders and the ``mallows`` package) and the real
    path of ``sys.executable``. Worked out once per value of ``_python_key()`` (a changed
    ``sys.path`` is seen at the next spawn)."""
    key = _python_key()
    found = _PYTHON.get(key)
    if found is None:
        real = os.path.realpath(sys.executable)
        paths = {
            sys.base_prefix,
            sys.prefix,
            sys.exec_prefix,
            sys.base_exec_prefix,
            os.path.dirname(real),
            os.path.dirname(os.path.abspath(sys.executable)),
        }
        for name in ("stdlib", "platstdlib", "purelib", "platlib"):
            p = sysconfig.get_paths().get(name)
            if p:
                paths.add(p)
        prefixes = tuple(
            os.path.realpath(p).rstrip("/") + "/"
            for p in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        )
        for p in sys.path:  # the installation's, and site folders (never the current folder)
            if (
                p
                and os.path.isdir(p)
                and (
                    (os.path.realpath(p) + "/").startswith(prefixes)
                    or os.path.basename(p) in ("site-packages", "dist-packages")
                )
            ):
                paths.add(p)
        import mallows

        paths.add(str(Path(mallows.__file__).resolve().parent))
        found = _PYTHON[key] = (sorted(paths), real)
    return list(found[0]), found[1]


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
            return root + "/" + path[len(root) + 1 :].split("/", 1)[0]
    return None


def _inside(path: str, folders) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in folders)


def _covered(path: str) -> bool:
    return _inside(path, SYSTEM_DIRS)


def extra_binds() -> list[str]:
    """The organiser's ``MALLOWS_SANDBOX_BIND`` paths (absolute, existing)."""
    return [
        os.path.abspath(p)
        for p in os.environ.get(BIND_ENV, "").split(":")
        if p.strip() and os.path.exists(p)
    ]


def allowed_places() -> str:
    binds = extra_binds()
    return (
        f"the platform's interpreter (write \"python\"), a program in the system's folders "
        f"({', '.join(d for d in SYSTEM_DIRS if os.path.exists(d))}), or a file in the "
        f"bot's own folder; an organiser can allow another runtime's folder with "
        f"{BIND_ENV} (now " + (":".join(binds) if binds else "unset") + ")"
    )


def check_command(program: str, resolved: str, folder: str | Path, where: str) -> None:
    """Refuse (``BotError`` naming ``where``, the allowed places and ``MALLOWS_SANDBOX_BIND``)
    a manifest command whose program a sandbox would not contain: anything but ``python``, a
    program in the system's folders, a file in ``folder`` (the bot's own) or a program under a
    ``MALLOWS_SANDBOX_BIND`` path."""
    if program in PYTHON_NAMES:
        return
    real = os.path.realpath(resolved)
    own = os.path.realpath(folder)
    if "/" in program and not os.path.isabs(program) and _inside(real, [own]):
        return
    if _covered(real) or _covered(os.path.abspath(resolved)):
        return
    if _inside(real, [os.path.realpath(b) for b in extra_binds()]):
        return
    raise BotError(
        f"{where} names the command {program!r} ({real}), which a bot may not run: "
        f"its sandbox would not contain it. A bot's command may name "
        f"{allowed_places()}"
    )


#: Machine-wide counters in /proc that move with what another process does (memory taken,
#: CPU used, files opened, locks held): a channel between two bots running at once. Each is
#: shown as a copy taken once per platform process, not live (``_proc_masks``).
#: (Each costs a bind mount at every start, about half a millisecond: counters a bot cannot
#: move, or cannot read, are left out.)
PROC_MASKED = (
    "meminfo",
    "stat",
    "loadavg",
    "vmstat",
    "zoneinfo",
    "buddyinfo",
    "schedstat",
    "interrupts",
    "softirqs",
    "diskstats",
    "uptime",
    "pressure/cpu",
    "pressure/memory",
    "pressure/io",
    "sys/fs/file-nr",
    "sys/fs/inode-nr",
    "sys/fs/dentry-state",
)
_MASKS: list = []
#: The environment variable naming a run's scratch folder (``runner.cluster`` sets it for the
#: workers of a local Ray, and removes the folder when the run ends).
SCRATCH_ENV = "MALLOWS_SCRATCH"


def _proc_masks() -> list[tuple[str, str]]:
    """``(copy, /proc/name)`` for each of ``PROC_MASKED`` here: copies taken once, readable
    by every user, in a folder of this process. A Ray worker never runs ``atexit``: under a
    run's scratch folder (``$MALLOWS_SCRATCH``, made and removed by the process that owns the
    run: ``runner.cluster``) the folder goes with the run; elsewhere at exit."""
    if not _MASKS:
        import atexit
        import shutil
        import tempfile

        scratch = os.environ.get(SCRATCH_ENV)
        folder = tempfile.mkdtemp(
            prefix="mallows-proc-", dir=scratch if scratch and os.path.isdir(scratch) else None
        )
        os.chmod(folder, 0o755)
        atexit.register(shutil.rmtree, folder, True)
        out = []
        for name in PROC_MASKED:
            try:
                with open(f"/proc/{name}", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            copy = os.path.join(folder, name.replace("/", "-"))
            with open(copy, "wb") as f:
                f.write(data)
            os.chmod(copy, 0o444)
            out.append((copy, f"/proc/{name}"))
        _MASKS.append(out)
    return _MASKS[0]


_FIXED: dict = {}  # bwrap binary -> the start of every bot's argv


def _fixed_argv(binary: str) -> tuple[str, ...]:
    """The start of every bot's argv, the same for every bot: the namespaces and the user,
    the system folders, the files of ``/etc``, ``/proc`` (read-only: no ``/proc/sys``,
    ``/proc/sysrq-trigger`` or other kernel setting can be written; the machine-wide counters
    of ``PROC_MASKED`` frozen), ``/dev`` and the private
    ``/tmp`` and ``/dev/shm``; no ``/sys``. Made once per process; ``--ro-bind-try`` leaves out
    an ``/etc`` file that is missing at a spawn."""
    found = _FIXED.get(binary)
    if found is None:
        argv = [
            binary,
            "--unshare-all",
            "--unshare-user",
            "--disable-userns",
            "--die-with-parent",
            "--new-session",
            "--cap-drop",
            "ALL",
            "--uid",
            str(BOT_UID),
            "--gid",
            str(BOT_GID),
            "--hostname",
            "mallows-bot",
        ]
        for d in SYSTEM_DIRS:
            if os.path.islink(d):
                argv += ["--symlink", os.readlink(d), d]
            elif os.path.isdir(d):
                argv += ["--ro-bind", d, d]
        for name in ETC_FILES:
            argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
        tmp_bytes = str(TMP_MB * 1024 * 1024)
        argv += ["--proc", "/proc", "--remount-ro", "/proc"]
        for copy, name in _proc_masks():
            argv += ["--ro-bind", copy, name]
        argv += [
            "--dev",
            "/dev",
            "--perms",
            "1777",
            "--size",
            tmp_bytes,
            "--tmpfs",
            "/tmp",
            "--perms",
            "1777",
            "--size",
            tmp_bytes,
            "--tmpfs",
            "/dev/shm",
        ]
        found = _FIXED[binary] = tuple(argv)
    return found


def visible_path(path_var: str, binds: Sequence[str]) -> str:
    """``PATH`` without the folders the sandbox does not show."""
    keep = [
        p
        for p in path_var.split(":")
        if p and os.path.isabs(p) and (_covered(p) or _inside(p, binds))
    ]
    return ":".join(dict.fromkeys(keep)) or "/usr/local/bin:/usr/bin:/bin"


def binds_for(command: Sequence[str], *, python: bool, bot_paths: Sequence[str]) -> list[str]:
    """Every folder or file bound into the sandbox of ``command`` besides the system's."""
    extra: list[str] = []
    python_paths, interpreter = _python_runtime()
    program = command[0] if command else ""
    if python or (program.startswith("/") and os.path.realpath(program) == interpreter):
        extra += python_paths
    extra += extra_binds()
    extra += list(bot_paths)
    return [p for p in _minimal(extra) if not _covered(p) and p != "/"]


def wrap(
    command: Sequence[str],
    cwd: str | None,
    *,
    python: bool,
    bot_paths: Sequence[str],
    env: dict | None = None,
    memory_mb: int = 0,
    cpus: frozenset | None = None,
) -> Wrapped:
    """The ``bwrap`` argv running ``command`` in ``cwd`` (inside, the same path), seeing
    ``bot_paths`` (the bot's own files) read-only, plus its runtime (the platform's Python when
    ``python``), held to ``cpus``. ``OSError`` when the host user cannot be used."""
    user = host_user()
    if isinstance(user, str):
        raise OSError(user)
    binary = bwrap_binary() or "bwrap"
    argv = list(_fixed_argv(binary))
    binds = binds_for(command, python=python, bot_paths=bot_paths)
    staged: list[tuple[str, str, bool]] = []
    top = stage_dir()

    def source(p: str) -> str:
        """Where bwrap, as the host user, finds ``p``: itself, or its staged copy."""
        if not user.switch or reachable(p, user.uid, user.gid, os.path.isdir(p)):
            return p
        if top is None:
            raise OSError(
                f"{p} cannot be reached by the sandbox's host user {user.name}, and "
                f"there is no folder to stage it in"
            )
        slot = f"{top}/{len(staged)}"
        staged.append((p, slot, os.path.isdir(p)))
        return slot

    if user.switch and not reachable(binary, user.uid, user.gid, False):
        argv[0] = source(binary)
    # A bind under the private /tmp (a project or venv that lives in /tmp) would have its parent
    # folders made inside the bot's own writable tmpfs: the bot could then create files beside
    # its own code. Each such top folder gets a tmpfs of its own, made read-only once the binds
    # are in it.
    shadows = sorted({t for t in (_private_top(p) for p in binds) if t is not None})
    for shadow in shadows:
        argv += ["--perms", "0755", "--tmpfs", shadow]
    for p in binds:
        argv += ["--ro-bind", source(p), p]
    for shadow in shadows:
        argv += ["--remount-ro", shadow]
    argv += ["--remount-ro", "/"]
    fd = seccomp.pipe_fd()
    argv += ["--seccomp", str(fd)]
    inside_cwd = cwd if cwd and _inside(cwd, binds) else "/tmp"
    argv += ["--chdir", inside_cwd, "--"]
    argv += list(command)
    bot_env = dict(env or {})
    bot_env.update(
        HOME="/tmp", TMPDIR="/tmp", USER="bot", LOGNAME="bot", PYTHONDONTWRITEBYTECODE="1"
    )
    bot_env["PATH"] = visible_path(bot_env.get("PATH", os.environ.get("PATH", "")), binds)
    wanted: dict = {
        "pids": MAX_PROCESSES + 1,  # + bwrap's own init (pid 1 inside)
        "cpuset": cpus,
        "cpu": None,
        "cpuacct": None,
        "freezer": None,
    }
    if memory_mb:  # all its processes together, and its /tmp and /dev/shm (tmpfs is memory)
        wanted["memory"] = (memory_mb + 2 * TMP_MB) * 1024 * 1024
    from mallows.agents.sandbox.probe import shell

    launcher_shell = None if user.switch else shell()
    try:
        cgroup: BotCgroup | None = BotCgroup(
            wanted, self_join=user.switch or launcher_shell is not None
        )
    except OSError:
        cgroup = None
    if cgroup is not None and not cgroup.dirs:
        cgroup = None
    nproc = None
    if cgroup is None or not cgroup.has("pids"):
        nproc = MAX_PROCESSES + _processes_of(user.uid)
    launcher: list[str] = []
    if not user.switch and cgroup is not None and launcher_shell:
        launcher = cgroup.launcher(launcher_shell)
    return Wrapped(argv, bot_env, cgroup, nproc, binds, launcher, [fd], user, staged)


def _processes_of(uid: int) -> int:
    n = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    n += 1
            except OSError:
                pass
    return n * 4 + 64  # threads count too: leave the room of what that user already runs
