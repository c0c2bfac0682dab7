"""A bot in its own OS process, spoken to in the protocol v1 wire format (JSON lines).

``SubprocessBot`` is the ``BotHandle`` for every bot that does not run in the platform's own
process: a subprocess bot of any language (a folder with a ``bot.toml`` manifest) and an
untrusted Python bot hosted by ``python -m mallows.agents.host``. The bot sees nothing but the
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
stderr) is a ``mallows.agents.spawn.BotProcess`` the client owns (``self.process``); the
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

from mallows import PROTOCOL_VERSION
from mallows.agents import failures
from mallows.agents.failures import SHOWN, _shown
from mallows.agents.isolation import RunAs
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.spawn import BotProcess, _wait_exit
from mallows.agents.wire import dumps, loads, shape_problem, undecodable  # the shared codec

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


class SubprocessBot:
    """A ``BotHandle`` for a bot process speaking the wire format.

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
    ):
        self.name = name
        #: the protocols the bot's manifest says it speaks, and the manifest's path: a hello
        #: answering another is refused (None: the hello chooses)
        self.declared = declared
        #: the protocol versions offered in hello (the registry's handles offer 1 and 2); the
        #: bot's hello picks one: ``protocol``, and for 2 its ``history`` mode
        self.protocols = tuple(protocols)
        self.protocol = 1
        self.history: str | None = None
        #: protocol 2's observation mode: "full" (the default) or "step" (None: protocol 1)
        self.observation_mode: str | None = None
        self.command = list(command)
        if bot_paths is None:  # its folder and the files its command names
            bot_paths = [cwd] if cwd else []
            bot_paths += [a for a in self.command[1:] if os.path.isabs(a) and os.path.exists(a)]
        self._process_args = (name, self.command, cwd, env, limits, python, bot_paths)
        self.process = BotProcess(*self._process_args)
        self.reuse = reuse  # the manifest opted in to many matches per process
        self.matches = 0  # matches started in this process
        self.cwd = cwd
        self.params = dict(params or {})
        self.limits = limits
        self.hello: dict | None = None
        self.times: list[float] = []
        self.used = 0.0
        self._buf = bytearray()
        self.spin = SPIN_SECONDS > 0  # watch for answers before sleeping (``_spin``)
        self._spins = self._misses = 0  # decisions waited for; answers in a row after a spin
        self.caught = 0  # answers that arrived while the platform watched
        self._quit_sent = 0.0  # when "quit" was sent (time.monotonic()), once it was
        self.isolation = "sandbox" if self.sandboxed else "process"

    # -- the process (``self.process``) as the protocol sees it -----------------------------

    @property
    def proc(self) -> subprocess.Popen | None:
        return self.process.proc

    @property
    def wrapped(self) -> Any:
        """The bubblewrap sandbox (``mallows.agents.sandbox.Wrapped``), if any."""
        return self.process.wrapped

    @property
    def run_as(self) -> RunAs | None:
        """Whom the bot runs as, once started."""
        return self.process.run_as

    @property
    def sandboxed(self) -> bool:
        return self.process.sandboxed

    @property
    def _stopped(self) -> str | None:
        """Why the bot was stopped, once it was (kept by its process)."""
        return self.process._stopped

    @_stopped.setter
    def _stopped(self, why: str | None) -> None:
        self.process._stopped = why

    @property
    def _wfd(self) -> int:
        return self.process._wfd

    @property
    def _rfd(self) -> int:
        return self.process._rfd

    @property
    def _rpoll(self) -> Any:
        return self.process._rpoll

    def spawn(self) -> None:
        """Start the process (no messages yet): ``BotProcess.spawn``."""
        self.process.spawn()

    @property
    def reusable(self) -> bool:
        """Whether this process may play another match: it opted in (its hello said
        ``"reuse": true``, or its manifest ``reuse = true``) and is alive and well."""
        return (
            self.proc is not None
            and self.proc.returncode is None
            and self.proc.poll() is None
            and not self._stopped
            and self.hello is not None
            and (self.reuse or self.hello.get("reuse") is True)
        )

    # -- life cycle ------------------------------------------------------------------------

    def start(self, info: dict) -> None:
        deadline = time.monotonic() + self.limits.start_seconds
        self.used = 0.0
        self.times = []
        self.matches += 1
        if self.proc is not None and self.hello is not None:  # a reused process: next match
            try:
                reply = self._request(
                    {"type": "start", "info": self._start_info(info)},
                    deadline,
                    "the match-start message",
                    "start_seconds",
                )
                self._expect_ok(reply, "the match-start message")
                return
            except BotFailure:
                # A process that said "reuse" but cannot start another match (it exited after
                # `end`, say) is replaced by a fresh one, as if it had not been reused: whether
                # the next match found it still alive is timing, and the table must not depend
                # on it (the same forfeits on every executor and worker count).
                self._discard_process()
                deadline = time.monotonic() + self.limits.start_seconds
        self.handshake(deadline)
        reply = self._request(
            {"type": "start", "info": self._start_info(info)},
            deadline,
            "the match-start message",
            "start_seconds",
        )
        self._expect_ok(reply, "the match-start message")

    def _start_info(self, info: dict) -> dict:
        if self.protocol == 2:
            from mallows.agents.history import start_info

            info = start_info(info, self.history or "delta", self.observation_mode or "full")
        return dict(info, params=self.params)

    def handshake(self, deadline: float) -> dict:
        """Start the process if it is not running, send ``hello`` (with ``self.params``) and
        check the reply, all before ``deadline`` (``time.monotonic()``; running over it counts
        against ``start_seconds``). Returns the bot's hello, also kept as ``self.hello``;
        ``BotFailure`` (the bot stopped) when the bot fails it."""
        self.spawn()
        message: dict = {"type": "hello", "protocol": PROTOCOL_VERSION, "params": self.params}
        if len(self.protocols) > 1:  # protocol 1's hello as it was, and the versions offered
            message["protocols"] = list(self.protocols)
        hello = self._request(message, deadline, "the handshake (hello)", "start_seconds")
        self._check_hello(hello)
        return hello

    def act(self, observation: dict, events: list | None = None) -> Any:
        if self._stopped or self.proc is None:
            raise BotFailure(
                f"the bot was already stopped: {self._stopped}"
                if self._stopped
                else "the bot was asked to decide before it was started",
                kind="crash",
            )
        limit = self.limits.decision_seconds
        left = self.limits.match_seconds - self.used
        budget = left < limit
        t0 = time.monotonic()
        if self.protocol == 2:
            data = (
                b'{"type":"act","events":'
                + dumps(events or [])
                + b',"observation":'
                + dumps(observation)
                + b"}\n"
            )
        else:
            data = b'{"type":"act","observation":' + dumps(observation) + b"}\n"
        try:
            line = self._exchange(
                data,
                t0 + (left if budget else limit),
                "a decision",
                "match_seconds" if budget else "decision_seconds",
                spin=self.spin,
            )
        finally:
            spent = time.monotonic() - t0
            self.used += spent
            self.times.append(spent)
        reply = self._parse(line, "a decision")
        if reply.get("type") == "action" and "action" in reply:
            return reply["action"]
        self._stop("it answered a decision with a message that is not an action")
        raise BotFailure(
            f"answered {_shown(line)}, but the answer to a decision must be "
            f'{{"type":"action","action":{{...}}}}: {shape_problem(reply, "action")}',
            kind="garbage",
        )

    def end(self, info: dict) -> None:
        if self._stopped or self.proc is None:
            return
        deadline = time.monotonic() + self.limits.start_seconds
        message: dict = {"type": "end", "info": info}
        if self.protocol == 2:  # the remaining events and the reveal beside the info
            info = dict(info)
            message = {
                "type": "end",
                "info": info,
                "events": info.pop("events", []),
                "reveal": info.pop("reveal", {}),
            }
        reply = self._request(message, deadline, "the match-end message", "start_seconds")
        self._expect_ok(reply, "the match-end message")

    def stop(self, why: str) -> None:
        """Stop the bot now, from any thread: its process group is killed, a decision it is
        making fails (kind ``crash``) and every later one says ``why``."""
        self._stop(why)

    def quit(self) -> None:
        """Send ``quit`` and close the bot's stdin without waiting (``close`` waits, then
        kills). The pool asks every process of a batch first, so that they exit side by side
        rather than one grace period after another. Safe to call more than once."""
        proc = self.proc
        if proc is None or self._quit_sent or self._stopped or proc.returncode is not None:
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
        if proc is not None and proc.returncode is None and not self._stopped:
            self.quit()
            _wait_exit(proc, self._quit_sent + QUIT_GRACE_SECONDS)
        self.process.close()

    def _discard_process(self) -> None:
        """Close the process (reaped, its sandbox released) and forget it, so that the next
        ``start`` begins a new one."""
        self.close()
        self.process = BotProcess(*self._process_args)
        self.hello, self._quit_sent = None, 0.0
        self._buf.clear()
        if getattr(self, "cpus", None) is not None:
            self.cpus = None  # the pool places the new process on the match's CPUs

    # -- messages --------------------------------------------------------------------------

    def _request(self, message: dict, deadline: float, what: str, limit_name: str) -> dict:
        if self._stopped:
            raise BotFailure(f"the bot was already stopped: {self._stopped}", kind="crash")
        # A bot that says hello before it is asked is tolerated: the check for unrequested
        # output starts after the handshake.
        line = self._exchange(
            dumps(message) + b"\n", deadline, what, limit_name, check=message["type"] != "hello"
        )
        return self._parse(line, what)

    def _check_hello(self, hello: dict) -> None:
        if hello.get("type") != "hello":
            self._stop("its handshake was wrong")
            raise BotFailure(
                f"answered the handshake with {_shown(dumps(hello))}, but the answer to "
                f'hello must be {{"type":"hello","protocol":{PROTOCOL_VERSION},"name":...,'
                f'"version":...}}',
                kind="garbage",
            )
        proto = hello.get("protocol")
        offered = self.protocols
        said_versions = " or ".join(map(str, offered))
        if "protocol" not in hello:
            self._stop("its handshake named no protocol")
            raise BotFailure(
                f"answered the handshake with {_shown(dumps(hello))}, which has no "
                f'"protocol": its hello reply must say "protocol": {said_versions} (an '
                f"integer)",
                kind="protocol",
            )
        if type(proto) is not int or proto not in offered:  # true == 1 in Python: not here
            self._stop("it speaks another protocol version")
            said = dumps(proto).decode(errors="replace")[:40]
            speaks = (
                f"protocol {PROTOCOL_VERSION}"
                if len(offered) == 1
                else f"protocols {', '.join(map(str, offered))}"
            )
            raise BotFailure(
                (
                    f"the bot speaks protocol {proto}"
                    if type(proto) is int
                    else f'the bot\'s hello says "protocol": {said}, which is not a protocol version'
                )
                + f", but this platform speaks {speaks}: its hello reply must "
                f'say "protocol": {said_versions} (the integer)',
                kind="protocol",
            )
        if self.declared is not None and proto not in self.declared[0]:
            self._stop("its hello contradicts its manifest")
            versions, where = self.declared
            shown = str(versions[0]) if len(versions) == 1 else f"[{', '.join(map(str, versions))}]"
            raise BotFailure(
                f"the bot's hello answers protocol {proto}, but {where} says protocol = "
                f"{shown}: make them agree (set protocol = {proto} in it, or leave the key "
                f"out and let the hello choose)",
                kind="protocol",
            )
        history = hello.get("history", "delta") if proto == 2 else None
        if proto == 2 and history not in ("delta", "full"):
            self._stop("its handshake chose no history mode")
            raise BotFailure(
                f'answered the handshake with {_shown(dumps(hello))}, whose "history" is '
                f'neither "delta" (the events since the last message, the default) nor '
                f'"full" (every event of the match in each message)',
                kind="protocol",
            )
        view = hello.get("observation", "full") if proto == 2 else None
        if proto == 2 and view not in ("full", "step"):  # history.OBSERVATION_MODES
            from mallows.agents.history import observation_problem

            self._stop("its handshake chose no observation mode")
            raise BotFailure(
                f"answered the handshake with {_shown(dumps(hello))}, whose "
                f"{observation_problem(view)}",
                kind="protocol",
            )
        self.protocol, self.history, self.observation_mode = proto, history, view
        self.hello = hello

    def _expect_ok(self, reply: dict, what: str) -> None:
        if reply.get("type") != "ok":
            self._stop(f"it answered {what} wrongly")
            raise BotFailure(
                f"answered {what} with {_shown(dumps(reply))}, but the answer "
                f'must be {{"type":"ok"}}: {shape_problem(reply, "ok")}',
                kind="garbage",
            )

    def _parse(self, line: bytes, what: str) -> dict:
        try:
            reply = loads(line)
        except ValueError as exc:
            self._stop("it wrote something that is not JSON")
            raise BotFailure(
                f"answered {what} with {undecodable(line, exc)}: {_shown(line)}; "
                f"write exactly one JSON object per line on stdout, and logs on "
                f"stderr",
                kind="garbage",
            ) from None
        if not isinstance(reply, dict):
            self._stop("it wrote JSON that is not an object")
            raise BotFailure(
                f"answered {what} with {_shown(line)}, which is not a JSON object", kind="garbage"
            )
        if reply.get("type") == "error":
            self._stop("it reported an error")
            raise failures.reported_error(
                str(reply.get("message")), self.limits, self.sandboxed, self._hit()
            )
        return reply

    # -- bytes -----------------------------------------------------------------------------

    def _exchange(
        self,
        data: bytes,
        deadline: float,
        what: str,
        limit_name: str,
        check: bool = True,
        spin: bool = False,
    ) -> bytes:
        """Send one request, return the one reply line; every failure stops the bot.
        ``spin``: a decision, whose answer is watched for before sleeping (``_spin``)."""
        if check and (self._buf or self._rpoll.poll(0)):
            self._unrequested(what, deadline, limit_name)
        self.process.thaw()  # a sandboxed bot runs only while it answers (spawn.BotProcess)
        self._write(data, deadline, what, limit_name)
        if spin:
            self._spin(what)
        line = self._readline(deadline, what, limit_name)
        self.process.freeze()
        return line

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
        self._stopped = why
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
        wall = (
            max(0.0, self.limits.match_seconds - self.used)
            if limit_name == "match_seconds"
            else getattr(self.limits, limit_name)
        )
        raise failures.timed_out(
            what,
            limit_name,
            self.limits,
            len(self.times),
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
