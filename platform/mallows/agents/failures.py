"""Why a bot process failed, in words its author can act on: the reasons ``SubprocessBot``
(``mallows.agents.process``) gives when it stops a bot.

``FailureReasons`` (a base of ``SubprocessBot``) stops the bot and raises a ``BotFailure``
with its ``kind``: no answer in time (``timeout``; or ``crash``/``exit`` when the bot died
while a process it started held its stdout), killed by a signal or exited (``crash``,
``exit``; ``flood`` for ``SIGXFSZ``, ``memory`` when its stderr or its cgroup says it ran out
of memory), more than one line in reply to one request (``garbage``), its stdout closed
(``protocol``). A reason quotes the tail of the bot's stderr (``STDERR_TAIL_CHARS``) and says
which limit of the sandbox it met (processes, its /tmp, read-only files, memory).
"""

from __future__ import annotations

import os
import signal
import subprocess

from mallows.agents.isolation import STDERR_LIMIT_BYTES
from mallows.agents.protocol import BotFailure
from mallows.agents.spawn import _kill_group
from mallows.agents.wire import loads

STDERR_TAIL_CHARS = 800               # how much of stderr a crash reason quotes
SHOWN = 200                           # characters of an offending line quoted in a reason
# Words in a bot's error or stderr that mean it ran out of memory (Python, C++, Rust, Go, Node,
# Java, libc).
MEMORY_MARKERS = ("memoryerror", "out of memory", "bad_alloc", "cannot allocate memory",
                  "memory allocation of", "allocation failed", "outofmemory")


def _shown(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if len(text) > SHOWN:
        text = text[:SHOWN] + f"... ({len(text)} characters)"
    return repr(text)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


#: The signals a process can die of, by number: what bwrap's exit status 128 + N can mean.
_SIGNALS = {int(s) for s in signal.Signals}


def sandbox_status(rc: int) -> int:
    """The bot's own status from bwrap's exit status (a ``Popen.returncode``): bwrap exits with
    128 + N when the bot was killed by signal N, else with the bot's exit status. So a status
    128 + N for a signal N that exists is read as that signal (-N); any other (``exit(200)``,
    ``exit(255)``: above 128 + the last signal) is the exit status it is. Only an exit status
    of 128 + a signal's number itself cannot be told from that signal (documented)."""
    if rc > 128 and rc - 128 in _SIGNALS:
        return -(rc - 128)
    return rc


def cpu_note(used: float, wall: float, ready: bool | None) -> str:
    """What the bot did with the CPU in ``wall`` seconds, for a timeout's reason: ``used``
    seconds of CPU (negative: unknown); ``ready``: whether a process of it was waiting to run
    at the end. A bot that used most of the time was slow; one that used little while ready to
    run was starved (the platform failed it: said so); one that used little while asleep was
    waiting for something."""
    if used < 0:
        return ""
    share = used / wall if wall > 0 else 0.0
    text = f"; in that time it used {used:.3f} s of CPU ({share:.0%} of {wall:g} s)"
    if share >= 0.5:
        return text + ": it was computing, too slowly"
    if ready:
        return text + (": it was ready to run but did not get the CPU (starved by something "
                       "else on this machine, not slow: report it to the organiser)")
    return text + ": it was not computing (waiting, or sleeping)"


def _is_reply(line: bytes) -> bool:
    """Whether ``line`` is a protocol reply (what a bot answers a request with)."""
    try:
        message = loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") in ("action", "ok", "hello",
                                                                   "error")


def _mentions_memory(text: str) -> bool:
    text = text.lower()
    return any(m in text for m in MEMORY_MARKERS)


class FailureReasons:
    """The failures of a ``SubprocessBot``: each records why the bot was stopped
    (``_stopped``), kills it and raises the ``BotFailure`` that names what happened, from its
    ``proc``, ``_buf``, ``_err`` (stderr), ``limits``, ``times``, ``wrapped`` and
    ``sandboxed``."""

    # -- failures: each stops the bot and raises ------------------------------------------

    def _stop(self, why: str) -> None:
        self._stopped = why
        if self.proc is not None:
            _kill_group(self.proc)

    def _stderr_tail(self) -> str:
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

    def _timed_out(self, what: str, limit_name: str) -> None:
        proc = self.proc
        if proc is not None and proc.poll() is not None:
            rc = proc.returncode
            tail = self._stderr_tail()
            self._stop("it exited, and a process it started held its stdout")
            if self.wrapped is not None:
                rc = sandbox_status(rc)
            how = (f"was killed by {_signal_name(-rc)}" if rc < 0 else
                   f"exited with status {rc}")
            raise BotFailure(f"the bot process {how} during {what}, but a process it started "
                             f"kept its standard output open, so the platform waited for an "
                             f"answer until the time limit ({limit_name}); that process was "
                             f"stopped{tail}", kind="crash" if rc < 0 else "exit")
        if self.wrapped is not None and proc is not None and not self._holds_stdout():
            self._stop("it closed its stdout")
            raise BotFailure(f"closed its standard output during {what} (the protocol "
                             f"channel); the bot was stopped{self._stderr_tail()}",
                             kind="protocol")
        note = self._cpu_note(limit_name)
        self._stop(f"it ran over {limit_name}")
        if limit_name == "match_seconds":
            raise BotFailure(
                f"ran out of its match time budget of {self.limits.match_seconds:g} s "
                f"(match_seconds) during {what}, after {len(self.times)} decisions{note}; "
                f"the bot was stopped", kind="timeout")
        limit = getattr(self.limits, limit_name)
        raise BotFailure(f"no answer to {what} within the time limit of {limit:g} s "
                         f"({limit_name}){note}; the bot was stopped{self._stderr_tail()}",
                         kind="timeout")

    def _holds_stdout(self) -> bool:
        """Whether a process of the sandboxed bot still has its stdout pipe open (bwrap's own
        processes keep it open too, so the platform never sees the pipe's end when the bot
        closes it)."""
        from mallows.agents.sandbox.signals import holds
        init = getattr(self, "init_pid", None)
        if init is None:
            return True
        try:
            st = os.fstat(self._rfd)
        except OSError:
            return True
        return holds(init, {init, self.proc.pid}, (st.st_dev, st.st_ino))

    def _cpu_note(self, limit_name: str) -> str:
        """``cpu_note`` for a sandboxed bot that ran over ``limit_name`` (its CPU since it was
        last let run, from its cgroup or its processes); "" without a sandbox."""
        w = self.wrapped
        freezer = getattr(w, "freezer", None) if w is not None else None
        init = getattr(self, "init_pid", None)
        if freezer is None or init is None:
            return ""
        from mallows.agents.sandbox.signals import runnable
        try:
            used = freezer.cpu_seconds()
            used = used - freezer.cpu_at_thaw if used >= 0 else used
        except OSError:
            return ""
        if limit_name == "match_seconds":
            wall = max(0.0, self.limits.match_seconds - self.used)
        else:
            wall = getattr(self.limits, limit_name)
        return cpu_note(used, wall, runnable(init))

    def _several_lines(self, first: bytes, what: str) -> None:
        """The bot wrote more than one line in reply to one request: say whether the answer
        came first (then lines after it) or later (lines before it), or not at all."""
        rest = [ln for ln in bytes(self._buf).split(b"\n") if ln.strip()]
        self._stop("it wrote more than one line in reply to one request")
        hint = "answer each request with exactly one line, and write logs on stderr"
        if _is_reply(first):
            raise BotFailure(f"wrote {_shown(rest[0])} after its answer to {what}, a line "
                             f"nobody asked for: {hint}", kind="garbage")
        count = 1 + len(rest)
        if any(_is_reply(ln) for ln in rest):
            raise BotFailure(f"wrote {count} lines in reply to {what}, the answer not first: "
                             f"the first was {_shown(first)}, a line nobody asked for before "
                             f"its answer: {hint}", kind="garbage")
        raise BotFailure(f"wrote {count} lines in reply to {what}, none of them an answer, "
                         f"the first {_shown(first)}: {hint}", kind="garbage")

    def _died(self, what: str) -> None:
        proc = self.proc
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self._stop("it closed its stdout")
            raise BotFailure(f"closed its standard output during {what} (the protocol "
                             f"channel); the bot was stopped{self._stderr_tail()}",
                             kind="protocol") from None
        rc = proc.returncode
        tail = self._stderr_tail()
        if self.wrapped is not None:
            rc = sandbox_status(rc)  # bwrap's convention: 128 + N for signal N
        self._stop("it exited")
        kind = "crash" if rc < 0 else "exit"  # killed by a signal / exited by itself
        if rc < 0:
            how = f"was killed by {_signal_name(-rc)}"
            if -rc == getattr(signal, "SIGXFSZ", -1):
                how += f" (it wrote more than {STDERR_LIMIT_BYTES} bytes to stderr or a file)"
                kind = "flood"
        else:
            how = f"exited with status {rc}"
        if rc != 0 and _mentions_memory(tail):
            raise BotFailure(f"the bot process {how} during {what}{self._memory_note()}{tail}",
                             kind="memory")
        w = self.wrapped
        if rc < 0 and w is not None and w.cgroup is not None and w.cgroup.hit("memory"):
            mb = getattr(self.limits, "memory_mb", 0) or 0
            raise BotFailure(f"the bot process {how} during {what}: its processes together "
                             f"went over the sandbox's memory limit ({mb:g} MiB, memory_mb, "
                             f"plus its /tmp){tail}", kind="memory")
        raise BotFailure(f"the bot process {how} during {what}{self._limit_notes(tail)}{tail}",
                         kind=kind)

    def _limit_notes(self, text: str) -> str:
        """What a sandbox limit has to do with a failure, for its reason."""
        from mallows.agents import sandbox
        notes = []
        w = self.wrapped
        if w is not None and w.cgroup is not None and w.cgroup.hit("pids"):
            notes.append(f"it reached the sandbox's limit of {sandbox.MAX_PROCESSES} processes "
                         f"(a fork was refused)")
        elif "resource temporarily unavailable" in text.lower() and self.sandboxed:
            notes.append(f"it may have reached the sandbox's limit of {sandbox.MAX_PROCESSES} "
                         f"processes")
        if "no space left on device" in text.lower() and self.sandboxed:
            notes.append(f"its private /tmp (also HOME) holds at most {sandbox.TMP_MB} MiB")
        if "read-only file system" in text.lower() and self.sandboxed:
            notes.append("the sandbox's files are read-only except /tmp")
        return "".join(f" ({n})" for n in notes)

    def _memory_note(self) -> str:
        mb = getattr(self.limits, "memory_mb", 0) or 0
        w = self.wrapped
        if mb > 0 and w is not None and w.cgroup is not None and w.cgroup.hit("memory"):
            return (f"; it ran out of memory: the bot's memory limit is {mb:g} MiB "
                    f"(memory_mb) for all its processes together (plus its /tmp), in the "
                    f"sandbox's memory cgroup")
        if mb > 0:
            return (f"; it ran out of memory: the bot's memory limit is {mb:g} MiB "
                    f"(memory_mb, its address-space limit RLIMIT_AS)")
        return "; it ran out of memory (no memory limit was set: memory_mb = 0)"
