"""The machine's own parallel capacity, printed beside any parallel figure: how much CPU-bound
work two processes get done at once, against one process alone (2.00x = two free cores)."""

from __future__ import annotations

import multiprocessing as mp
import os
import time

SECONDS = 1.5


def _spin(seconds: float, out) -> None:
    n, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        for _ in range(1000):
            n += 1
    out.put(n)


def _run(processes: int) -> int:
    q: mp.Queue = mp.Queue()
    ps = [mp.Process(target=_spin, args=(SECONDS, q)) for _ in range(processes)]
    for p in ps:
        p.start()
    total = sum(q.get() for _ in ps)
    for p in ps:
        p.join()
    return total


def capacity() -> str:
    """'capacity: 2 CPU-bound processes do 1.62x the work of 1 (load average 3.1)'."""
    one = _run(1)
    two = _run(2)
    return (
        f"machine capacity: 2 CPU-bound processes do {two / one:.2f}x the work of 1 "
        f"({os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    print(capacity())
