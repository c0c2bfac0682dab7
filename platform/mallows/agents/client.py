"""The one protocol-1/2 client: the platform's side of a bot, over any ``Channel``.

Owns: ``BotClient``, the ``BotHandle`` the runner drives for every bot that is not a person:
the handshake (``hello``, the protocol the bot chooses, its history and observation modes,
what its manifest declared), the match-start, decision and match-end messages in protocol 1
and 2 (``mallows.agents.history``), the time each decision took and the match budget, and
what is wrong with a well-formed reply (the words of every such failure). How a message gets
to the bot and back, and what goes wrong on the way, is its channel's
(``mallows.agents.channel``): the pipe to a process (``mallows.agents.process``), a bot
object in this process (``mallows.agents.inprocess``), or a socket to a remote bot.

The messages (``mallows.agents.process`` draws the table): ``hello``, ``start``, ``act``,
``end``, ``quit``; any request may be answered with ``{"type":"error","message":...}``,
which stops the bot and becomes the forfeit reason.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

from mallows import PROTOCOL_VERSION
from mallows.agents.channel import Ask, Channel
from mallows.agents.failures import _shown
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.wire import dumps, shape_problem

__all__ = ["BotClient"]

_new_ask = tuple.__new__


class BotClient:
    """A bot behind ``channel``, driven in protocol 1 or 2.

    ``params``: the bot parameters (sent in ``hello`` and in the start info's ``params``);
    ``protocols``: the versions offered in ``hello`` (the registry's handles offer 1 and 2);
    ``declared``: the protocols the bot's manifest says it speaks and the manifest's path (a
    hello answering another is refused; None: the hello chooses); ``reuse``: the manifest
    opted in to many matches per process. ``times`` holds the wall time of every decision of
    the current match, ``used`` their sum."""

    def __init__(
        self,
        name: str,
        channel: Channel,
        limits: Limits = Limits(),
        params: dict | None = None,
        protocols: Sequence[int] = (1,),
        declared: tuple[tuple[int, ...], str] | None = None,
        reuse: bool = False,
    ) -> None:
        self.name = name
        self.channel = channel
        self.limits = limits
        self.params = dict(params or {})
        self.protocols = tuple(protocols)
        self.declared = declared
        self.reuse = reuse
        self.protocol = 1
        self.history: str | None = None
        #: protocol 2's observation mode: "full" (the default) or "step" (None: protocol 1)
        self.observation_mode: str | None = None
        self.hello: dict | None = None
        self.matches = 0  # matches started over this channel
        self.times: list[float] = []
        self.used = 0.0
        self.spin = False  # watch for a decision's answer before sleeping (the channel's own)
        #: a channel that calls its bot directly (in-process) may take a decision without a
        #: message: ``decide(observation, events or None) -> action`` (``Channel``)
        self._decide: Callable[[dict, list | None], Any] | None = getattr(channel, "decide", None)

    @property
    def reusable(self) -> bool:
        """Whether this bot may play another match: it opted in (its hello said ``"reuse":
        true``, or its manifest ``reuse = true``) and its channel is alive and well."""
        return (
            self.hello is not None
            and self.channel.alive
            and (self.reuse or self.hello.get("reuse") is True)
        )

    # -- life cycle ------------------------------------------------------------------------

    def start(self, info: dict) -> None:
        deadline = time.monotonic() + self.limits.start_seconds
        self.used = 0.0
        self.times = []
        self.matches += 1
        if self.channel.ready and self.hello is not None:  # a reused bot: its next match
            try:
                self._start(info, deadline)
                return
            except BotFailure:
                # A process that said "reuse" but cannot start another match (it exited after
                # `end`, say) is replaced by a fresh one, as if it had not been reused: whether
                # the next match found it still alive is timing, and the table must not depend
                # on it (the same forfeits on every executor and worker count).
                if not self.channel.renew():
                    raise
                self.hello = None
                deadline = time.monotonic() + self.limits.start_seconds
        self.handshake(deadline)
        self._start(info, deadline)

    def _start(self, info: dict, deadline: float) -> None:
        if self.protocol == 2:
            from mallows.agents.history import start_info

            info = start_info(info, self.history or "delta", self.observation_mode or "full")
        what = "the match-start message"
        reply = self._request(
            {"type": "start", "info": dict(info, params=self.params)},
            Ask(what, "start_seconds", deadline),
        )
        self._expect_ok(reply, what)

    def handshake(self, deadline: float) -> dict:
        """Open the channel (start the process) if it is not, send ``hello`` (with
        ``self.params``) and check the reply, all before ``deadline`` (``time.monotonic()``;
        running over it counts against ``start_seconds``). Returns the bot's hello, also kept
        as ``self.hello``; ``BotFailure`` (the bot stopped) when the bot fails it."""
        self.channel.open()
        message: dict = {"type": "hello", "protocol": PROTOCOL_VERSION, "params": self.params}
        if len(self.protocols) > 1:  # protocol 1's hello as it was, and the versions offered
            message["protocols"] = list(self.protocols)
        # A bot that says hello before it is asked is tolerated: the check for unrequested
        # output starts after the handshake.
        hello = self._request(
            message, Ask("the handshake (hello)", "start_seconds", deadline, check=False)
        )
        self._check_hello(hello)
        return hello

    def act(self, observation: dict, events: list | None = None) -> Any:
        channel = self.channel
        if channel.stopped or not channel.ready:
            raise BotFailure(
                f"the bot was already stopped: {channel.stopped}"
                if channel.stopped
                else "the bot was asked to decide before it was started",
                kind="crash",
            )
        if self._decide is not None:  # no message to build, no deadline to wait for
            return self._decide(observation, (events or []) if self.protocol == 2 else None)
        limit = self.limits.decision_seconds
        left = self.limits.match_seconds - self.used
        budget = left < limit
        message = (
            {"type": "act", "events": events or [], "observation": observation}
            if self.protocol == 2
            else {"type": "act", "observation": observation}
        )
        t0 = time.monotonic()
        ask = _new_ask(  # Ask(...) without its keyword handling: 3 times cheaper, per decision
            Ask,
            (
                "a decision",
                "match_seconds" if budget else "decision_seconds",
                t0 + (left if budget else limit),
                max(0.0, left) if budget else limit,
                len(self.times),
                self.spin,
                True,
            ),
        )
        try:
            channel.send(message, ask)
            reply, line = channel.receive(ask)
        finally:
            spent = time.monotonic() - t0
            self.used += spent
            self.times.append(spent)
        if reply.get("type") == "error":
            self._reported(reply)
        if reply.get("type") == "action" and "action" in reply:
            return reply["action"]
        channel.stop("it answered a decision with a message that is not an action")
        raise BotFailure(
            f"answered {_shown(line or dumps(reply))}, but the answer to a decision must be "
            f'{{"type":"action","action":{{...}}}}: {shape_problem(reply, "action")}',
            kind="garbage",
        )

    def end(self, info: dict) -> None:
        if self.channel.stopped or not self.channel.ready:
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
        what = "the match-end message"
        reply = self._request(message, Ask(what, "start_seconds", deadline))
        self._expect_ok(reply, what)

    def stop(self, why: str) -> None:
        """Stop the bot now, from any thread: a decision it is making fails (kind ``crash``)
        and every later one says ``why``."""
        self.channel.stop(why)

    def quit(self) -> None:
        """Tell the bot to end without waiting (``close`` waits, then ends it for sure)."""
        self.channel.quit()

    def close(self) -> None:
        """End the bot for sure; safe to call more than once."""
        self.channel.close()

    # -- messages --------------------------------------------------------------------------

    def _request(self, message: dict, ask: Ask) -> dict:
        channel = self.channel
        if channel.stopped:
            raise BotFailure(f"the bot was already stopped: {channel.stopped}", kind="crash")
        channel.send(message, ask)
        reply, _ = channel.receive(ask)
        if reply.get("type") == "error":
            self._reported(reply)
        return reply

    def _reported(self, reply: dict) -> None:
        self.channel.stop("it reported an error")
        raise self.channel.reported(str(reply.get("message")))

    def _expect_ok(self, reply: dict, what: str) -> None:
        if reply.get("type") != "ok":
            self.channel.stop(f"it answered {what} wrongly")
            raise BotFailure(
                f"answered {what} with {_shown(dumps(reply))}, but the answer "
                f'must be {{"type":"ok"}}: {shape_problem(reply, "ok")}',
                kind="garbage",
            )

    def _refuse(self, why: str, reason: str, kind: str = "protocol") -> BotFailure:
        self.channel.stop(why)
        return BotFailure(reason, kind=kind)

    def _check_hello(self, hello: dict) -> None:
        shown = _shown(dumps(hello))
        if hello.get("type") != "hello":
            raise self._refuse(
                "its handshake was wrong",
                f"answered the handshake with {shown}, but the answer to "
                f'hello must be {{"type":"hello","protocol":{PROTOCOL_VERSION},"name":...,'
                f'"version":...}}',
                kind="garbage",
            )
        proto = hello.get("protocol")
        offered = self.protocols
        said_versions = " or ".join(map(str, offered))
        if "protocol" not in hello:
            raise self._refuse(
                "its handshake named no protocol",
                f"answered the handshake with {shown}, which has no "
                f'"protocol": its hello reply must say "protocol": {said_versions} (an '
                f"integer)",
            )
        if type(proto) is not int or proto not in offered:  # true == 1 in Python: not here
            said = dumps(proto).decode(errors="replace")[:40]
            speaks = (
                f"protocol {PROTOCOL_VERSION}"
                if len(offered) == 1
                else f"protocols {', '.join(map(str, offered))}"
            )
            raise self._refuse(
                "it speaks another protocol version",
                (
                    f"the bot speaks protocol {proto}"
                    if type(proto) is int
                    else f'the bot\'s hello says "protocol": {said}, which is not a protocol version'
                )
                + f", but this platform speaks {speaks}: its hello reply must "
                f'say "protocol": {said_versions} (the integer)',
            )
        if self.declared is not None and proto not in self.declared[0]:
            versions, where = self.declared
            listed = (
                str(versions[0]) if len(versions) == 1 else f"[{', '.join(map(str, versions))}]"
            )
            raise self._refuse(
                "its hello contradicts its manifest",
                f"the bot's hello answers protocol {proto}, but {where} says protocol = "
                f"{listed}: make them agree (set protocol = {proto} in it, or leave the key "
                f"out and let the hello choose)",
            )
        history = hello.get("history", "delta") if proto == 2 else None
        if proto == 2 and history not in ("delta", "full"):
            raise self._refuse(
                "its handshake chose no history mode",
                f'answered the handshake with {shown}, whose "history" is '
                f'neither "delta" (the events since the last message, the default) nor '
                f'"full" (every event of the match in each message)',
            )
        view = hello.get("observation", "full") if proto == 2 else None
        if proto == 2 and view not in ("full", "step"):  # history.OBSERVATION_MODES
            from mallows.agents.history import observation_problem

            raise self._refuse(
                "its handshake chose no observation mode",
                f"answered the handshake with {shown}, whose {observation_problem(view)}",
            )
        self.protocol, self.history, self.observation_mode = proto, history, view
        self.hello = hello
