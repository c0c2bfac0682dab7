"""The channel a protocol client speaks to a bot over: one message out, one message back.

Owns: ``Channel``, what the one protocol-1/2 client (``mallows.agents.client.BotClient``)
needs of the thing between it and a bot, ``Ask``, one request as a channel sees it (what it
is, for reasons, and its deadline), and ``decode``, the one reading of a reply line (the
reasons for a line that is not a JSON object).

A message is one line of the wire format (``mallows.agents.wire``) on a channel that carries
bytes, and the message itself on one that does not:

- the pipe to a bot's process, plain or sandboxed (``mallows.agents.process.PipeChannel``);
- a Python bot object in this process (``mallows.agents.inprocess.InProcessChannel``);
- anything else that can send a line and read one before a deadline: a socket to a bot on
  another machine is one more class with these methods (the test suite drives a real bot over
  a ``socket.socketpair()`` through the same client, with the same record as the pipe's).

A channel reports what goes wrong on its side as a ``BotFailure`` with its ``kind`` (the far
end closed, ``exit``/``crash``; no answer before the deadline, ``timeout``; a line that is
not JSON, ``garbage``; more than one line, ``garbage``; an endless line, ``flood``), in the
words of ``mallows.agents.failures``, and stops the bot first. What is wrong with a
well-formed reply (a wrong type, a bad hello) is the client's to say, the same for every
channel.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Protocol

from mallows.agents.failures import _shown
from mallows.agents.wire import loads, undecodable
from mallows.errors import BotFailure

__all__ = ["Ask", "Channel", "decode"]


class Ask(NamedTuple):
    """One request as its channel sees it. ``what``: it in words (``"a decision"``, ``"the
    handshake (hello)"``), for reasons; ``limit_name``: the limit its ``deadline``
    (``time.monotonic()``) comes from; ``wall``: the seconds it had (None: all of that limit);
    ``decisions``: the seat's
    decisions before it in this match; ``spin``: a decision, whose answer a channel may watch
    for before it sleeps; ``check``: output waiting before it is output nobody asked for (not
    before the handshake: a bot may greet first)."""

    what: str
    limit_name: str
    deadline: float
    wall: float | None = None
    decisions: int = 0
    spin: bool = False
    check: bool = True


class Channel(Protocol):
    """What the protocol client needs of the way to its bot.

    - ``open()``: make the far end ready (start its process); a no-op when it is.
    - ``ready``: it was opened and has not been closed (a request may be sent).
    - ``alive``: it could serve another match (its far end is running and well).
    - ``stopped``: why the bot was stopped, once it was (None until then).
    - ``send(message, ask)`` then ``receive(ask) -> (reply, line)``: one request and its one
      reply, before ``ask.deadline``; ``line`` is the reply as the bot wrote it (quoted in
      reasons; ``b""`` on a channel that carries objects).
    - ``reported(message)``: the bot's own ``error`` message as the failure it is.
    - ``stop(why)``: stop the bot now (from any thread); every later request fails.
    - ``renew()``: replace a far end that cannot start another match by a fresh one, before a
      new handshake (False: this channel cannot, and the failure stands).
    - ``quit()``: tell the far end to end, without waiting; ``close()``: end it for sure.

    A channel whose far end is called directly (a bot object in this process) may also offer
    ``decide(observation, events) -> action`` (``events``: None in protocol 1): a decision
    without building the message, as the ``act`` message would take it; the client uses it
    when it is there (a decision of a quick in-process bot costs a few microseconds, which
    the message and its deadline would double).
    """

    @property
    def ready(self) -> bool: ...
    @property
    def alive(self) -> bool: ...
    @property
    def stopped(self) -> str | None: ...

    def open(self) -> None: ...
    def send(self, message: dict, ask: Ask) -> None: ...
    def receive(self, ask: Ask) -> tuple[dict, bytes]: ...
    def reported(self, message: str) -> BotFailure: ...
    def stop(self, why: str) -> None: ...
    def renew(self) -> bool: ...
    def quit(self) -> None: ...
    def close(self) -> None: ...


def decode(line: bytes, what: str, stop: Callable[[str], Any]) -> dict:
    """The reply ``line`` to ``what`` as a message; a line that is not a JSON object stops
    the bot (``stop(why)``) and is a ``garbage`` failure saying how to write one."""
    try:
        reply = loads(line)
    except ValueError as exc:
        stop("it wrote something that is not JSON")
        raise BotFailure(
            f"answered {what} with {undecodable(line, exc)}: {_shown(line)}; "
            f"write exactly one JSON object per line on stdout, and logs on "
            f"stderr",
            kind="garbage",
        ) from None
    if not isinstance(reply, dict):
        stop("it wrote JSON that is not an object")
        raise BotFailure(
            f"answered {what} with {_shown(line)}, which is not a JSON object", kind="garbage"
        )
    return reply
