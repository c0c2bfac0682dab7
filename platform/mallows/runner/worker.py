"""The worker side of execution: what one match needs (``Job``), what comes back (``Outcome``),
and playing jobs, in this process or in a Ray worker (``mallows.runner.cluster`` sends
``play_stream`` to its workers, or ``play_batch`` through Ray Client).

Workers load bots by name through ``mallows.agents.registry.load_bot`` (once per name and
code: ``_spec``) and play with ``mallows.runner.match.play_match``; a match that raises
(an engine bug, a bot that cannot be loaded on the worker) comes back as an ``Outcome`` with
``error`` set, never as a lost batch. Bot processes that opt in are reused within a batch
(``agents.pool``), each batch on the CPU its executor assigned it from the run's own CPUs
(``agents.affinity.assign``; in-process, the CPU it runs on).
"""

from __future__ import annotations

import collections
import contextlib
import json
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Iterable, Iterator, Sequence

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.roster import Roster

FLUSH_SECONDS = 0.5  # a running task hands back what it has finished at least this often


@dataclass(frozen=True)
class Job:
    """One match to play. ``seats``: the shown names by seat; ``roster``: how those names
    load (the run's pins, one value shared by every job of a run); ``limits``: checked once,
    when the run was planned."""

    index: int
    game: str
    options: dict
    seed: int
    seats: tuple[str, ...]
    limits: Limits = field(default_factory=Limits)
    roster: Roster = field(default_factory=Roster)
    chance: seeding.Chance = seeding.UNKEYED  # the bots' and fallback's seeds (with its key)


@dataclass
class Outcome:
    """One played match. The record travels as JSON text made in the worker (cheap to ship
    and stored as is), with the few fields the coordinator needs beside it."""

    index: int
    record_json: str | None
    players: list | None
    ranks: list | None
    forfeits: int
    seconds: float
    error: str | None = None
    attempts: int = 1

    @property
    def record(self) -> dict | None:
        return None if self.record_json is None else json.loads(self.record_json)


_SPECS: dict = {}


def _spec(name: str, roster: Roster) -> Any:
    """The resolved bot ``name`` of a job, by its roster (cached: a shown name with its code)."""
    from mallows.agents.registry import Resolver

    key = (name, roster.get(name))
    spec = _SPECS.get(key)
    if spec is None:
        spec = _SPECS[key] = Resolver(roster=roster).load(name)
    return spec


def play_job(job: Job, pool: Any = None) -> Outcome:
    """Play one job. ``pool`` (a ``mallows.agents.pool.BotPool``): bot processes that opted in
    play several matches of the batch, never two rotations of one deal."""
    from mallows.runner.match import forfeit_count, play_match

    t0 = time.perf_counter()
    try:
        limits = job.limits
        specs = [_spec(name, job.roster) for name in job.seats]
        deal = (job.game, job.seed)  # every rotation of a duplicate deal has the same seed
        spares = len(specs) - 1  # the other rotations of the deal need a process each
        handles = [
            pool.handle(s, limits, deal, spares) if pool is not None else s.handle(limits)
            for s in specs
        ]
        record = play_match(
            job.game,
            job.options,
            job.seed,
            handles,
            names=list(job.seats),
            chance=job.chance,
            hide_names=limits.names == "hidden",
        )
        result = record["result"]
        return Outcome(
            job.index,
            json.dumps(record, separators=(",", ":")),
            list(record["players"]),
            list(result["ranks"]),
            forfeit_count(record),
            time.perf_counter() - t0,
        )
    except Exception as exc:  # reported to the caller with the match it belongs to
        tail = "".join(traceback.format_exception(exc)[-6:]).strip()
        return Outcome(
            job.index,
            None,
            None,
            None,
            0,
            time.perf_counter() - t0,
            error=f"{type(exc).__name__}: {exc}\n{tail}",
        )


@contextlib.contextmanager
def worker_pool(cpus: frozenset | None = None) -> Iterator[Any]:
    """The bot processes of one batch (``agents.pool``; those that opted in to reuse end with
    it), with the worker on ``cpus`` (its executor's assignment, ``agents.affinity.assign``;
    None: the CPU it runs on): each match and its bots' processes on that CPU."""
    from mallows.agents import affinity
    from mallows.agents.pool import BotPool

    with BotPool() as pool, affinity.pinned(cpus):
        yield pool


#: Jobs a worker looks ahead: a bot whose first match is this near gets its processes started
#: (``BotPool.expect``), so they start while earlier matches play rather than when it sits down.
LOOKAHEAD = 8


def ahead(jobs: Iterable[Job], pool: Any, window: int = LOOKAHEAD) -> Iterator[Job]:
    """``jobs`` in their order, the ``window`` after each one told to ``pool`` first (read
    from ``jobs`` that far ahead: a job read and not played, when the caller stops, was only
    planned)."""
    upcoming: collections.deque = collections.deque()
    source = iter(jobs)

    def read() -> None:
        while len(upcoming) <= window:
            job = next(source, None)
            if job is None:
                return
            upcoming.append(job)
            try:
                for name in job.seats:
                    pool.expect(_spec(name, job.roster), job.limits, len(job.seats) - 1)
            except Exception:
                pass  # a bot that cannot be loaded: its match reports it

    read()
    while upcoming:
        yield upcoming.popleft()
        read()


def play_batch(jobs: Sequence[Job], cpus: frozenset | None = None) -> list[Outcome]:
    """Play a batch on ``cpus`` (``worker_pool``) and hand back all its outcomes at once (Ray
    Client, which has no streaming generators); the bot processes that opted in to reuse end
    with it."""
    with worker_pool(cpus) as pool:
        return [play_job(job, pool) for job in ahead(jobs, pool)]


def play_stream(
    jobs: Sequence[Job], flush_seconds: float = FLUSH_SECONDS, cpus: frozenset | None = None
) -> Iterator[list[Outcome]]:
    """Play ``jobs`` in order on ``cpus`` (``worker_pool``), handing back the finished outcomes whenever ``flush_seconds``
    have passed (and at the end): the coordinator counts matches as they finish, while a
    batch of quick matches still costs one Ray object per ``flush_seconds``, not per match."""
    done: list[Outcome] = []
    last = time.monotonic()
    with worker_pool(cpus) as pool:  # the processes end with the task
        for job in ahead(jobs, pool):
            done.append(play_job(job, pool))
            if time.monotonic() - last >= flush_seconds:
                yield done
                done, last = [], time.monotonic()
    if done:
        yield done
