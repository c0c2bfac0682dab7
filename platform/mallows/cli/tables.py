"""Tables in the terminal that never cut a number.

``print_table`` draws a rich table in a terminal wide enough for it, and otherwise (a pipe, a
log, a narrow terminal) a plain layout: columns separated by two spaces, numbers right-aligned,
nothing truncated (a row longer than the screen wraps, it is never shortened). Rich on its own
would squeeze a wide table into 80 columns and cut every number to ``2…``.
"""

from __future__ import annotations

from typing import Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mallows.safetext import escape


def _plain(title: str | None, headers: Sequence[str], rows: Sequence[Sequence[str]],
           right: Sequence[bool], caption: str | None) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells) -> str:
        return "  ".join(c.rjust(w) if r else c.ljust(w)
                         for c, w, r in zip(cells, widths, right)).rstrip()

    out = [title] if title else []
    out += [line(headers), line("-" * w for w in widths)]
    out += [line(r) for r in rows]
    if caption:
        out.append(caption)
    return "\n".join(out) + "\n"


def print_table(title: str | None, headers: Sequence[str], rows: Sequence[Sequence],
                right: Sequence[bool] | None = None, caption: str | None = None,
                console: Console | None = None) -> None:
    """Print a table: rich in a terminal it fits, the plain layout otherwise. ``right`` says
    which columns are numbers (right-aligned; default: all but the first)."""
    console = console or Console()
    # cells hold bots' names and reasons: their control characters are shown, never obeyed
    cells = [[escape(c) for c in r] for r in rows]
    title = escape(title) if title is not None else None
    right = list(right) if right is not None else [False] + [True] * (len(headers) - 1)
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    needed = sum(widths) + 3 * len(widths) + 1  # rich's borders and padding
    if not console.is_terminal or needed > console.width:
        console.file.write(_plain(title, headers, cells, right, caption))
        console.file.flush()
        return
    table = Table(title=Text(title) if title else None, caption=caption, box=box.SIMPLE_HEAD)
    for h, w, r in zip(headers, widths, right):
        table.add_column(h, justify="right" if r else "left", no_wrap=True, min_width=w)
    for row in cells:
        table.add_row(*(Text(c) for c in row))  # text, not rich markup
    console.print(table)
