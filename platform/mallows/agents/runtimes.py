"""Bot runtimes: how a resolved bot becomes the handle that plays one match.

Owns: ``RUNTIMES``, the registry of runtimes (a name -> how to make the ``BotHandle`` for a
``mallows.agents.registry.BotSpec`` under its ``Limits``), and ``runtime_of(spec)``, which
runtime a spec runs in:

- ``"in-process"``: a trusted Python bot, constructed here with its parameters and driven
  through the in-process channel (``mallows.agents.inprocess.InProcessBot``);
- ``"process"``: every other bot, in its own process (sandboxed unless ``limits.sandbox`` is
  ``"off"``) over its pipes (``mallows.agents.process.SubprocessBot``): a hosted Python bot or
  a manifest's command;
- ``"human"``: a person at this terminal (``mallows.agents.human.HumanSeat``).

A new way to run a bot (a bot on another machine, over a socket) is one more entry: a function
making a handle, usually the protocol client (``mallows.agents.client.BotClient``) over a new
``mallows.agents.channel.Channel``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from mallows.agents.protocol import BotHandle, Limits, describe_exception
from mallows.errors import BotError

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec

__all__ = ["RUNTIMES", "Runtime", "runtime_of"]

#: how to make the handle of a spec, under limits
Runtime = Callable[["BotSpec", Limits], BotHandle]


def _in_process(spec: "BotSpec", limits: Limits) -> BotHandle:
    from mallows.agents.inprocess import InProcessBot

    try:
        bot = spec.cls(**spec.params)
    except Exception as exc:
        raise BotError(
            f"bot {spec.name!r} ({spec.source}) could not be constructed: "
            f"{spec.cls.__name__}(**{spec.params!r}) raised "
            f"{describe_exception(exc)}"
        ) from None
    return InProcessBot(bot, spec.name, limits)


def _process(spec: "BotSpec", limits: Limits) -> BotHandle:
    from mallows.agents.history import VERSIONS
    from mallows.agents.process import SubprocessBot

    return SubprocessBot(
        spec.name,
        spec.bot_command(),
        cwd=spec.cwd,
        params=spec.params,
        limits=limits,
        bot_paths=spec.bot_paths,
        python=spec.kind == "python",
        reuse=spec.reuse,
        protocols=VERSIONS,
        declared=spec.declared,
    )


def _human(spec: "BotSpec", limits: Limits) -> BotHandle:
    """A person at this terminal: its own limit (``human:seconds=N``), or none."""
    from mallows.agents.human import HumanSeat

    return HumanSeat(spec.name, **spec.params)


RUNTIMES: dict[str, Runtime] = {
    "in-process": _in_process,
    "process": _process,
    "human": _human,
}


def runtime_of(spec: "BotSpec") -> str:
    """The runtime ``spec`` runs in: a person's seat, its own process, or this process."""
    if spec.kind == "human":
        return "human"
    return "process" if spec.isolated else "in-process"
