"""Progress of a tournament run: the rate and ETA from the measured rate, and a plain line
every few seconds for output that is not a terminal (a log, a pipe, CI), where a live bar would
print nothing until the end, and a last one when the run is done.

On a terminal, ``FittedProgress`` draws one line per run fitted to the terminal's width
(``fit_line``): the count of matches is always shown whole; then, as room allows, the ETA, the
rate, the name, the leader (cut with an ellipsis) and a bar in what is left. Rich's own table
shrank every column alike and so cut the count first (``125…`` at 80 columns).

The ETA is ``remaining / rate``, with the rate measured over this run (matches stored by this
run over the time since it started, start-up included), shown once 10 matches and 2% of the run
are in, never extrapolated from the first result or one burst.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, Iterable, TextIO

from rich.console import RenderableType
from rich.progress import Progress
from rich.text import Text


def eta_text(seconds: float | None) -> str:
    if seconds is None:
        return "-:--:--"
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


class Meter:
    """Counts stored matches and says how fast they come and when the rest will be done."""

    def __init__(self, total: int, already: int, clock: Callable[[], float] = time.perf_counter):
        self.total, self.done, self.played = total, already, 0
        self.clock = clock
        self.t0 = clock()

    def add(self, n: int = 1) -> None:
        self.done += n
        self.played += n

    def rate(self) -> float | None:
        elapsed = self.clock() - self.t0
        return self.played / elapsed if self.played and elapsed > 0 else None

    def eta(self) -> float | None:
        """Seconds left, or None until enough is measured: 10 matches and 2% of this run."""
        rate = self.rate()
        if not rate or self.played < max(10, 0.02 * (self.total - self.done + self.played)):
            return None
        return (self.total - self.done) / rate

    def line(self, name: str, leader: str) -> str:
        rate = self.rate()
        share = self.done / self.total if self.total else 1.0
        return (
            f"{name}: {self.done}/{self.total} matches ({share:.0%}), "
            + (
                f"{rate:.1f} matches/s, ETA "
                + (eta_text(self.eta()) if self.eta() is not None else "(measuring)")
                if rate
                else "waiting for the first result"
            )
            + f", leader {leader}"
        )


class PlainProgress:
    """Prints ``Meter.line`` at most every ``interval`` seconds, and once at the end."""

    def __init__(
        self, name: str, meter: Meter, stream: TextIO | None = None, interval: float = 5.0
    ):
        self.name, self.meter, self.interval = name, meter, interval
        self.stream = stream or sys.stderr
        self.last: float | None = None  # the first result prints at once: the run is alive
        self.printed: int | None = None  # the count the last line printed said

    def update(self, leader: Callable[[], str], force: bool = False) -> None:
        now = self.meter.clock()
        if force or self.last is None or now - self.last >= self.interval:
            self.last = now
            self.printed = self.meter.done
            print(self.meter.line(self.name, leader()), file=self.stream, flush=True)

    def finish(self, leader: Callable[[], str]) -> None:
        """The last line, unless the last one printed already said it (a short run would
        otherwise end on its first line: ``1/800 matches ... ETA (measuring)``)."""
        if self.printed != self.meter.done:
            self.update(leader, force=True)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else (text[: max(0, width - 1)] + "…" if width > 0 else "")


def fit_line(
    width: int, name: str, done: int, total: int, rate: str, eta: str, leader: str
) -> Text:
    """One progress line in ``width`` columns: ``name ━━━━╺━━━ done/total rate ETA eta
    leader: x``. The count is never cut; the ETA, the rate, the name (at least 8 columns), the
    leader (at least 12) and the bar (at least 6, at most 40) come in that order of priority,
    each only if it fits whole (name and leader cut with an ellipsis)."""
    count = f"{done}/{total}"
    parts = {"count": count}
    room = width - len(count)
    for key, text in (("eta", f"ETA {eta}"), ("rate", rate)):
        if text and len(text) + 1 <= room:
            parts[key] = text
            room -= len(text) + 1
    if room >= 9:
        parts["name"] = _cut(name, room - 1)
        room -= len(parts["name"]) + 1
    if leader and room >= 13:
        parts["leader"] = _cut(f"leader: {leader}", room - 1)
        room -= len(parts["leader"]) + 1
    bar = min(40, room - 1)
    line = Text(no_wrap=True, overflow="crop")
    if "name" in parts:
        line.append(parts["name"] + " ", style="bold")
    if bar >= 6:
        full = bar * done // total if total else bar
        line.append("━" * full, style="bar.finished" if done >= total else "bar.complete")
        line.append("━" * (bar - full), style="bar.back")
        line.append(" ")
    line.append(count, style="progress.download")
    for key in ("rate", "eta", "leader"):
        if key in parts:
            line.append(" " + parts[key])
    return line


class FittedProgress(Progress):
    """Rich's live progress with each task drawn by ``fit_line`` at the console's width (the
    task's fields ``rate``, ``eta`` and ``leader``)."""

    def get_renderables(self) -> Iterable[RenderableType]:
        live = getattr(self, "live", None)  # not yet set while Rich's Live starts up
        if live is None:
            return
        width = live.console.width
        for task in self.tasks:
            if task.visible:
                yield fit_line(
                    width - 1,
                    task.description,
                    int(task.completed),
                    int(task.total or 0),
                    task.fields.get("rate", ""),
                    task.fields.get("eta", "-:--:--"),
                    task.fields.get("leader", ""),
                )
