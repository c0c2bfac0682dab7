"""Tables in the terminal that never cut a number.

``print_table`` draws a rich table in a terminal wide enough for it, and otherwise (a pipe, a
log, a narrow terminal) a plain layout: columns separated by two spaces, numbers right-aligned,
nothing truncated. Rich on its own would squeeze a wide table into 80 columns and cut every
number to ``2…``. In a terminal, or wherever ``COLUMNS`` is set, the plain layout keeps to that
width: a table wider than it is printed in blocks of columns, one under the other, each
repeating the columns that name the row (those up to the first left-aligned one: ``rank bot``),
as R and pandas print a wide table. Only a row whose naming columns alone are wider still wraps.
"""

from __future__ import annotations

import os
import textwrap
from typing import Iterable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from mallows.safetext import escape


def _blocks(widths: Sequence[int], keys: int, limit: int | None) -> list[list[int]]:
    """Column indexes per block: every block starts with the ``keys`` naming columns and adds
    the others in order while the line stays within ``limit`` (at least one per block)."""
    everything = list(range(len(widths)))
    if limit is None or sum(widths) + 2 * (len(widths) - 1) <= limit:
        return [everything]
    base = list(range(keys))
    blocks, block = [], list(base)
    used = sum(widths[i] for i in base) + 2 * max(0, keys - 1)
    for i in everything[keys:]:
        extra = widths[i] + (2 if block else 0)
        if len(block) > keys and used + extra > limit:
            blocks.append(block)
            block, used = list(base), sum(widths[j] for j in base) + 2 * max(0, keys - 1)
            extra = widths[i] + (2 if block else 0)
        block.append(i)
        used += extra
    blocks.append(block)
    return blocks


def _naming_columns(right: Sequence[bool]) -> int:
    """How many leading columns name a row: up to and including the first left-aligned one."""
    for i, r in enumerate(right):
        if not r:
            return i + 1
    return 1


def _plain(
    title: str | None,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool],
    caption: str | None,
    limit: int | None = None,
) -> str:
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str], columns: Iterable[int]) -> str:
        return "  ".join(
            cells[i].rjust(widths[i]) if right[i] else cells[i].ljust(widths[i]) for i in columns
        ).rstrip()

    out = [title] if title else []
    for n, columns in enumerate(_blocks(widths, _naming_columns(right), limit)):
        if n:
            out.append("")
        out += [line(headers, columns), line(["-" * w for w in widths], columns)]
        out += [line(r, columns) for r in rows]
    if caption:
        out += textwrap.wrap(caption, limit) if limit else [caption]
    return "\n".join(out) + "\n"


def print_table(
    title: str | None,
    headers: Sequence[str],
    rows: Sequence[Sequence],
    right: Sequence[bool] | None = None,
    caption: str | None = None,
    console: Console | None = None,
) -> None:
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
        # a terminal's width, or COLUMNS where it is set; a pipe without it: no limit
        limit = (
            console.width
            if console.is_terminal or os.environ.get("COLUMNS", "").isdigit()
            else None
        )
        console.file.write(_plain(title, headers, cells, right, caption, limit))
        console.file.flush()
        return
    table = Table(title=Text(title) if title else None, caption=caption, box=box.SIMPLE_HEAD)
    for h, w, r in zip(headers, widths, right):
        table.add_column(h, justify="right" if r else "left", no_wrap=True, min_width=w)
    for row in cells:
        table.add_row(*(Text(c) for c in row))  # text, not rich markup
    console.print(table)
