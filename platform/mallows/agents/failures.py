"""Why a bot process failed, in words its author can act on: the reasons the pipe channel
(``mallows.agents.process.PipeChannel``) gives when it stops a bot.

Each reason is a pure function of what happened (the request, the limit, the process's exit
status, the tail of its stderr, what its sandbox's cgroup recorded) returning the
``BotFailure`` with its ``kind``: no answer in time (``timeout``; or ``crash``/``exit`` when the
bot died while a process it started held its stdout), killed by a signal or exited (``crash``,
``exit``; ``flood`` for ``SIGXFSZ``, ``memory`` when its stderr or its cgroup says it ran out
of memory), more than one line in reply to one request (``garbage``), its stdout closed
(``protocol``). A reason quotes the tail of the bot's stderr
(``mallows.agents.spawn.STDERR_TAIL_CHARS``) and says which limit of the sandbox it met
(processes, its /tmp, read-only files, memory). The channel gathers the facts, stops the bot
and raises the failure.
"""

from __future__ import annotations

import signal
from typing import Iterable

from mallows.agents.isolation import STDERR_LIMIT_BYTES
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.wire import loads

SHOWN = 200  # characters of an offending line quoted in a reason
# Words in a bot's error or stderr that mean it ran out of memory (Python, C++, Rust, Go, Node,
# Java, libc).
MEMORY_MARKERS = (
    "memoryerror",
    "out of memory",
    "bad_alloc",
    "cannot allocate memory",
    "memory allocation of",
    "allocation failed",
    "outofmemory",
)


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


def _is_reply(line: bytes) -> bool:
    """Whether ``line`` is a protocol reply (what a bot answers a request with)."""
    try:
        message = loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("type") in ("action", "ok", "hello", "error")


def _mentions_memory(text: str) -> bool:
    text = text.lower()
    return any(m in text for m in MEMORY_MARKERS)


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
    seconds of CPU (negative: unknown, ""); ``ready``: whether a process of it was waiting to
    run at the end. A bot that used most of the time was slow; one that used little while
    ready to run was starved (the platform failed it: said so); one that used little while
    asleep was waiting for something."""
    if used < 0:
        return ""
    share = used / wall if wall > 0 else 0.0
    text = f"; in that time it used {used:.3f} s of CPU ({share:.0%} of {wall:g} s)"
    if share >= 0.5:
        return text + ": it was computing, too slowly"
    if ready:
        return text + (
            ": it was ready to run but did not get the CPU (starved by something "
            "else on this machine, not slow: report it to the organiser)"
        )
    return text + ": it was not computing (waiting, or sleeping)"


def timed_out_exited(
    what: str, limit_name: str, rc: int, tail: str, bwrap: bool = False
) -> BotFailure:
    """The bot process exited during ``what`` (status ``rc``; ``bwrap``: as bubblewrap reports
    it), but a process it started kept its stdout open, so the platform waited until
    ``limit_name`` ran out."""
    if bwrap:
        rc = sandbox_status(rc)
    how = f"was killed by {_signal_name(-rc)}" if rc < 0 else f"exited with status {rc}"
    return BotFailure(
        f"the bot process {how} during {what}, but a process it started "
        f"kept its standard output open, so the platform waited for an "
        f"answer until the time limit ({limit_name}); that process was "
        f"stopped{tail}",
        kind="crash" if rc < 0 else "exit",
    )


def timed_out(
    what: str, limit_name: str, limits: Limits, decisions: int, tail: str, note: str = ""
) -> BotFailure:
    """No answer to ``what`` within ``limit_name`` (after ``decisions`` decisions); ``note``:
    what it did with the CPU meanwhile (``cpu_note``)."""
    if limit_name == "match_seconds":
        return BotFailure(
            f"ran out of its match time budget of {limits.match_seconds:g} s "
            f"(match_seconds) during {what}, after {decisions} decisions{note}; the bot "
            f"was stopped",
            kind="timeout",
        )
    limit = getattr(limits, limit_name)
    return BotFailure(
        f"no answer to {what} within the time limit of {limit:g} s "
        f"({limit_name}){note}; the bot was stopped{tail}",
        kind="timeout",
    )


def several_lines(first: bytes, rest: list[bytes], what: str) -> BotFailure:
    """The bot wrote more than one line in reply to one request (``first``, then the
    non-blank lines ``rest``): say whether the answer came first (then lines after it) or
    later (lines before it), or not at all."""
    hint = "answer each request with exactly one line, and write logs on stderr"
    if _is_reply(first):
        return BotFailure(
            f"wrote {_shown(rest[0])} after its answer to {what}, a line nobody asked for: {hint}",
            kind="garbage",
        )
    count = 1 + len(rest)
    if any(_is_reply(ln) for ln in rest):
        return BotFailure(
            f"wrote {count} lines in reply to {what}, the answer not first: "
            f"the first was {_shown(first)}, a line nobody asked for before "
            f"its answer: {hint}",
            kind="garbage",
        )
    return BotFailure(
        f"wrote {count} lines in reply to {what}, none of them an answer, "
        f"the first {_shown(first)}: {hint}",
        kind="garbage",
    )


def closed_stdout(what: str, tail: str) -> BotFailure:
    """The bot closed its stdout during ``what`` but did not exit."""
    return BotFailure(
        f"closed its standard output during {what} (the protocol "
        f"channel); the bot was stopped{tail}",
        kind="protocol",
    )


def died(
    what: str, rc: int, tail: str, limits: Limits, sandboxed: bool, bwrap: bool, hit: Iterable[str]
) -> BotFailure:
    """The bot process ended during ``what`` with status ``rc`` (``bwrap``: as bubblewrap
    reports it); ``hit``: the cgroup limits it met (``"memory"``, ``"pids"``)."""
    hit = frozenset(hit)
    if bwrap:
        rc = sandbox_status(rc)  # bwrap's convention: 128 + N for signal N
    kind = "crash" if rc < 0 else "exit"  # killed by a signal / exited by itself
    if rc < 0:
        how = f"was killed by {_signal_name(-rc)}"
        if -rc == getattr(signal, "SIGXFSZ", -1):
            how += f" (it wrote more than {STDERR_LIMIT_BYTES} bytes to stderr or a file)"
            kind = "flood"
    else:
        how = f"exited with status {rc}"
    if rc != 0 and _mentions_memory(tail):
        return BotFailure(
            f"the bot process {how} during {what}{memory_note(limits, hit)}{tail}", kind="memory"
        )
    if rc < 0 and "memory" in hit:
        mb = getattr(limits, "memory_mb", 0) or 0
        return BotFailure(
            f"the bot process {how} during {what}: its processes together "
            f"went over the sandbox's memory limit ({mb:g} MiB, memory_mb, "
            f"plus its /tmp){tail}",
            kind="memory",
        )
    return BotFailure(
        f"the bot process {how} during {what}{limit_notes(tail, sandboxed, hit)}{tail}", kind=kind
    )


def reported_error(message: str, limits: Limits, sandboxed: bool, hit: Iterable[str]) -> BotFailure:
    """The bot answered a request with ``{"type":"error","message":...}``."""
    hit = frozenset(hit)
    message = message + limit_notes(message, sandboxed, hit)
    if _mentions_memory(message):
        return BotFailure(
            f"the bot reported an error: {message}{memory_note(limits, hit)}", kind="memory"
        )
    return BotFailure(f"the bot reported an error: {message}", kind="error")


def limit_notes(text: str, sandboxed: bool, hit: Iterable[str]) -> str:
    """What a sandbox limit has to do with a failure, for its reason."""
    from mallows.agents import sandbox

    notes = []
    if "pids" in hit:
        notes.append(
            f"it reached the sandbox's limit of {sandbox.MAX_PROCESSES} processes "
            f"(a fork was refused)"
        )
    elif "resource temporarily unavailable" in text.lower() and sandboxed:
        notes.append(
            f"it may have reached the sandbox's limit of {sandbox.MAX_PROCESSES} processes"
        )
    if "no space left on device" in text.lower() and sandboxed:
        notes.append(f"its private /tmp (also HOME) holds at most {sandbox.TMP_MB} MiB")
    if "read-only file system" in text.lower() and sandboxed:
        notes.append("the sandbox's files are read-only except /tmp")
    return "".join(f" ({n})" for n in notes)


def memory_note(limits: Limits, hit: Iterable[str]) -> str:
    """What the bot's memory limit is, for a reason that says it ran out of memory."""
    mb = getattr(limits, "memory_mb", 0) or 0
    if mb > 0 and "memory" in hit:
        return (
            f"; it ran out of memory: the bot's memory limit is {mb:g} MiB "
            f"(memory_mb) for all its processes together (plus its /tmp), in the "
            f"sandbox's memory cgroup"
        )
    if mb > 0:
        return (
            f"; it ran out of memory: the bot's memory limit is {mb:g} MiB "
            f"(memory_mb, its address-space limit RLIMIT_AS)"
        )
    return "; it ran out of memory (no memory limit was set: memory_mb = 0)"
