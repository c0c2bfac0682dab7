"""Execution: matches in, records out, through one interface with two executors.

``Executor.run_batches(jobs)`` takes ``Job``s (``mallows.runner.worker``: everything a
worker needs to play one match: game, effective options, seed, bot names by seat, limits; a
lazy iterator is read only as far as there is room) and yields the ``Outcome``s as they arrive,
grouped as they arrived together, in no particular order; ``run(jobs)`` yields them one by one.
Callers that need an order (ratings) use ``Outcome.index``.

- ``InProcessExecutor`` (``--workers 1``): plays the jobs one after another in this process.
- ``mallows.runner.cluster.RayExecutor``: ``--workers N > 1`` starts a local Ray with N
  CPUs; ``address=`` joins an existing cluster (the only module that imports Ray).

``make_executor`` picks one from ``--workers`` and ``--address``.
"""

from __future__ import annotations

import os
from typing import Iterable, Iterator, Sequence

from mallows.errors import ExecutorError, MallowsError
from mallows.runner.worker import Job, Outcome, ahead, play_job, worker_pool

__all__ = ["Executor", "ExecutorError", "InProcessExecutor", "Job", "Outcome", "make_executor"]


class Executor:
    """Run jobs, yield outcomes as they finish. Use as a context manager (``close``)."""

    kind = "abstract"
    workers = 1

    def run(self, jobs: Iterable[Job], expected: int | None = None) -> Iterator[Outcome]:
        for outcomes in self.run_batches(jobs, expected):
            yield from outcomes

    def run_batches(
        self, jobs: Iterable[Job], expected: int | None = None
    ) -> Iterator[list[Outcome]]:
        """Outcomes as they arrive, grouped as they arrived together (a caller stores each
        group in one transaction). ``jobs`` may be a lazy iterator; it is read only as far as
        the executor has room for (``expected``: how many it will yield, if known)."""
        raise NotImplementedError

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"{self.kind}, {self.workers} worker{'s' if self.workers != 1 else ''}"

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class InProcessExecutor(Executor):
    kind = "in-process"

    def __init__(self) -> None:
        self.workers = 1

    def run_batches(
        self, jobs: Iterable[Job], expected: int | None = None
    ) -> Iterator[list[Outcome]]:
        with worker_pool() as pool:  # the whole run is this executor's one batch
            for job in ahead(jobs, pool):
                yield [play_job(job, pool)]  # each match arrives alone: stored before the next


def cluster_address(address: str | None = None) -> str | None:
    """The cluster a run joins: ``address``, else ``$RAY_ADDRESS``, else None (no cluster)."""
    return address or os.environ.get("RAY_ADDRESS") or None


#: The most workers a run may ask for: more than any machine or cluster here has CPUs (Ray
#: itself refuses a resource count above 1e14, as a platform error).
MAX_WORKERS = 4096


def check_executor_options(workers: int | None, address: str | None) -> None:
    """Refuse ``--workers`` and ``--address`` values no run could use, before anything starts
    (and when nothing is left to play too): ``workers`` below 1 or above ``MAX_WORKERS``, an
    ``address`` that is empty or not ``HOST:PORT`` (``ray://HOST:PORT``, ``auto``)."""
    if workers is not None and not 1 <= workers <= MAX_WORKERS:
        raise MallowsError(
            f"--workers must be 1 to {MAX_WORKERS}, got {workers}: use --workers 1 to run in "
            f"this process, or the number of CPUs to use"
        )
    if address is not None:
        check_address_form(address)


def check_address_form(address: str) -> None:
    """A ``ClusterError`` unless ``address`` reads as a cluster's address: ``HOST:PORT`` (a
    port 1 to 65535, ``ray://`` allowed before it), ``auto`` or ``local``; nothing is
    contacted."""
    from mallows.errors import ClusterError

    if address.strip().lower() in ("auto", "local"):
        return
    target = address.split("://", 1)[-1]
    host, sep, port = target.rpartition(":")
    if (
        not sep
        or not port.isdigit()
        or not 0 < int(port) < 65536
        or not host.strip("[]")
        or any(c.isspace() or not c.isprintable() for c in address)
    ):
        raise ClusterError(
            f"--address {address[:80]!r} is not HOST:PORT: give the head's address "
            f"as `ray start --head` printed it, for example 10.0.0.5:6379"
        )


def make_executor(
    workers: int | None = None,
    address: str | None = None,
    batch_size: int | None = None,
    snapshots: Sequence[str] = (),
) -> Executor:
    """``address`` (or ``RAY_ADDRESS``) joins a cluster; else ``workers`` (default: CPU count)
    above 1 starts a local Ray, and 1 runs in this process. ``batch_size``: matches per Ray
    task (default: automatic). ``snapshots``: the digests of the pinned snapshots a joined
    cluster is shipped (``Plan.roster.snapshots()``)."""
    address = cluster_address(address)
    check_executor_options(workers, address)
    if address:
        from mallows.runner.cluster import RayExecutor, check_reachable

        check_reachable(address)
        return RayExecutor(workers, address=address, batch_size=batch_size, snapshots=snapshots)
    workers = workers or os.cpu_count() or 1
    if workers == 1:
        return InProcessExecutor()
    from mallows.runner.cluster import RayExecutor

    return RayExecutor(workers, batch_size=batch_size)
