"""``BotName``: the one value type of a bot's name, parsed and formatted here and nowhere else.

A bot name is ``BASE[@N][:key=value,key2=value2]``:

- ``BASE``: a name in ``bots/``, an entry point, a shown name (``mybot``, ``mybot~2``), or a
  path (``./mybot.py``, ``bots/example_node``, ``~/bots/x/bot.toml``: see ``is_path``);
- ``@N``: a submitted version (``mybot@3``); a path never has one;
- the parameters, as strings, for the bot's constructor (or a subprocess bot's hello).

``BotName.parse(text)`` refuses what cannot be a name (``BotError``); ``str(name)`` writes it
back, parameters in the order given; ``name.canonical()`` sorts them (how shown names are
written). ``short(text)`` is how a name is shown: a path by its file or folder base name.

On the ground floor (it imports only ``mallows.errors``), so every room, the report included,
reads names the same way.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import PurePath
from typing import Mapping

from mallows.errors import BotError

VERSION_RE = re.compile(r"^(?P<name>[^@:/]+)@(?P<version>[0-9]+)$")
PATH_SUFFIXES = (".py", ".toml")


def is_path(base: str) -> bool:
    """Whether ``base`` names a file or folder: it contains ``/`` (or the system's separator),
    starts with ``.`` or ``~``, or ends with ``.py`` or ``.toml``. Such a name always means
    that file or folder, never a submission or a bot of the registry."""
    return (
        "/" in base or os.sep in base or base.startswith((".", "~")) or base.endswith(PATH_SUFFIXES)
    )


@dataclass(frozen=True)
class BotName:
    base: str  # without @N and parameters
    version: int | None = None  # a submitted version, NAME@N
    params: tuple[tuple[str, str | None], ...] = ()  # as given (``canonical`` sorts them);
    # None: a part read leniently that is not key=value

    @classmethod
    def parse(cls, text: str, strict: bool = True) -> "BotName":
        """``"ismcts:budget=0.5,seed=3"`` -> ``BotName("ismcts", None, (("budget", "0.5"),
        ("seed", "3")))``. ``strict``: a parameter that is not ``key=value``, or no name before
        the parameters, is a ``BotError`` naming the fix; otherwise (reading stored names) such
        a part is kept as it is."""
        head, _, rest = text.partition(":")
        params: list[tuple[str, str | None]] = []
        for part in filter(None, (p.strip() for p in rest.split(","))):
            key, sep, value = part.partition("=")
            if not sep or not key.strip().isidentifier():
                if strict:
                    raise BotError(
                        f"bot {text!r}: parameter {part!r} is not key=value. "
                        f"Parameters follow the name after a colon, separated by "
                        f"commas, for example ismcts:budget=0.5,seed=3"
                    )
                params.append((part, None))
                continue
            params.append((key.strip(), value.strip()))
        head = head.strip()
        if not head and strict:
            raise BotError(f"bot {text!r} has no name before its parameters")
        version = None
        m = None if is_path(head) else VERSION_RE.match(head)
        if m is not None:
            head, version = m["name"], int(m["version"])
        return cls(head, version, tuple(params))

    @property
    def plain(self) -> str:
        """``BASE[@N]``: the name without its parameters."""
        return self.base if self.version is None else f"{self.base}@{self.version}"

    @property
    def param_dict(self) -> dict[str, str]:
        return {k: v for k, v in self.params if v is not None}

    @property
    def is_path(self) -> bool:
        return self.version is None and is_path(self.base)

    def with_params(self, params: Mapping[str, object]) -> "BotName":
        return replace(self, params=tuple((k, str(v)) for k, v in params.items()))

    def with_base(self, base: str, version: int | None = None) -> "BotName":
        return replace(self, base=base, version=version)

    def canonical(self) -> "BotName":
        """The parameters sorted by key (two spellings of one bot, one name)."""
        return replace(self, params=tuple(sorted(self.params, key=lambda kv: kv[0])))

    def short(self) -> "BotName":
        """A path shown as its file or folder base name (``.py`` dropped)."""
        if not self.is_path:
            return self
        base = PurePath(self.base.replace("\\", "/")).name or self.base
        if base == "bot.toml":
            base = PurePath(self.base.replace("\\", "/")).parent.name or base
        for suffix in PATH_SUFFIXES:
            if base.endswith(suffix) and len(base) > len(suffix):
                base = base[: -len(suffix)]
        return replace(self, base=base)

    def __str__(self) -> str:
        text = self.plain
        if self.params:
            text += ":" + ",".join(k if v is None else f"{k}={v}" for k, v in self.params)
        return text


def is_person(name: str) -> bool:
    """Whether the seat named ``name`` was a person's (``human``, ``human:seconds=N``: the play
    page, a human league, ``mallows play``), not a bot's: a game's bot boards leave them out."""
    return name == "human" or name.startswith("human:")


@lru_cache(maxsize=8192)  # a page shows the same few names over and over
def short(text: str) -> str:
    """How the name ``text`` is shown: a path by its base name, plus its parameters."""
    return str(BotName.parse(text, strict=False).short())


def parse_version(base: str) -> tuple[str, int] | None:
    """``"mybot@3"`` -> ``("mybot", 3)``; None for a name without ``@N``."""
    name = BotName.parse(base, strict=False)
    return (name.base, name.version) if name.version is not None else None
