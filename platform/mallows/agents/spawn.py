"""Starting a bot's process and making sure it ends: the process side of ``SubprocessBot``.

``Spawner`` (a base of ``mallows.agents.process.SubprocessBot``) starts the bot, either in its
bubblewrap sandbox (``mallows.agents.sandbox``: the bot runs only once its resource limits and
cgroup are in place) or, with ``sandbox = "off"``, as ``mallows.agents.isolation`` plans it
(whom it runs as, its limits, its environment). The process starts in its own session (process
group), so the group can be killed with everything the bot spawned; its stderr goes to an
anonymous temporary file, capped by the child's ``RLIMIT_FSIZE``; a finalizer kills and reaps
a process whose handle is dropped without ``close``.

``_kill_group`` kills the bot's process group (and thaws a frozen sandbox, whose processes
could not die otherwise) and reaps the bot; ``_wait_exit`` waits for an exit (a pidfd on Linux,
so the exit is seen at once). ``_thaw``/``_freeze`` let a sandboxed bot run while it answers a
request and stop it otherwise (``mallows.agents.sandbox.cgroups``).
"""

from __future__ import annotations

import logging
import math
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
import weakref

from mallows.agents import affinity
from mallows.agents.isolation import (Sandbox, _child_setup, _limit_settings, bot_environment,
                                      harden_platform, plan_sandbox)
from mallows.agents.protocol import BotFailure
from mallows.agents.sandbox.signals import SignalFreezer
from mallows.agents.wire import loads

log = logging.getLogger(__name__)

_POLL_IN = select.POLLIN | select.POLLPRI
_FROZEN: dict = {}  # bwrap's pid -> the freezer of its sandbox (thawed when it is killed)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the bot's whole process group, then reap the bot. Safe to call twice."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    freezer = _FROZEN.pop(proc.pid, None)
    if freezer is not None:  # a frozen process dies only once thawed
        try:
            freezer.thaw()
        except OSError:
            pass
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
        proc.wait()


def _wait_exit(proc: subprocess.Popen, deadline: float) -> None:
    """Wait until ``proc`` exits or ``deadline`` (``time.monotonic()``) passes, and reap it if
    it exited. On Linux a pidfd is polled, so the exit is seen at once (``Popen.wait`` with a
    timeout sleeps in steps of up to 50 ms)."""
    left = deadline - time.monotonic()
    if left > 0 and proc.returncode is None and hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(proc.pid)
        except OSError:
            pass
        else:
            try:
                poller = select.poll()
                poller.register(fd, select.POLLIN)
                poller.poll(math.ceil(left * 1000))
            finally:
                os.close(fd)
            proc.poll()
            return
    try:
        proc.wait(max(0.0, left))
    except subprocess.TimeoutExpired:
        pass


def _kill_and_release(proc: subprocess.Popen, wrapped) -> None:
    _kill_group(proc)
    if wrapped is not None and wrapped.cgroup is not None:
        wrapped.cgroup.remove()


class Spawner:
    """Starting the process of a ``SubprocessBot`` and releasing its sandbox: the methods that
    set its ``proc``, ``wrapped``, ``sandbox``, ``_err``, ``_finalizer`` and pipe fds (``_wfd``,
    ``_rfd``, ``_rpoll``) from its ``command``, ``cwd``, ``env``, ``limits``, ``python`` and
    ``bot_paths``."""

    def spawn(self) -> None:
        """Start the process (no messages yet), after making the platform non-dumpable: in its
        sandbox (``mallows.agents.sandbox``) unless ``limits.sandbox`` is ``"off"``; then as
        ``plan_sandbox`` says, with the limits of ``_child_setup``."""
        if self.proc is not None:
            return
        if self.sandboxed:
            self._spawn_sandboxed()
        else:
            self._spawn_plain()

    def _spawn_sandboxed(self) -> None:
        from mallows.agents import sandbox
        why = sandbox.problem()
        if why:
            self._stopped = "it could not be started"
            raise BotFailure(f"the bot must run in a sandbox, and none can be made here: {why}; "
                             f"--sandbox off (or sandbox = \"off\" in [limits]) runs it with "
                             f"process isolation only", kind="error")
        program = self.command[0]
        if os.path.isabs(program) and not os.access(program, os.X_OK):
            self._stopped = "it could not be started"
            raise BotFailure(f"could not start the bot's command {self.command}: {program} is "
                             f"not an executable file", kind="error")
        harden_platform()
        if self.python:
            sandbox.precompile_host()
        base_env = bot_environment(Sandbox()) if self.env is None else dict(self.env)
        base_env.setdefault("PYTHONUNBUFFERED", "1")
        self.sandbox = Sandbox(note="in a bubblewrap sandbox")
        try:
            self.wrapped = sandbox.wrap(self.command, self.cwd, python=self.python,
                                        bot_paths=self.bot_paths, env=base_env,
                                        memory_mb=getattr(self.limits, "memory_mb", 0) or 0,
                                        cpus=affinity.current())
        except OSError as exc:
            self._stopped = "it could not be started"
            raise BotFailure(f"could not prepare the sandbox of {self.command}: {exc}",
                             kind="error") from None
        # No preexec_fn (so the fast vfork path): bwrap reports its first child's pid on an
        # info fd and waits on a block fd before it runs the bot; meanwhile that child gets the
        # limits (prlimit) and is made sure to be in its cgroups (where the launcher put bwrap
        # itself, or moved there), so everything the bot starts inherits both.
        w = self.wrapped
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe()
        argv = w.command("--info-fd", str(info_w), "--block-fd", str(block_r))
        rlimits = _limit_settings(self.limits, w.nproc)
        setup = w.setup(rlimits)  # a root platform: the child sets them, then drops root
        try:
            self._popen(argv, w.env, setup, {}, pass_fds=(info_w, block_r, *w.fds))
        except BotFailure:
            os.close(info_r)
            os.close(block_w)
            raise
        finally:
            os.close(info_w)
            os.close(block_r)
            w.close_fds()
        # Fail closed: the bot runs only once its limits and cgroup are in place. bwrap goes
        # on when the block fd reaches its end, so a failed set-up kills it before closing.
        problem = None
        try:
            pid = self._sandbox_child(info_r, time.monotonic() + self.limits.start_seconds)
            if pid is None:
                problem = "the sandbox did not start"
            else:
                if setup is None:
                    for which, value in rlimits:
                        resource.prlimit(pid, which, value)
                if w.cgroup is not None:
                    w.cgroup.attach(pid)
                self.init_pid = pid
                w.freezer = (w.cgroup if w.cgroup is not None and w.cgroup.can_freeze
                             else SignalFreezer(pid))
                _FROZEN[self.proc.pid] = w.freezer
        except OSError as exc:
            problem = f"its limits could not be set ({exc})"
        finally:
            os.close(info_r)
            if problem is not None:
                _kill_group(self.proc)
            else:
                try:
                    os.write(block_w, b"go")
                except OSError:
                    pass
            os.close(block_w)
        if problem is not None:
            self._stopped = "it could not be started"
            tail = self._stderr_tail()
            self._release_sandbox()
            raise BotFailure(f"could not start the bot in its sandbox: {problem}"
                             + tail, kind="error")

    @staticmethod
    def _sandbox_child(fd: int, deadline: float) -> int | None:
        """The pid of bwrap's first child, from its ``--info-fd`` JSON (None if bwrap failed)."""
        data = b""
        poller = select.poll()
        poller.register(fd, _POLL_IN)
        while b"}" not in data:
            left = deadline - time.monotonic()
            if left <= 0 or not poller.poll(math.ceil(left * 1000)):
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                return None
            data += chunk
        return int(loads(data[:data.index(b"}") + 1])["child-pid"])

    def _spawn_plain(self) -> None:
        try:
            self.sandbox = plan_sandbox(self.command, self.cwd)
        except BotFailure:
            self._stopped = "it could not be started"
            raise
        if self.sandbox.note:
            log.debug("bot %s runs %s", self.name, self.sandbox.note)
        harden_platform()
        if self.env is None:
            env = bot_environment(self.sandbox)
        else:
            env = dict(self.env)
            env.setdefault("PYTHONUNBUFFERED", "1")
            env["PYTHONDONTWRITEBYTECODE"] = "1"  # never bytecode in its (snapshot's) folder
        user = {}
        if self.sandbox.uid is not None:
            user = dict(user=self.sandbox.uid, group=self.sandbox.gid, extra_groups=[])
        self._popen(self.command, env, _child_setup(self.limits, self.sandbox.drop_caps), user)

    def _popen(self, argv, env, setup, user, pass_fds=()) -> None:
        self._err = tempfile.TemporaryFile(prefix="mallows-bot-", suffix=".stderr")
        try:
            self.proc = subprocess.Popen(
                argv, cwd=self.cwd if not self.sandboxed else None, env=env,
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err, bufsize=0,
                close_fds=True, start_new_session=True, preexec_fn=setup, pass_fds=pass_fds,
                **user)
        except (OSError, subprocess.SubprocessError) as exc:
            self._stopped = "it could not be started"
            self._release_sandbox()
            raise BotFailure(f"could not start the bot's command {self.command} "
                             f"{self.sandbox.note}: {exc}", kind="error") from None
        self._finalizer = weakref.finalize(self, _kill_and_release, self.proc, self.wrapped)
        self._wfd = self.proc.stdin.fileno()
        self._rfd = self.proc.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._rpoll = select.poll()
        self._rpoll.register(self._rfd, _POLL_IN)

    def _release_sandbox(self) -> None:
        w = self.wrapped
        if w is not None and w.cgroup is not None:
            w.cgroup.remove()
            w.cgroup = None
        if w is not None:
            w.freezer = None

    def _thaw(self) -> None:
        """Let a sandboxed bot's processes run (it is about to get a request)."""
        w = self.wrapped
        if w is not None and w.freezer is not None:
            try:
                w.freezer.thaw()
            except OSError as exc:
                log.warning("could not thaw bot %s: %s", self.name, exc)

    def _freeze(self) -> None:
        """Stop every process of a sandboxed bot (it has answered): it cannot compute, or
        take the CPU of the next seat, until its next request."""
        w = self.wrapped
        if w is not None and w.freezer is not None:
            try:
                w.freezer.freeze()
            except OSError as exc:
                log.warning("could not freeze bot %s: %s", self.name, exc)
