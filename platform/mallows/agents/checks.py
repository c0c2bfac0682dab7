"""Checks on bots made before anything runs: one spelling per bot, and a bot that can be built
with its parameters and plays the game. (Limits are checked by ``protocol.Limits.from_dict``.)

- ``canonical_name(name)``: the one spelling of a bot name. Spaces around the name, its
  parameters and their values are dropped; a path to a shipped bot in the project's ``bots/``
  is that bot's plain name; numeric parameter values are written the shortest way (``0.10`` ->
  ``0.1``, ``1.0`` -> ``1``); parameters are sorted by key; an empty parameter list is dropped
  (``random:`` -> ``random``). Two names with one canonical form are one bot.
- ``ready(spec, game)``: build an in-process bot once with its parameters, or ask an isolated
  bot for its hello; then check that it plays ``game``. A ``BotError`` names the fix.

Used by tournament files (``mallows.tournaments.roundrobin.spec``), ``mallows play`` and ``bots
check``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from mallows.agents.protocol import Limits
from mallows.botname import BotName
from mallows.errors import BotError
from mallows.safetext import control_characters, escape

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec

MAX_NAME = 1000  # characters in a bot name, parameters included
MAX_COMPONENT = 255  # characters in one part of a path (the file system's limit)


def _number_text(value: str) -> str:
    try:
        x = float(value)
    except ValueError:
        return value
    if not math.isfinite(x) or value.strip().lower().startswith(("0x", "0o", "0b")):
        return value
    if x.is_integer() and abs(x) < 1e16:
        return str(int(x))
    return repr(x)


def canonical_name(name: str) -> str:
    """The one spelling of bot ``name`` (see the module docstring); ``BotError`` when the name
    cannot name a bot (too long, no name before the parameters, a parameter not key=value)."""
    from mallows.agents.registry import SHIPPED, project_bots_dir

    if not isinstance(name, str) or not name.strip():
        raise BotError(f"bot name {name!r} is empty: give a bot such as random or greedy")
    if "\0" in name:
        raise BotError(
            f"bot name {name[:60]!r} holds a NUL character (\\x00), which no name "
            f"or path can: remove it"
        )
    if len(name) > MAX_NAME:
        raise BotError(
            f"bot name {name[:60]!r}... is {len(name)} characters long: a bot name "
            f"with its parameters has at most {MAX_NAME}"
        )
    if control_characters(name):  # NUL, newline, ESC...: no file or bot has such a name
        raise BotError(
            f"bot name {escape(name[:80])!r} holds the control character(s) "
            f"{', '.join(control_characters(name))}: a bot name is plain text, "
            f"such as random, bots/mybot.py or mybot:depth=3"
        )
    parsed = BotName.parse(name)
    base = parsed.plain
    for part in base.split("/"):
        if len(part.encode("utf-8", "surrogatepass")) > MAX_COMPONENT:
            raise BotError(
                f"bot name {name[:60]!r}... has a part longer than "
                f"{MAX_COMPONENT} characters, more than a file name can be: give "
                f"a bot in bots/ or a path to one"
            )
    if "/" in base or base.endswith(".py"):
        path: Path | None
        shipped: Path | None
        try:
            path = Path(base).expanduser().resolve()
            shipped = project_bots_dir().resolve()
        except (OSError, RuntimeError):
            path = shipped = None
        if (
            path is not None
            and path.parent == shipped
            and path.suffix == ".py"
            and path.stem in SHIPPED
        ):
            base = path.stem
    canon = parsed.with_base(base) if base != parsed.plain else parsed
    return str(
        canon.with_params({k: _number_text(v) for k, v in parsed.param_dict.items()}).canonical()
    )


def ready(
    spec: BotSpec, game: str | None = None, sandbox: str = "on", timeout: float = 10.0
) -> None:
    """Build ``spec``'s bot once with its parameters (in-process) or ask for its hello
    (isolated, in its sandbox unless ``sandbox`` is ``"off"``), then check that it plays
    ``game``: a ``BotError`` if not."""
    if spec.isolated:
        spec.describe(timeout=timeout, sandbox=sandbox)  # it checks its parameters in its hello
    else:
        handle = spec.handle(Limits())  # constructs it: a bad parameter is a BotError
        close = getattr(handle, "close", None)
        if callable(close):
            close()
    if game is not None and spec.games and game not in spec.games:
        raise BotError(
            f"bot {spec.name!r} plays {', '.join(spec.games)}, not {game}: choose "
            f"a bot that plays {game} (mallows bots list shows which games each "
            f"bot plays)"
        )
