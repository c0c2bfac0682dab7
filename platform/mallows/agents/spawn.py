"""A bot's OS process: starting it, its pipes, its stderr, and making sure it ends.

``BotProcess`` is the process handle that ``mallows.agents.process.SubprocessBot`` (the protocol
client) owns: it starts the bot, either in its bubblewrap sandbox (``mallows.agents.sandbox``:
the bot runs only once its resource limits and cgroup are in place) or, with
``sandbox = "off"``, as ``mallows.agents.isolation`` plans it (whom it runs as, its limits, its
environment). The process starts in its own session (process group), so the group can be
killed with everything the bot spawned; its stderr goes to an anonymous temporary file, capped
by the child's ``RLIMIT_FSIZE``, whose tail ``stderr_tail`` quotes; a finalizer kills and reaps
a process whose handle is dropped without ``close``.

``_kill_group`` kills the bot's process group (and thaws a frozen sandbox, whose processes
could not die otherwise) and reaps the bot; ``_wait_exit`` waits for an exit (a pidfd on Linux,
so the exit is seen at once). ``thaw``/``freeze`` let a sandboxed bot run while it answers a
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
import threading
import time
import weakref
from typing import IO, Any, Sequence

from mallows.agents import affinity
from mallows.agents.isolation import (
    RunAs,
    _child_setup,
    _limit_settings,
    bot_environment,
    harden_platform,
    plan_run_as,
)
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.sandbox.signals import SignalFreezer, holds, runnable
from mallows.agents.wire import loads

log = logging.getLogger(__name__)

_POLL_IN = select.POLLIN | select.POLLPRI
STDERR_TAIL_CHARS = 800  # how much of stderr a crash reason quotes
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
            freezer.frozen = True  # whatever it noted: thawing a running bot is harmless
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


def _kill_and_release(proc: subprocess.Popen, wrapped: Any) -> None:
    _kill_group(proc)
    if wrapped is not None:
        wrapped.release()


class BotProcess:
    """The process of one bot (``command`` in ``cwd``, ``env`` or the bot environment, under
    ``limits``): ``spawn`` starts it, ``kill`` kills its group, ``close`` reaps it and releases
    its sandbox; ``stderr_tail`` quotes the end of its stderr. ``proc`` is the ``Popen`` once
    started; ``_wfd``/``_rfd`` its non-blocking stdin/stdout fds, ``_rpoll`` a poller on stdout;
    ``wrapped`` its bubblewrap sandbox (``mallows.agents.sandbox.Wrapped``), if any; ``run_as``
    whom it runs as (``isolation.RunAs``); ``_stopped`` why it was stopped, once it was (set
    here when it cannot start, and by the protocol client when it stops the bot)."""

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        cwd: str | None,
        env: dict | None,
        limits: Limits,
        python: bool,
        bot_paths: Sequence[str],
    ) -> None:
        self.name = name
        self.command = list(command)
        self.cwd = cwd
        self.env = env
        self.limits = limits
        self.python = python  # hosted by mallows.agents.host: needs the platform's Python
        self.bot_paths = list(bot_paths)
        self.proc: subprocess.Popen | None = None
        self.wrapped: Any = None  # the sandbox (mallows.agents.sandbox.Wrapped), if any
        self.run_as: RunAs | None = None  # whom it runs as, once started
        self._err: IO[bytes] | None = None
        self._finalizer: weakref.finalize | None = None
        self._wfd = self._rfd = -1
        self._rpoll: Any = None
        self._stopped: str | None = None
        # ``kill`` and ``freeze`` may run on two threads (a page closed while its match ends):
        # once killed, a bot is never frozen again, or its SIGKILL would wait for ever on a
        # frozen process (and the platform with it, reaping it)
        self._killed = False
        self._freeze_lock = threading.Lock()
        self.init_pid: int | None = None  # bwrap's first child (the sandbox's init), if any

    @property
    def sandboxed(self) -> bool:
        return getattr(self.limits, "sandbox", "on") != "off"

    def kill(self) -> None:
        """Kill the process group now (the bot and anything it started); reaps the bot."""
        self._no_more_freezing()
        if self.proc is not None:
            _kill_group(self.proc)

    def _no_more_freezing(self) -> None:
        """From now on ``freeze`` does nothing; a freeze under way has finished (the thaw
        that comes with the kill then undoes it)."""
        with self._freeze_lock:
            self._killed = True

    def close(self) -> None:
        """Kill what is left of the process group, close the pipes and stderr, release the
        sandbox. Always reaps the process; safe to call more than once."""
        proc = self.proc
        self._no_more_freezing()
        if proc is not None:
            _kill_group(proc)  # the bot if it is still there, and anything it left behind
            for stream in (proc.stdin, proc.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            if self._finalizer is not None:
                self._finalizer.detach()
        self._release_sandbox()
        if self._err is not None:
            self._err.close()
            self._err = None

    def stderr_tail(self) -> str:
        """The end of the bot's stderr (``STDERR_TAIL_CHARS``), as a reason's last clause."""
        if self._err is None:
            return ""
        try:
            size = os.fstat(self._err.fileno()).st_size
            start = max(0, size - STDERR_TAIL_CHARS * 2)
            data = os.pread(self._err.fileno(), size - start, start)
        except OSError:
            return ""
        text = data.decode("utf-8", "replace").strip()
        if not text:
            return ""
        if len(text) > STDERR_TAIL_CHARS:
            text = "..." + text[-STDERR_TAIL_CHARS:]
        return f"; the end of its stderr: {text}"

    def thaw(self) -> None:
        """Let a sandboxed bot's processes run (it is about to get a request)."""
        w = self.wrapped
        if w is not None and w.freezer is not None:
            try:
                w.freezer.thaw()
            except OSError as exc:
                log.warning("could not thaw bot %s: %s", self.name, exc)

    def freeze(self) -> None:
        """Stop every process of a sandboxed bot (it has answered): it cannot compute, or
        take the CPU of the next seat, until its next request."""
        w = self.wrapped
        if w is not None and w.freezer is not None:
            with self._freeze_lock:
                if self._killed:
                    return
                try:
                    w.freezer.freeze()
                except OSError as exc:
                    log.warning("could not freeze bot %s: %s", self.name, exc)

    def holds_stdout(self) -> bool:
        """Whether a process of the sandboxed bot still has its stdout pipe open (bwrap's own
        processes keep it open too, so the platform never sees the pipe's end when the bot
        closes it); True without a sandbox, or when it cannot be told."""
        if self.init_pid is None or self.proc is None:
            return True
        try:
            st = os.fstat(self._rfd)
        except OSError:
            return True
        return holds(self.init_pid, {self.init_pid, self.proc.pid}, (st.st_dev, st.st_ino))

    def cpu_since_thaw(self) -> tuple[float, bool | None]:
        """``(CPU seconds the sandboxed bot used since it was last let run, whether one of its
        processes is ready to run now)``; ``(-1, None)`` unknown (no sandbox)."""
        w = self.wrapped
        freezer = getattr(w, "freezer", None) if w is not None else None
        if freezer is None or self.init_pid is None:
            return -1.0, None
        try:
            used = freezer.cpu_seconds()
        except OSError:
            return -1.0, None
        return (used - freezer.cpu_at_thaw if used >= 0 else used), runnable(self.init_pid)

    def cgroup_hit(self, controller: str) -> bool:
        """Whether the sandbox's cgroup says the bot met its ``controller`` limit."""
        w = self.wrapped
        return w is not None and w.cgroup is not None and w.cgroup.hit(controller)

    def spawn(self) -> None:
        """Start the process (no messages yet), after making the platform non-dumpable: in its
        sandbox (``mallows.agents.sandbox``) unless ``limits.sandbox`` is ``"off"``; then as
        ``plan_run_as`` says, with the limits of ``_child_setup``."""
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
            raise BotFailure(
                f"the bot must run in a sandbox, and none can be made here: {why}; "
                f'--sandbox off (or sandbox = "off" in [limits]) runs it with '
                f"process isolation only",
                kind="error",
            )
        program = self.command[0]
        if os.path.isabs(program) and not os.access(program, os.X_OK):
            self._stopped = "it could not be started"
            raise BotFailure(
                f"could not start the bot's command {self.command}: {program} is "
                f"not an executable file",
                kind="error",
            )
        harden_platform()
        if self.python:
            sandbox.precompile_host()
        base_env = bot_environment(RunAs()) if self.env is None else dict(self.env)
        base_env.setdefault("PYTHONUNBUFFERED", "1")
        self.run_as = RunAs(note="in a bubblewrap sandbox")
        try:
            self.wrapped = sandbox.wrap(
                self.command,
                self.cwd,
                python=self.python,
                bot_paths=self.bot_paths,
                env=base_env,
                memory_mb=getattr(self.limits, "memory_mb", 0) or 0,
                cpus=affinity.current(),
            )
        except OSError as exc:
            self._stopped = "it could not be started"
            raise BotFailure(
                f"could not prepare the sandbox of {self.command}: {exc}", kind="error"
            ) from None
        # bwrap reports its first child's pid on an info fd and waits on a block fd before it
        # runs the bot; meanwhile that child gets the limits (prlimit) and is made sure to be
        # in its cgroups (where the launcher put bwrap itself, or moved there), so everything
        # the bot starts inherits both. A root platform has no preexec-free path: its child
        # joins the cgroups, sets the limits and drops root before it becomes bwrap
        # (``sandbox.hostuser.child_setup``).
        w = self.wrapped
        info_r, info_w = os.pipe()
        block_r, block_w = os.pipe()
        argv = w.command("--info-fd", str(info_w), "--block-fd", str(block_r))
        rlimits = _limit_settings(self.limits, w.nproc, w.memory_mb)
        setup = w.setup(rlimits)
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
                w.freezer = (
                    w.cgroup if w.cgroup is not None and w.cgroup.can_freeze else SignalFreezer(pid)
                )
                assert self.proc is not None
                _FROZEN[self.proc.pid] = w.freezer
        except OSError as exc:
            problem = f"its limits could not be set ({exc})"
        finally:
            os.close(info_r)
            if problem is not None:
                self.kill()
            else:
                try:
                    os.write(block_w, b"go")
                except OSError:
                    pass
            os.close(block_w)
        if problem is not None:
            self._stopped = "it could not be started"
            tail = self.stderr_tail()
            self._release_sandbox()
            raise BotFailure(
                f"could not start the bot in its sandbox: {problem}" + tail, kind="error"
            )

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
        return int(loads(data[: data.index(b"}") + 1])["child-pid"])

    def _spawn_plain(self) -> None:
        try:
            self.run_as = plan_run_as(self.command, self.cwd)
        except BotFailure:
            self._stopped = "it could not be started"
            raise
        if self.run_as.note:
            log.debug("bot %s runs %s", self.name, self.run_as.note)
        harden_platform()
        if self.env is None:
            env = bot_environment(self.run_as)
        else:
            env = dict(self.env)
            env.setdefault("PYTHONUNBUFFERED", "1")
            env["PYTHONDONTWRITEBYTECODE"] = "1"  # never bytecode in its (snapshot's) folder
        user: dict[str, Any] = {}
        if self.run_as.uid is not None:
            user = dict(user=self.run_as.uid, group=self.run_as.gid, extra_groups=[])
        self._popen(self.command, env, _child_setup(self.limits, self.run_as.drop_caps), user)

    def _popen(
        self,
        argv: Sequence[str],
        env: dict | None,
        setup: Any,
        user: dict,
        pass_fds: Sequence[int] = (),
    ) -> None:
        self._err = err = tempfile.TemporaryFile(prefix="mallows-bot-", suffix=".stderr")
        try:
            self.proc = proc = subprocess.Popen(
                argv,
                cwd=self.cwd if not self.sandboxed else None,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
                bufsize=0,
                close_fds=True,
                start_new_session=True,
                preexec_fn=setup,
                pass_fds=pass_fds,
                **user,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            self._stopped = "it could not be started"
            self._release_sandbox()
            note = self.run_as.note if self.run_as is not None else ""
            raise BotFailure(
                f"could not start the bot's command {self.command} {note}: {exc}", kind="error"
            ) from None
        self._finalizer = weakref.finalize(self, _kill_and_release, proc, self.wrapped)
        assert proc.stdin is not None and proc.stdout is not None  # both are pipes
        self._wfd = proc.stdin.fileno()
        self._rfd = proc.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._rpoll = select.poll()
        self._rpoll.register(self._rfd, _POLL_IN)

    def _release_sandbox(self) -> None:
        if self.wrapped is not None:
            self.wrapped.release()
