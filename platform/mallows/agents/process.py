"""A bot in its own OS process, spoken to in the protocol v1 wire format (JSON lines).

Owns: ``PipeChannel``, the ``Channel`` (``mallows.agents.channel``) to a bot's process over its
stdin and stdout, and ``SubprocessBot``, the ``BotHandle`` of that process: the one protocol
client (``mallows.agents.client.BotClient``) over a pipe channel. It is the handle for every
bot that does not run in the platform's own process: a subprocess bot of any language (a
folder with a ``bot.toml`` manifest) and an untrusted Python bot hosted by
``python -m mallows.agents.host``. The bot sees nothing but the
messages below, so it cannot reach the engine's memory.

Wire format (one JSON object per line, UTF-8, ``\\n``-terminated; platform -> bot on the bot's
stdin, bot -> platform on its stdout; stderr is the bot's log):

======================================================  ===============================================
platform sends                                          bot replies
======================================================  ===============================================
``{"type":"hello","protocol":1,"params":{...}}``        ``{"type":"hello","protocol":1,"name":..,"version":..,"games":[..]}``
``{"type":"start","info":{...}}``  (match start)        ``{"type":"ok"}``
``{"type":"act","observation":{...}}``  (a decision)    ``{"type":"action","action":{...}}``
``{"type":"end","info":{...}}``  (match end)            ``{"type":"ok"}``
``{"type":"quit"}``                                     nothing: the bot exits (status 0)
======================================================  ===============================================

Protocol 2 (offered when ``protocols`` holds 2, as the registry's handles do; the hello then
carries ``"protocols": [1, 2]``): a bot whose hello says ``"protocol": 2`` (with ``history``,
and optionally ``"observation": "step"``) gets ``{"type":"act","events":[...],
"observation":{...}}`` and ``{"type":"end","info":{...},"events":[...],"reveal":{...}}``
(``mallows.agents.history``); a bot answering 1 is protocol 1.

Any request may be answered by ``{"type":"error","message":"..."}``: the bot reports its own
failure, and the message becomes the forfeit reason. Exactly one reply line per request.

How it stays cheap (the target is at most 50 µs a round trip): raw ``os.read``/``os.write`` on
non-blocking pipe fds with our own line buffer, ``poll`` with the time left as its timeout, one
``json`` encode and decode each way.

How it stays safe: the process starts in its own session (process group), so ``close`` kills
the bot and anything it spawned; every limit is enforced by ``poll`` timeouts (the bot is killed
when one runs out); a reply line is capped at ``MAX_LINE_BYTES``; stderr goes to an anonymous
temporary file capped by the child's ``RLIMIT_FSIZE`` (``STDERR_LIMIT_BYTES``), and its tail is
quoted in crash reasons. ``close`` always reaps the process: nothing outlives the match.
The process itself (starting it in its sandbox or not, its pipes, killing its group, its
stderr) is a ``mallows.agents.spawn.BotProcess`` the channel owns (``self.process``); the
reason given when a bot fails is a pure function of ``mallows.agents.failures``.

How it stays out of the platform's memory: see ``mallows.agents.isolation`` (the platform made
non-dumpable, the bot's user, its limits and environment).
"""

from __future__ import annotations

import math
import os
import select
import subprocess
import time
from typing import Any, NoReturn, Sequence

from mallows.agents import failures
from mallows.agents.channel import Ask, decode
from mallows.agents.client import BotClient
from mallows.agents.failures import SHOWN, _shown
from mallows.agents.isolation import RunAs
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.spawn import BotProcess, _wait_exit
from mallows.agents.wire import dumps, loads  # the shared codec

__all__ = ["MAX_LINE_BYTES", "PipeChannel", "SubprocessBot"]

MAX_LINE_BYTES = 256 * 1024  # one reply line, newline excluded
QUIT_GRACE_SECONDS = 0.2  # after "quit", how long a bot may take to exit by itself
#: After sending a decision, the platform watches the pipe for up to this long before it sleeps
#: in ``poll`` (on more than one CPU). On a virtual machine a sleeping process takes 20-50 µs to
#: wake, twice per round trip: a quick bot (most answer in tens of microseconds) is answered
#: 2-3 times sooner. Adaptive: a bot whose answers keep arriving after the spin is not watched
#: (one decision in ``SPIN_RETRY`` tries again), so a slow bot costs no CPU.
SPIN_SECONDS = 0.0005 if (os.cpu_count() or 1) > 1 else 0.0
SPIN_MISSES = 3  # answers in a row after the spin, before spinning stops
SPIN_RETRY = 32  # then one decision in this many spins again
READ_CHUNK = 65536
_POLL_OUT = select.POLLOUT
_NO_ASK = Ask("a request", "start_seconds", 0.0)


class PipeChannel:
    """The ``Channel`` to a bot's process: its process (``self.process``, a ``BotProcess``,
    started by ``open``), one request line on its stdin and one reply line read from its
    stdout, before the request's deadline. Every limit is a ``poll`` timeout; whatever goes
    wrong stops (kills) the bot and raises the reason ``mallows.agents.failures`` gives.
    ``cpus``: the CPUs the pool placed the process on (None: not placed)."""

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
        self.limits = limits
        self._process_args = (name, list(command), cwd, env, limits, python, list(bot_paths))
        self.process = BotProcess(*self._process_args)
        self.cpus: frozenset[int] | None = None
        self._buf = bytearray()
        self._ask = _NO_ASK  # the request being answered (its timeout's reason)
        self._spins = self._misses = 0  # decisions waited for; answers in a row after a spin
        self.caught = 0  # answers that arrived while the platform watched
        self._quit_sent = 0.0  # when "quit" was sent (time.monotonic()), once it was
        self._closed = False  # its process was closed: the next ``open`` starts a fresh one

    # -- the process as the protocol sees it -----------------------------------------------

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.process.proc

    @property
    def wrapped(self) -> Any:
        """The bubblewrap sandbox (``mallows.agents.sandbox.Wrapped``), if any."""
        return self.process.wrapped

    @property
    def sandboxed(self) -> bool:
        return self.process.sandboxed

    @property
    def stopped(self) -> str | None:
        """Why the bot was stopped, once it was (kept by its process)."""
        return self.process._stopped

    @property
    def ready(self) -> bool:
        return self.process.proc is not None and not self._closed

    @property
    def alive(self) -> bool:
        proc = self.process.proc
        return (
            proc is not None
            and proc.returncode is None
            and proc.poll() is None
            and not self.process._stopped
        )

    @property
    def _wfd(self) -> int:
        return self.process._wfd

    @property
    def _rfd(self) -> int:
        return self.process._rfd

    @property
    def _rpoll(self) -> Any:
        return self.process._rpoll

    def open(self) -> None:
        """Start the process (no messages yet): ``BotProcess.spawn``; after ``close``, a
        fresh one (a handle played again after its match closed it)."""
        if self._closed:
            self._fresh()
        self.process.spawn()

    def reported(self, message: str) -> BotFailure:
        return failures.reported_error(message, self.limits, self.sandboxed, self._hit())

    def stop(self, why: str) -> None:
        """Stop the bot now, from any thread: its process group is killed, a request it is
        answering fails (kind ``crash``) and every later one says ``why``."""
        self._stop(why)

    def renew(self) -> bool:
        """Close the process (reaped, its sandbox released) and put a fresh one in its place,
        started by the next ``open``; the pool places it on the match's CPUs again."""
        self.close()
        self._fresh()
        return True

    def _fresh(self) -> None:
        self.process = BotProcess(*self._process_args)
        self._closed = False
        self._quit_sent = 0.0
        self._buf.clear()
        self.cpus = None

    def quit(self) -> None:
        """Send ``quit`` and close the bot's stdin without waiting (``close`` waits, then
        kills). The pool asks every process of a batch first, so that they exit side by side
        rather than one grace period after another. Safe to call more than once."""
        proc = self.proc
        if proc is None or self._quit_sent or self.stopped or proc.returncode is not None:
            return
        self._quit_sent = time.monotonic()
        self.process.thaw()
        try:
            os.write(self._wfd, b'{"type":"quit"}\n')
        except OSError:
            pass
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except OSError:
            pass

    def close(self) -> None:
        """Ask the bot to quit, give it ``QUIT_GRACE_SECONDS`` (from when ``quit`` was sent),
        then kill its process group. Always reaps the process; safe to call more than once."""
        proc = self.proc
        if proc is not None and proc.returncode is None and not self.stopped:
            self.quit()
            _wait_exit(proc, self._quit_sent + QUIT_GRACE_SECONDS)
        self.process.close()
        self._closed = proc is not None

    # -- bytes -----------------------------------------------------------------------------

    def send(self, message: dict, ask: Ask) -> None:
        """Write one request line; output nobody asked for, waiting before it, is a
        protocol error (``ask.check``). Every failure stops the bot."""
        what, deadline, limit_name = ask.what, ask.deadline, ask.limit_name
        self._ask = ask
        if ask.check and (self._buf or self._rpoll.poll(0)):
            self._unrequested(what, deadline, limit_name)
        self.process.thaw()  # a sandboxed bot runs only while it answers (spawn.BotProcess)
        self._write(dumps(message) + b"\n", deadline, what, limit_name)

    def receive(self, ask: Ask) -> tuple[dict, bytes]:
        """The one reply line to the request ``send`` wrote, and its message. ``ask.spin``: a
        decision, whose answer is watched for before sleeping (``_spin``)."""
        if ask.spin:
            self._spin(ask.what)
        line = self._readline(ask.deadline, ask.what, ask.limit_name)
        self.process.freeze()
        try:  # the usual case first, without a call more; anything else: decode says why
            reply = loads(line)
        except ValueError:
            reply = None
        if type(reply) is dict:
            return reply, line
        return decode(line, ask.what, self._stop), line

    def _write(self, data: bytes, deadline: float, what: str, limit_name: str) -> None:
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._wfd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                self._died(what)
            left = deadline - time.monotonic()
            if left <= 0:
                self._timed_out(what, limit_name)
            p = select.poll()
            p.register(self._wfd, _POLL_OUT)
            p.poll(math.ceil(left * 1000))

    def _spin(self, what: str) -> bool:
        """Watch the pipe without sleeping for up to ``SPIN_SECONDS`` (see there); True when
        output arrived (it is in the buffer)."""
        self._spins += 1
        if self._misses >= SPIN_MISSES and self._spins % SPIN_RETRY:
            return False
        rfd, read, clock = self._rfd, os.read, time.perf_counter
        until = clock() + SPIN_SECONDS
        while clock() < until:
            try:
                chunk = read(rfd, READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                self._died(what)
            self._buf += chunk
            self._misses = 0
            self.caught += 1
            return True
        self._misses += 1
        return False

    def _fill(self, deadline: float, what: str, limit_name: str) -> None:
        """Wait for more output (up to the deadline) and add it to the buffer."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                self._timed_out(what, limit_name)
            if not self._rpoll.poll(math.ceil(left * 1000)):
                continue
            try:
                chunk = os.read(self._rfd, READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                self._died(what)
            self._buf += chunk
            return

    def _readline(self, deadline: float, what: str, limit_name: str) -> bytes:
        buf = self._buf
        scanned = 0
        while True:
            i = buf.find(b"\n", scanned)
            if i > MAX_LINE_BYTES:  # a whole line that came at once is held to the limit too
                self._flooded(what)
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                if buf and not buf.isspace():
                    self._unrequested(what, deadline, limit_name, first=line)
                buf.clear()
                return line
            scanned = len(buf)
            if scanned > MAX_LINE_BYTES:
                self._flooded(what)
            self._fill(deadline, what, limit_name)

    def _unrequested(
        self, what: str, deadline: float, limit_name: str, first: bytes | None = None
    ) -> None:
        """The bot wrote a line nobody asked for (or died meanwhile): a protocol error."""
        if not self._buf:
            try:
                chunk = os.read(self._rfd, READ_CHUNK)
            except BlockingIOError:
                return
            if not chunk:
                self._died(what)
            self._buf += chunk
        settle = time.monotonic() + 0.05  # let the rest of that line arrive, to quote it
        while (
            b"\n" not in self._buf
            and len(self._buf) < SHOWN * 2
            and self._rpoll.poll(max(0, math.ceil((settle - time.monotonic()) * 1000)))
        ):
            try:
                chunk = os.read(self._rfd, READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                break
            self._buf += chunk
        if first is not None:
            self._several_lines(first, what)
        extra = bytes(self._buf[: SHOWN * 2]).split(b"\n", 1)[0]
        self._stop("it wrote output nobody asked for")
        raise BotFailure(
            f"wrote {_shown(extra)} before {what}, a line nobody asked for: "
            f"answer each request with exactly one line, and write logs on "
            f"stderr",
            kind="garbage",
        )

    def _flooded(self, what: str) -> None:
        size = len(self._buf)
        head = bytes(self._buf[:SHOWN])
        self._stop("it flooded its output")
        raise BotFailure(
            f"flooded its output during {what}: more than {MAX_LINE_BYTES} bytes "
            f"without a newline, beginning {_shown(head)} (a reply is one line "
            f"of at most {MAX_LINE_BYTES} bytes); read {size} bytes, then the "
            f"bot was stopped",
            kind="flood",
        )

    # -- failures: each gathers what happened, stops the bot and raises ---------------------

    def _stop(self, why: str) -> None:
        self.process._stopped = why
        self.process.kill()

    def _hit(self) -> list[str]:
        """The sandbox's cgroup limits the bot met."""
        return [c for c in ("memory", "pids") if self.process.cgroup_hit(c)]

    def _timed_out(self, what: str, limit_name: str) -> NoReturn:
        proc = self.proc
        if proc is not None and proc.poll() is not None:
            rc = proc.returncode
            tail = self.process.stderr_tail()
            self._stop("it exited, and a process it started held its stdout")
            raise failures.timed_out_exited(
                what, limit_name, rc, tail, bwrap=self.wrapped is not None
            )
        if not self.process.holds_stdout():  # sandboxed: bwrap keeps the pipe open itself
            self._stop("it closed its stdout")
            raise failures.closed_stdout(what, self.process.stderr_tail())
        used, ready = self.process.cpu_since_thaw()
        self._stop(f"it ran over {limit_name}")
        ask = self._ask
        wall = getattr(self.limits, limit_name) if ask.wall is None else ask.wall
        raise failures.timed_out(
            what,
            limit_name,
            self.limits,
            ask.decisions,
            self.process.stderr_tail(),
            failures.cpu_note(used, wall, ready),
        )

    def _several_lines(self, first: bytes, what: str) -> NoReturn:
        rest = [ln for ln in bytes(self._buf).split(b"\n") if ln.strip()]
        self._stop("it wrote more than one line in reply to one request")
        raise failures.several_lines(first, rest, what)

    def _died(self, what: str) -> NoReturn:
        proc = self.proc
        assert proc is not None
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self._stop("it closed its stdout")
            raise failures.closed_stdout(what, self.process.stderr_tail()) from None
        rc = proc.returncode
        tail = self.process.stderr_tail()
        self._stop("it exited")
        raise failures.died(
            what, rc, tail, self.limits, self.sandboxed, self.wrapped is not None, self._hit()
        )


class SubprocessBot:
    """A ``BotHandle`` for a bot process speaking the wire format: the protocol client
    (``self.client``) over the pipe to the process (``self.channel``).

    ``command``: argv of the bot (already resolved); ``cwd``: its working directory;
    ``params``: the bot parameters (sent in ``hello`` and in the start message's ``params``).
    The process (``self.process``, a ``BotProcess``) is started by ``start`` (within
    ``limits.start_seconds``, handshake and start hook included) and reaped by ``close``.
    ``times`` holds the wall time of every decision.
    """

    def __init__(
        self,
        name: str,
        command: Sequence[str],
        cwd: str | None = None,
        params: dict | None = None,
        limits: Limits = Limits(),
        env: dict | None = None,
        bot_paths: Sequence[str] | None = None,
        python: bool = False,
        reuse: bool = False,
        protocols: Sequence[int] = (1,),
        declared: tuple[tuple[int, ...], str] | None = None,
    ) -> None:
        self.name = name
        self.command = list(command)
        if bot_paths is None:  # its folder and the files its command names
            bot_paths = [cwd] if cwd else []
            bot_paths += [a for a in self.command[1:] if os.path.isabs(a) and os.path.exists(a)]
        self.channel = PipeChannel(name, self.command, cwd, env, limits, python, bot_paths)
        self.client = BotClient(name, self.channel, limits, params, protocols, declared, reuse)
        self.client.spin = SPIN_SECONDS > 0  # watch for answers before sleeping (``_spin``)
        self.cwd = cwd
        self.limits = limits
        self.isolation = "sandbox" if self.channel.sandboxed else "process"

    # -- the protocol (``self.client``) ------------------------------------------------------

    def start(self, info: dict) -> None:
        self.client.start(info)

    def act(self, observation: dict, events: list | None = None) -> Any:
        return self.client.act(observation, events)

    def end(self, info: dict) -> None:
        self.client.end(info)

    def handshake(self, deadline: float) -> dict:
        """Start the process if it is not running, send ``hello`` and check the reply, all
        before ``deadline``: ``BotClient.handshake``."""
        return self.client.handshake(deadline)

    def stop(self, why: str) -> None:
        """Stop the bot now, from any thread: its process group is killed, a decision it is
        making fails (kind ``crash``) and every later one says ``why``."""
        self.channel.stop(why)

    def quit(self) -> None:
        """Send ``quit`` without waiting: ``PipeChannel.quit``."""
        self.channel.quit()

    def close(self) -> None:
        """Quit, wait a grace period, kill the process group; always reaps the process."""
        self.channel.close()

    def spawn(self) -> None:
        """Start the process (no messages yet): ``BotProcess.spawn``."""
        self.channel.open()

    @property
    def reusable(self) -> bool:
        """Whether this process may play another match (``BotClient.reusable``)."""
        return self.client.reusable

    @property
    def protocol(self) -> int:
        return self.client.protocol

    @property
    def history(self) -> str | None:
        return self.client.history

    @property
    def observation_mode(self) -> str | None:
        return self.client.observation_mode

    @property
    def hello(self) -> dict | None:
        return self.client.hello

    @property
    def params(self) -> dict:
        return self.client.params

    @property
    def times(self) -> list[float]:
        return self.client.times

    @property
    def used(self) -> float:
        return self.client.used

    @property
    def matches(self) -> int:
        return self.client.matches

    @property
    def spin(self) -> bool:
        return self.client.spin

    @spin.setter
    def spin(self, on: bool) -> None:
        self.client.spin = on

    # -- the process (``self.channel.process``) ------------------------------------------------

    @property
    def process(self) -> BotProcess:
        return self.channel.process

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.channel.proc

    @property
    def wrapped(self) -> Any:
        """The bubblewrap sandbox (``mallows.agents.sandbox.Wrapped``), if any."""
        return self.channel.wrapped

    @property
    def run_as(self) -> RunAs | None:
        """Whom the bot runs as, once started."""
        return self.channel.process.run_as

    @property
    def sandboxed(self) -> bool:
        return self.channel.sandboxed

    @property
    def cpus(self) -> frozenset[int] | None:
        return self.channel.cpus

    @cpus.setter
    def cpus(self, cpus: frozenset[int] | None) -> None:
        self.channel.cpus = cpus

    @property
    def caught(self) -> int:
        return self.channel.caught

    @property
    def _spins(self) -> int:
        return self.channel._spins

    @property
    def _misses(self) -> int:
        return self.channel._misses
