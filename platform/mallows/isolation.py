"""A bot in its own OS process, spoken to in the protocol v1 wire format (JSON lines).

``SubprocessBot`` is the ``BotHandle`` for every bot that does not run in the platform's own
process: a subprocess bot of any language (a folder with a ``bot.toml`` manifest) and an
untrusted Python bot hosted by ``python -m mallows.bothost``. The bot sees nothing but the
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
"""

from __future__ import annotations

import json
import math
import os
import resource
import select
import signal
import subprocess
import tempfile
import time
import weakref
from typing import Any, Sequence

from mallows import PROTOCOL_VERSION
from mallows.agents import BotFailure, Limits

MAX_LINE_BYTES = 256 * 1024          # one reply line, newline excluded
STDERR_LIMIT_BYTES = 8 * 1024 * 1024  # the child's RLIMIT_FSIZE: its stderr file cannot grow past it
STDERR_TAIL_CHARS = 800               # how much of stderr a crash reason quotes
QUIT_GRACE_SECONDS = 0.2              # after "quit", how long a bot may take to exit by itself
SHOWN = 200                           # characters of an offending line quoted in a reason
READ_CHUNK = 65536

try:  # the same JSON, 3 to 6 times faster to encode and decode, when orjson is installed
    import orjson

    def dumps(obj: Any) -> bytes:
        """Compact JSON as bytes."""
        try:
            return orjson.dumps(obj)
        except TypeError:  # e.g. integer keys, which the json module turns into strings
            return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)

    loads = orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    _json_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode

    def dumps(obj: Any) -> bytes:
        """Compact JSON as bytes."""
        return _json_encode(obj).encode()

    loads = json.loads
_POLL_IN = select.POLLIN | select.POLLPRI
_POLL_OUT = select.POLLOUT


def _shown(data: bytes | str) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if len(text) > SHOWN:
        text = text[:SHOWN] + f"... ({len(text)} characters)"
    return repr(text)


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the bot's whole process group, then reap the bot. Safe to call twice."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        try:
            proc.kill()
        except ProcessLookupError:
            pass
        proc.wait()


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class SubprocessBot:
    """A ``BotHandle`` for a bot process speaking the wire format.

    ``command``: argv of the bot (already resolved); ``cwd``: its working directory;
    ``params``: the bot parameters (sent in ``hello`` and in the start message's ``params``).
    The process is started by ``start`` (within ``limits.start_seconds``, handshake and start
    hook included) and reaped by ``close``. ``times`` holds the wall time of every decision.
    """

    def __init__(self, name: str, command: Sequence[str], cwd: str | None = None,
                 params: dict | None = None, limits: Limits = Limits(),
                 env: dict | None = None):
        self.name = name
        self.command = list(command)
        self.cwd = cwd
        self.params = dict(params or {})
        self.limits = limits
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.hello: dict | None = None
        self.times: list[float] = []
        self.used = 0.0
        self._buf = bytearray()
        self._stopped: str | None = None   # why the bot was stopped, once it was
        self._err = None
        self._finalizer = None

    # -- life cycle ------------------------------------------------------------------------

    def spawn(self) -> None:
        """Start the process (no messages yet)."""
        if self.proc is not None:
            return
        env = dict(os.environ if self.env is None else self.env)
        env.setdefault("PYTHONUNBUFFERED", "1")  # a Python bot's print() reaches us at once
        self._err = tempfile.TemporaryFile(prefix="mallows-bot-", suffix=".stderr")
        try:
            self.proc = subprocess.Popen(
                self.command, cwd=self.cwd, env=env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._err, bufsize=0, close_fds=True,
                start_new_session=True)
        except OSError as exc:
            self._stopped = "it could not be started"
            raise BotFailure(f"could not start the bot's command {self.command}: {exc}",
                             kind="crash") from None
        self._finalizer = weakref.finalize(self, _kill_group, self.proc)
        try:
            resource.prlimit(self.proc.pid, resource.RLIMIT_FSIZE,
                             (STDERR_LIMIT_BYTES, STDERR_LIMIT_BYTES))
        except (OSError, ValueError, AttributeError):
            pass  # it already exited (reported at the first read), or no prlimit here
        self._wfd = self.proc.stdin.fileno()
        self._rfd = self.proc.stdout.fileno()
        os.set_blocking(self._wfd, False)
        os.set_blocking(self._rfd, False)
        self._rpoll = select.poll()
        self._rpoll.register(self._rfd, _POLL_IN)

    def start(self, info: dict) -> None:
        deadline = time.monotonic() + self.limits.start_seconds
        self.spawn()
        hello = self._request({"type": "hello", "protocol": PROTOCOL_VERSION,
                               "params": self.params},
                              deadline, "the handshake (hello)", "start_seconds")
        self._check_hello(hello)
        reply = self._request({"type": "start", "info": dict(info, params=self.params)},
                              deadline, "the match-start message", "start_seconds")
        self._expect_ok(reply, "the match-start message")

    def act(self, observation: dict) -> Any:
        if self._stopped or self.proc is None:
            raise BotFailure(f"the bot was already stopped: {self._stopped}" if self._stopped
                             else "the bot was asked to decide before it was started",
                             kind="crash")
        limit = self.limits.decision_seconds
        left = self.limits.match_seconds - self.used
        budget = left < limit
        t0 = time.monotonic()
        data = b'{"type":"act","observation":' + dumps(observation) + b'}\n'
        try:
            line = self._exchange(data, t0 + (left if budget else limit), "a decision",
                                  "match_seconds" if budget else "decision_seconds")
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
            f'{{"type":"action","action":{{...}}}}', kind="garbage")

    def end(self, info: dict) -> None:
        if self._stopped or self.proc is None:
            return
        deadline = time.monotonic() + self.limits.start_seconds
        reply = self._request({"type": "end", "info": info}, deadline,
                              "the match-end message", "start_seconds")
        self._expect_ok(reply, "the match-end message")

    def close(self) -> None:
        """Ask the bot to quit, give it ``QUIT_GRACE_SECONDS``, then kill its process group.
        Always reaps the process; safe to call more than once."""
        proc = self.proc
        if proc is not None:
            if proc.returncode is None and not self._stopped:
                try:
                    os.write(self._wfd, b'{"type":"quit"}\n')
                except OSError:
                    pass
                try:
                    proc.stdin.close()
                except OSError:
                    pass
                try:
                    proc.wait(QUIT_GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
            _kill_group(proc)  # the bot if it is still there, and anything it left behind
            for stream in (proc.stdin, proc.stdout):
                try:
                    stream.close()
                except OSError:
                    pass
            if self._finalizer is not None:
                self._finalizer.detach()
        if self._err is not None:
            self._err.close()
            self._err = None

    # -- messages --------------------------------------------------------------------------

    def _request(self, message: dict, deadline: float, what: str, limit_name: str) -> dict:
        if self._stopped:
            raise BotFailure(f"the bot was already stopped: {self._stopped}", kind="crash")
        # A bot that says hello before it is asked is tolerated: the check for unrequested
        # output starts after the handshake.
        line = self._exchange(dumps(message) + b"\n", deadline, what, limit_name,
                              check=message["type"] != "hello")
        return self._parse(line, what)

    def _check_hello(self, hello: dict) -> None:
        if hello.get("type") != "hello":
            self._stop("its handshake was wrong")
            raise BotFailure(
                f"answered the handshake with {_shown(dumps(hello))}, but the answer to "
                f'hello must be {{"type":"hello","protocol":{PROTOCOL_VERSION},"name":...,'
                f'"version":...}}', kind="garbage")
        proto = hello.get("protocol")
        if proto != PROTOCOL_VERSION:
            self._stop("it speaks another protocol version")
            raise BotFailure(
                f"the bot speaks protocol {proto!r}, but this platform speaks protocol "
                f"{PROTOCOL_VERSION}: its hello reply must say \"protocol\": {PROTOCOL_VERSION}",
                kind="protocol")
        self.hello = hello

    def _expect_ok(self, reply: dict, what: str) -> None:
        if reply.get("type") != "ok":
            self._stop(f"it answered {what} wrongly")
            raise BotFailure(f"answered {what} with {_shown(dumps(reply))}, but the answer "
                             f'must be {{"type":"ok"}}', kind="garbage")

    def _parse(self, line: bytes, what: str) -> dict:
        try:
            reply = loads(line)
        except ValueError as exc:
            self._stop("it wrote something that is not JSON")
            raise BotFailure(f"answered {what} with a line that is not JSON: {_shown(line)} "
                             f"({exc}); write exactly one JSON object per line on stdout, "
                             f"and logs on stderr", kind="garbage") from None
        if not isinstance(reply, dict):
            self._stop("it wrote JSON that is not an object")
            raise BotFailure(f"answered {what} with {_shown(line)}, which is not a JSON object",
                             kind="garbage")
        if reply.get("type") == "error":
            self._stop("it reported an error")
            raise BotFailure(f"the bot reported an error: {reply.get('message')}",
                             kind="error")
        return reply

    # -- bytes -----------------------------------------------------------------------------

    def _exchange(self, data: bytes, deadline: float, what: str, limit_name: str,
                  check: bool = True) -> bytes:
        """Send one request, return the one reply line; every failure stops the bot."""
        if check and (self._buf or self._rpoll.poll(0)):
            self._unrequested(what, deadline, limit_name)
        self._write(data, deadline, what, limit_name)
        return self._readline(deadline, what, limit_name)

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
            if i >= 0:
                line = bytes(buf[:i])
                del buf[:i + 1]
                if buf and not buf.isspace():
                    self._unrequested(what, deadline, limit_name, after=True)
                buf.clear()
                return line
            scanned = len(buf)
            if scanned > MAX_LINE_BYTES:
                self._flooded(what)
            self._fill(deadline, what, limit_name)

    def _unrequested(self, what: str, deadline: float, limit_name: str,
                     after: bool = False) -> None:
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
        while b"\n" not in self._buf and len(self._buf) < SHOWN * 2 \
                and self._rpoll.poll(max(0, math.ceil((settle - time.monotonic()) * 1000))):
            try:
                chunk = os.read(self._rfd, READ_CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                break
            self._buf += chunk
        extra = bytes(self._buf[:SHOWN * 2]).split(b"\n", 1)[0]
        self._stop("it wrote output nobody asked for")
        when = "after its answer" if after else f"before {what}"
        raise BotFailure(f"wrote {_shown(extra)} {when}, a line nobody asked for: "
                         f"answer each request with exactly one line, and write logs on "
                         f"stderr", kind="garbage")

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
        self._stop(f"it ran over {limit_name}")
        if limit_name == "match_seconds":
            raise BotFailure(
                f"ran out of its match time budget of {self.limits.match_seconds:g} s "
                f"(match_seconds) during {what}, after {len(self.times)} decisions; the bot "
                f"was stopped", kind="timeout")
        limit = getattr(self.limits, limit_name)
        raise BotFailure(f"no answer to {what} within the time limit of {limit:g} s "
                         f"({limit_name}); the bot was stopped{self._stderr_tail()}",
                         kind="timeout")

    def _flooded(self, what: str) -> None:
        size = len(self._buf)
        head = bytes(self._buf[:SHOWN])
        self._stop("it flooded its output")
        raise BotFailure(f"flooded its output during {what}: more than {MAX_LINE_BYTES} bytes "
                         f"without a newline, beginning {_shown(head)} (a reply is one line "
                         f"of at most {MAX_LINE_BYTES} bytes); read {size} bytes, then the "
                         f"bot was stopped", kind="flood")

    def _died(self, what: str) -> None:
        proc = self.proc
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            self._stop("it closed its stdout")
            raise BotFailure(f"closed its standard output during {what} (the protocol "
                             f"channel); the bot was stopped{self._stderr_tail()}",
                             kind="crash") from None
        rc = proc.returncode
        tail = self._stderr_tail()
        self._stop("it exited")
        if rc < 0:
            how = f"was killed by {_signal_name(-rc)}"
            if -rc == getattr(signal, "SIGXFSZ", -1):
                how += f" (it wrote more than {STDERR_LIMIT_BYTES} bytes to stderr or a file)"
        else:
            how = f"exited with status {rc}"
        raise BotFailure(f"the bot process {how} during {what}{tail}", kind="crash")
