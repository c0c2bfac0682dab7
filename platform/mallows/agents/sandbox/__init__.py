"""The sandbox of an untrusted bot process: a bubblewrap (``bwrap``) command line, whom it runs
as on the host, its seccomp filter and its cgroups.

Every bot that is not shipped with the project runs in here (``SubprocessBot`` with
``Limits.sandbox == "on"``, the default). ``wrap(command, cwd, ...)`` turns the bot's argv into
a ``Wrapped`` (the ``bwrap`` argv, what to start it with, its cgroups and limits). The bot
process gets:

- its own user, PID, network, IPC, UTS, cgroup and mount namespaces, no further user
  namespaces, ``--die-with-parent``, a new session, no capability, uid/gid 1000 inside, and
  outside an unprivileged host user: the platform's own, or, when the platform is root, a
  uid of its own for each sandbox (``MALLOWS_SANDBOX_UIDS``; or ``MALLOWS_SANDBOX_USER``)
  (``hostuser``);
- a seccomp filter refusing new namespaces, mounts, ptrace, bpf, perf events, userfaultfd,
  keyrings, kernel modules, reboot, file locks and file notifications, AIO, page-cache
  probes and ``sched_setaffinity`` (``seccomp``);
- a file system made of read-only binds of only what its runtime needs (``command``), with
  the few files of ``/etc`` a runtime reads as one copied folder (``etcview``); a
  read-only ``/proc`` showing only its own processes, in which nothing another process does
  moves (``procview``), a ``/dev`` without pseudo-terminals, no ``/sys``; a private tmpfs of
  ``TMP_MB`` MiB as ``/tmp`` (also ``HOME`` and ``TMPDIR``) and as ``/dev/shm``;
- no network at all: its network namespace has nothing but its own loopback;
- cgroups (``cgroups``): a process limit, a memory limit, the match's CPUs (a cpuset), one
  CPU group, and a freezer that keeps it stopped except while it answers a request (without
  one, ``SIGSTOP``: ``signals``).

Modules: ``binary`` (finding bwrap), ``probe`` (can a sandbox be made here; what it is, and
the one line of ``isolation``), ``procview`` (its ``/proc`` and ``/dev``), ``etcview`` (its
``/etc``), ``snapshot`` (the read-only copies both bind, made once and shared),
``hostuser`` (the host uid, and staging what it cannot reach), ``seccomp`` (the filter),
``cgroups`` and ``signals`` (limits, placing, freezing, CPU accounting), ``command`` (the
argv, and which commands a bot may name). Probes are cached (``functools.cache``) and change
nothing. Nothing here silently runs a bot without its sandbox: callers refuse such a bot
(``SandboxUnavailable``) unless the organiser chose ``sandbox = "off"``.

Imports: the standard library, ``mallows.errors`` and ``mallows.agents.isolation``.
"""

from mallows.agents.sandbox import cgroups
from mallows.agents.sandbox.binary import NEEDED_OPTIONS, bwrap_binary
from mallows.agents.sandbox.cgroups import (
    _PENDING,
    MAX_PROCESSES,
    REMOVE_WAIT,
    BotCgroup,
    _member_of,
    cpu_control,
    memory_limit,
    process_limit,
)
from mallows.agents.sandbox.command import (
    BIND_ENV,
    BOT_GID,
    BOT_UID,
    SYSTEM_DIRS,
    TMP_MB,
    Wrapped,
    allowed_places,
    binds_for,
    check_command,
    wrap,
)
from mallows.agents.sandbox.etcview import ETC_FILES
from mallows.agents.sandbox.hostuser import USER_ENV, host_user
from mallows.agents.sandbox.probe import (
    MODES,
    SandboxUnavailable,
    check_mode,
    isolation,
    precompile_host,
    problem,
    require,
    shell,
    status,
)

_shell = shell
_cgroup_base = cgroups.base

__all__ = [
    "BIND_ENV",
    "BOT_GID",
    "BOT_UID",
    "ETC_FILES",
    "MAX_PROCESSES",
    "MODES",
    "NEEDED_OPTIONS",
    "REMOVE_WAIT",
    "SYSTEM_DIRS",
    "TMP_MB",
    "USER_ENV",
    "_PENDING",
    "BotCgroup",
    "SandboxUnavailable",
    "Wrapped",
    "_member_of",
    "allowed_places",
    "binds_for",
    "bwrap_binary",
    "check_command",
    "check_mode",
    "cpu_control",
    "host_user",
    "isolation",
    "memory_limit",
    "precompile_host",
    "problem",
    "process_limit",
    "require",
    "shell",
    "status",
    "wrap",
]
