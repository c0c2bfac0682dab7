"""Help text shown as written: the app's root group class, which makes every command's and
option's help plain text before Typer renders it with Rich.

Typer parses help strings as Rich markup, so ``[limits]`` in a help text vanished (read as a
style tag); it keeps single line breaks of a docstring's first paragraph in the command list,
so a description wrapped in the source was cut mid-sentence there; and it shows every
parameter's Python type as its metavar: ``<bool>`` beside a flag (which takes no value) and
``<list[str]>`` beside a repeatable option (which takes one value each time). ``PlainHelpGroup``
fixes all three once, for the whole command tree, when Typer builds it.
"""

from __future__ import annotations

import re
from typing import Any

from rich.markup import escape
from typer.core import TyperGroup


def _plain(text: str | None) -> str | None:
    """``text`` with Rich markup escaped and each paragraph on one line."""
    if not text:
        return text
    paragraphs = re.split(r"\n\s*\n", text.strip())
    return "\n\n".join(
        escape(" ".join(line.strip() for line in p.splitlines())) for p in paragraphs
    )


def _metavar(param: Any, ctx: Any) -> None:
    if getattr(param, "is_flag", False) and not getattr(param, "metavar", None):
        param.metavar = ""  # a flag takes no value: no type beside it
        return
    if getattr(param, "multiple", False) and param.metavar is None:
        shown = getattr(param, "display_type", None)
        label = shown(ctx) if callable(shown) else None
        if isinstance(label, str) and "list[" in label:
            # one value per use, the option repeated: the element's type
            param.metavar = re.sub(r"list\[(.*)\]", r"\1", label)


def plain_help(command: Any) -> None:
    """Make the help of ``command`` (a Typer command or group) and of everything under it
    plain text (idempotent)."""
    ctx = command.context_class(command, info_name=command.name)  # Typer's own click
    command.help = _plain(command.help)
    command.short_help = _plain(command.short_help)
    params = list(command.params)
    help_option = command.get_help_option(ctx)
    if help_option is not None:
        params.append(help_option)
    for param in params:
        if getattr(param, "help", None):
            param.help = _plain(param.help)
        _metavar(param, ctx)
    for sub in getattr(command, "commands", {}).values():
        plain_help(sub)


class PlainHelpGroup(TyperGroup):
    """The root group: plain help text for the whole tree (see the module's docstring)."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        plain_help(self)
