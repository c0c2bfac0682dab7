"""The agent protocol v1 as the runner sees it: a bot handle, its limits, and its failures.

Whatever a bot is (a Python object in this process, a subprocess speaking JSON lines, a bot in a
Ray worker) the runner drives it through a ``BotHandle``:

- ``start(info)``: the match-start hook. ``info`` = ``{"protocol", "game", "options", "seat",
  "players", "seed", "names"}``.
- ``act(observation, events=None) -> action``: one decision (``events``: protocol 2 only).
- ``end(info)``: the match-end hook, ``info`` = ``{"seat", "result"}``. A failure here is
  reported but is not a forfeit.

Protocol 2 (``mallows.agents.history``): a handle whose ``protocol`` attribute is 2 once
``start`` returned (the bot chose it) is called ``act(observation, events)`` with the
protocol-2 observation and the seat's events, and ``end`` gets ``events`` and ``reveal`` in its
info; ``history`` and ``observation_mode`` are its modes. A handle without the attribute
speaks protocol 1.
- ``close()``: release everything (a subprocess is always reaped).

The handles of bots that are not people are one protocol client over a channel
(``mallows.agents.client``, ``mallows.agents.channel``); ``mallows.agents.runtimes`` says which
handle a resolved bot gets.

A handle raises ``BotFailure(reason)`` when the bot raises, crashes, exits, hangs, answers
garbage or runs over its limits; the runner turns that into a forfeit.
"""

from __future__ import annotations

import math
import traceback
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Protocol

from mallows.errors import KINDS, BotFailure, MallowsError
from mallows import PROTOCOL_VERSION

if TYPE_CHECKING:  # loaded when first asked for (``__getattr__``, at the end)
    from mallows.agents.inprocess import InProcessBot

__all__ = [
    "PROTOCOL_VERSION",
    "KINDS",
    "BotFailure",
    "BotHandle",
    "Limits",
    "InProcessBot",
    "describe_exception",
]


#: The allowed range of each limit (inclusive): seconds, and MiB for ``memory_mb`` (0: none).
#: ``decision_seconds`` has a floor: below it every seat would forfeit for want of time.
LIMIT_RANGES = {
    "decision_seconds": (0.01, 3600.0),
    "match_seconds": (0.01, 7 * 86400.0),
    "start_seconds": (0.1, 3600.0),
    "memory_mb": (16, 1 << 20),
}


NAME_MODES = ("shown", "hidden")


def hidden_names(players: int) -> list[str]:
    """What a bot sees as the seats' names under ``names = "hidden"``."""
    return [f"player{seat + 1}" for seat in range(players)]


@dataclass(frozen=True)
class Limits:
    """Limits. ``decision_seconds``: one decision; ``match_seconds``: all of one seat's
    decisions in one match together; ``start_seconds``: start-up, handshake and start hook;
    ``memory_mb``: an isolated bot's address space (``RLIMIT_AS``, 0: none; in-process bots
    share the platform's memory and are not bounded); ``sandbox``: ``"on"`` (default: every
    isolated bot runs in a bubblewrap sandbox, ``mallows.agents.sandbox``) or ``"off"`` (process
    isolation only, for trusted bots); ``names``: ``"shown"`` (default: a bot's start info
    lists every seat's bot name) or ``"hidden"`` (it lists ``"player1"``, ``"player2"``, ...,
    so a bot cannot treat its opponents by name; the records keep the real names)."""

    decision_seconds: float = 1.0
    match_seconds: float = 300.0
    start_seconds: float = 10.0
    memory_mb: int = 2048
    sandbox: str = "on"
    names: str = "shown"

    @classmethod
    def from_dict(cls, data: dict) -> "Limits":
        """Limits from a mapping (a tournament file's ``[limits]`` table, the CLI's options):
        the one validator of limits. An unknown key, or a value that is not a finite positive
        number of seconds (a whole number of MiB, 0 or more, for ``memory_mb``), is a
        ``MallowsError`` naming it."""
        known = [f.name for f in fields(cls)]
        values: dict[str, Any] = {}
        for key, value in data.items():
            if key not in known:
                raise MallowsError(f"unknown limit {key!r}: the limits are {', '.join(known)}")
            if key == "sandbox":  # "on" (default) or "off": process isolation only
                from mallows.agents.sandbox import check_mode

                values[key] = check_mode(value, "limit sandbox")
                continue
            if key == "names":  # what a bot's start info says about who sits where
                if value not in NAME_MODES:
                    raise MallowsError(
                        f'limit names = {value!r} must be "shown" (bots see '
                        f'their opponents\' names) or "hidden" (they see '
                        f"player1, player2, ...)"
                    )
                values[key] = value
                continue
            number = (
                isinstance(value, (int, float))
                and not isinstance(value, bool)
                and math.isfinite(value)
            )
            low, high = LIMIT_RANGES[key]
            if key == "memory_mb":  # MiB of an isolated bot's address space; 0: no limit
                if not number or value != int(value) or not (value == 0 or low <= value <= high):
                    raise MallowsError(
                        f"limit memory_mb = {value!r} must be a whole number of "
                        f"MiB from {low} to {high} (0 for no limit)"
                    )
                values[key] = int(value)
                continue
            if not number or not low <= value <= high:
                floor = number and value < low
                raise MallowsError(
                    f"limit {key} = {value!r} must be a number of seconds from {low:g} to "
                    f"{high:g}"
                    + (
                        ": below the floor every seat would forfeit for want of time"
                        if floor and key == "decision_seconds"
                        else ""
                    )
                )
            values[key] = float(value)
        return cls(**values)


class BotHandle(Protocol):
    """What the runner drives (the module's docstring says how): ``InProcessBot``,
    ``mallows.agents.process.SubprocessBot``, a pooled process's lease, a person's seat.
    ``protocol``, ``history`` and ``observation_mode`` are what the bot chose, once ``start``
    returned (1, None, None until then). A handle may also say where it runs, as the record
    says it: ``isolation``, ``"in-process"`` (when it does not), ``"sandbox"`` or
    ``"process"``."""

    name: str

    @property
    def protocol(self) -> int: ...
    @property
    def history(self) -> str | None: ...
    @property
    def observation_mode(self) -> str | None: ...

    def start(self, info: dict) -> None: ...
    def act(self, observation: dict, events: list | None = None) -> Any: ...
    def end(self, info: dict) -> None: ...
    def close(self) -> None: ...


class ProcessHandle(BotHandle, Protocol):
    """A ``BotHandle`` whose bot runs in its own process (``SubprocessBot``), as the registry
    and the pool use it besides: ``spawn()`` starts the process without a word to it;
    ``handshake(deadline)`` starts it if needed and returns its checked hello (also
    ``hello``); ``reusable``: it may play another match; ``quit()`` tells it to end without
    waiting; ``stop(why)`` stops it now, from any thread."""

    @property
    def hello(self) -> dict | None: ...
    @property
    def reusable(self) -> bool: ...

    def spawn(self) -> None: ...
    def handshake(self, deadline: float) -> dict: ...
    def quit(self) -> None: ...
    def stop(self, why: str) -> None: ...


def describe_exception(exc: BaseException, skip: str | None = None) -> str:
    """``ValueError: bad thing (at mybot.py:12 in act)`` for the innermost frame of the bot's
    own code; frames of the file ``skip`` (the caller's own, e.g. the host) are passed over, so
    a failure of the call itself (a wrong constructor argument) names no line."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename != skip]
    where = ""
    if frames:
        f = frames[-1]
        where = f" (at {f.filename.rsplit('/', 1)[-1]}:{f.lineno} in {f.name})"
    return f"{type(exc).__name__}: {exc}{where}"


def __getattr__(name: str) -> Any:
    """``InProcessBot`` (the handle of a bot object in this process, one a bot may use to run
    another: bots/README.md) lives beside its channel in ``mallows.agents.inprocess``, loaded
    when first asked for: a bot that imports this module loads no more than it did."""
    if name == "InProcessBot":
        from mallows.agents.inprocess import InProcessBot

        return InProcessBot
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
