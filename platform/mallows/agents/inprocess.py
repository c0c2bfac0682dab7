"""A trusted Python bot object in the platform's own process, as a channel and as a handle.

Owns: ``InProcessChannel``, the ``Channel`` (``mallows.agents.channel``) whose far end is a
bot object: each message is a call of its hook (``hello`` reads its class attributes,
``start`` calls ``match_start``, ``act`` calls ``act``, ``end`` calls ``match_end``), and each
reply the message that call makes; and ``InProcessBot``, the one protocol client
(``mallows.agents.client.BotClient``) over it.

Nothing is encoded: the bot gets the observation object itself (and, in protocol 2, its own
copies of the events, as it would over a pipe), and what ``act`` returns is the action, JSON or
not (the runner judges it). The bot cannot be pre-empted, so its time is measured after each
call and a call over its limit is a failure all the same; a bot that raises is a failure
naming the exception and the bot's line. Nothing stops it: ``stop`` only refuses what follows.
"""

from __future__ import annotations

import marshal
import time
from typing import Any

from mallows.agents.channel import Ask
from mallows.agents.client import BotClient
from mallows.agents.history import VERSIONS, check_choice
from mallows.agents.protocol import BotFailure, Limits, describe_exception

__all__ = ["InProcessBot", "InProcessChannel"]

_OK = {"type": "ok"}


class InProcessChannel:
    """The bot object ``bot`` as a channel, under ``limits``; ``used``: the seconds its
    decisions took in this match (its match budget)."""

    def __init__(self, bot: Any, limits: Limits = Limits()) -> None:
        self.bot = bot
        self.limits = limits
        self.used = 0.0
        self.stopped: str | None = None
        self._reply: dict = _OK

    ready = True  # nothing to start
    alive = True

    def open(self) -> None:
        pass

    def _call(self, hook: str, args: tuple, limit: float, what: str) -> tuple[Any, float]:
        fn = getattr(self.bot, hook, None)
        if fn is None:
            return None, 0.0
        t0 = time.perf_counter()
        try:
            answer = fn(*args)
        except Exception as exc:  # the bot's own bug: reported, never propagated
            raise BotFailure(f"{what} raised {describe_exception(exc)}") from None
        spent = time.perf_counter() - t0
        if spent > limit:
            raise BotFailure(
                f"{what} took {spent:.3f} s, over the limit of {limit:g} s", kind="timeout"
            )
        return answer, spent

    def send(self, message: dict, ask: Ask) -> None:
        kind = message["type"]
        if kind == "act":  # what the client sends when it does not ``decide``
            action = self.decide(message["observation"], message.get("events"))
            self._reply = {"type": "action", "action": action}
        elif kind == "hello":
            self._reply = self._hello()
        elif kind == "start":
            self.used = 0.0
            info = dict(message["info"])
            info.pop("params", None)  # its parameters went to its constructor
            self._hook("match_start", info, "the match-start hook")
        elif kind == "end":
            info = message["info"]
            if "events" in message:  # protocol 2: in the info, as the bot reads them
                info = dict(info, events=message["events"], reveal=message["reveal"])
            self._hook("match_end", info, "the match-end hook")
        else:  # pragma: no cover - the client sends nothing else
            raise BotFailure(f"no such message {kind!r} for an in-process bot", kind="protocol")

    def decide(self, observation: dict, events: list | None) -> Any:
        """The bot's ``act``: ``act(observation)`` in protocol 1 (``events`` None), else
        ``act(observation, events)`` with its own copy of the events (a trusted bot may still
        change what it got)."""
        limits = self.limits
        args: tuple = (
            (observation,)
            if events is None
            else (observation, marshal.loads(marshal.dumps(events)))
        )
        answer, spent = self._call("act", args, limits.decision_seconds, "act()")
        self.used += spent
        if self.used > limits.match_seconds:
            raise BotFailure(
                f"used {self.used:.3f} s in this match, over the match budget of "
                f"{limits.match_seconds:g} s",
                kind="timeout",
            )
        return answer

    def _hook(self, hook: str, info: dict, what: str) -> None:
        self._call(hook, (info,), self.limits.start_seconds, what)
        self._reply = _OK

    def _hello(self) -> dict:
        """The bot's choice of protocol, from its class attributes, as its hello would say it."""
        bot = self.bot
        protocol = getattr(bot, "protocol", 1)
        history = getattr(bot, "history", "delta") if protocol == 2 else None
        view = getattr(bot, "observation", "full") if protocol == 2 else None
        problem = check_choice(protocol, history, observation=view)
        if problem:
            raise BotFailure(
                f"the bot's {problem}: a Python bot says protocol = 1 or 2 (and, "
                f'for 2, history = "delta" or "full", observation = "full" '
                f'or "step") as class attributes',
                kind="protocol",
            )
        if protocol == 2:
            return {"type": "hello", "protocol": 2, "history": history, "observation": view}
        return {"type": "hello", "protocol": protocol}

    def receive(self, ask: Ask) -> tuple[dict, bytes]:
        return self._reply, b""

    def reported(self, message: str) -> BotFailure:  # pragma: no cover - it raises instead
        return BotFailure(f"the bot reported an error: {message}")

    def stop(self, why: str) -> None:
        self.stopped = why

    def renew(self) -> bool:
        return False  # the object is the bot: there is no fresh one to put in its place

    def quit(self) -> None:
        pass

    def close(self) -> None:
        close = getattr(self.bot, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


class InProcessBot(BotClient):
    """A trusted Python bot object called directly: the protocol client over an
    ``InProcessChannel``. It cannot be pre-empted, so its time is measured after each call and
    a decision over the limit is a forfeit all the same.

    A bot with the class attribute ``protocol = 2`` speaks protocol 2 (bots/README.md): its
    ``history`` attribute (``"delta"``, the default, or ``"full"``) says which events it gets,
    its ``observation`` attribute (``"full"``, the default, or ``"step"``) which observation,
    ``act(observation, events)`` is called with the protocol-2 observation and its events, and
    ``match_end(info)`` gets ``events`` and ``reveal`` in ``info``; the start info is the
    protocol-2 one. The events it gets are its own copies, as they would be over a pipe."""

    isolation = "in-process"

    def __init__(self, bot: Any, name: str, limits: Limits = Limits()) -> None:
        self.channel: InProcessChannel = InProcessChannel(bot, limits)
        super().__init__(name, self.channel, limits, protocols=VERSIONS)

    @property
    def bot(self) -> Any:
        """The bot object."""
        return self.channel.bot
