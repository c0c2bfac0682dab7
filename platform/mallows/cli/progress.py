"""Progress of a tournament run: the rate and ETA from the measured rate, and a plain line
every few seconds for output that is not a terminal (a log, a pipe, CI), where a live bar would
print nothing until the end.

The ETA is ``remaining / rate``, with the rate measured over this run (matches stored by this
run over the time since it started, start-up included), shown once 10 matches and 2% of the run
are in, never extrapolated from the first result or one burst.
"""

from __future__ import annotations

import sys
import time
from typing import Callable, TextIO


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
        return (f"{name}: {self.done}/{self.total} matches ({share:.0%}), "
                + (f"{rate:.1f} matches/s, ETA "
                   + (eta_text(self.eta()) if self.eta() is not None else "(measuring)")
                   if rate else "waiting for the first result")
                + f", leader {leader}")


class PlainProgress:
    """Prints ``Meter.line`` at most every ``interval`` seconds, and once at the end."""

    def __init__(self, name: str, meter: Meter, stream: TextIO | None = None,
                 interval: float = 5.0):
        self.name, self.meter, self.interval = name, meter, interval
        self.stream = stream or sys.stderr
        self.last: float | None = None  # the first result prints at once: the run is alive

    def update(self, leader: Callable[[], str], force: bool = False) -> None:
        now = self.meter.clock()
        if force or self.last is None or now - self.last >= self.interval:
            self.last = now
            print(self.meter.line(self.name, leader()), file=self.stream, flush=True)
