"""Bot processes that play many matches: the pool of one batch of matches.

Starting a sandboxed bot costs a process (and an interpreter) per seat of every match; a bot that
opts in (its hello says ``"reuse": true``, or its manifest ``reuse = true``; every Python bot
hosted by ``mallows.agents.host`` does, with a fresh ``Bot`` per match) keeps its process from
one match to the next: the platform sends the next ``start`` instead of ``quit``.

``BotPool.handle(spec, limits, deal)`` is the handle for one seat of one match. For an isolated
bot it is a lease on a process of that bot (same name, parameters and limits) that is idle and
has never seen ``deal`` (the rotations of a duplicate deal share it: a process that saw one
rotation could remember the others' cards), or a new process. A process is never leased twice
at once, so the seats of one match never share one. When the match closes the handle, a process
that opted in and is healthy goes back to the pool; any other one is closed. ``close()`` ends
every process of the pool (its batch is over), and with each process its private ``/tmp``.
In-process (trusted) bots are not pooled: a fresh object per match, as before.
"""

from __future__ import annotations

import collections
import os
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, Hashable

from mallows.agents import affinity
from mallows.agents.isolation import raise_descriptor_limit
from mallows.agents.protocol import BotHandle, Limits

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec

MAX_IDLE = 8  # idle processes kept per bot; the oldest beyond that are closed


class _SpawnThread:
    """One thread that starts bot processes in the background, and lives as long as its pool:
    a process started with ``--die-with-parent`` (the sandbox) is killed when the thread that
    started it ends, so a thread per process would kill it. Seats about to play go before
    spares. The caller's side takes no lock a ``KeyboardInterrupt`` could leave held (an
    interrupt lands wherever the caller is, and ``BotPool.close`` must work after it): jobs go
    into deques, the thread is woken through a ``queue.SimpleQueue`` (one C call each), and a
    started process is announced by a flag on the bot."""

    def __init__(self) -> None:
        self._now: collections.deque = collections.deque()  # seats about to play
        self._later: collections.deque = collections.deque()  # spares
        self._wake: queue.SimpleQueue = queue.SimpleQueue()  # one token per job, or a stop
        self._thread = threading.Thread(target=self._work, name="mallows-spawner", daemon=True)
        self._thread.start()

    def start(self, bot: Any, cpus: frozenset, spare: bool = False) -> None:
        """Start ``bot``'s process on ``cpus`` (before every spare still waiting, unless it is
        a spare itself)."""
        bot.spawned = False
        (self._later if spare else self._now).append((bot, cpus))
        self._wake.put(True)

    def _work(self) -> None:
        while self._wake.get():
            bot, cpus = (self._now or self._later).popleft()
            try:
                if cpus:
                    os.sched_setaffinity(0, cpus)  # the process inherits them
                bot.spawn()
            except BaseException:
                pass  # reported by its first start, which tries again; the thread goes on
            finally:
                bot.spawned = True

    def stop(self) -> None:
        """End the thread, once every process it started has been closed."""
        self._wake.put(False)
        self._thread.join()


def _settle(bot: Any) -> bool:
    """Wait until a process started in the background exists; True if it was one."""
    if getattr(bot, "spawned", None) is None:
        return False
    while not bot.spawned:
        time.sleep(0.001)
    bot.spawned = None
    return True


class _Lease:
    """One seat's use of a pooled process, for one match; ``close`` gives it back. A pooled
    bot (``bot`` here and below) is a ``SubprocessBot`` carrying the pool's own marks:
    ``deals`` (the deals it has seen) and ``spawned`` (its background start)."""

    def __init__(self, pool: "BotPool", key: Hashable, bot: Any, deal: Hashable):
        self._pool, self._key, self.bot, self._deal = pool, key, bot, deal
        self.name = bot.name
        self.isolation = getattr(bot, "isolation", "process")
        self._ended = False  # only a process that finished its match cleanly is given back

    def start(self, info: dict) -> None:
        self.bot.deals.add(self._deal)  # before it sees anything of the deal
        _settle(self.bot)  # started in the background: wait until its process exists
        self.bot.start(info)
        BotPool._place(self.bot, affinity.current())  # to the match's CPU, once it has started

    def act(self, observation: dict, *events: Any) -> Any:  # protocol 2: (observation, events)
        return self.bot.act(observation, *events)

    def end(self, info: dict) -> None:
        self.bot.end(info)
        self._ended = True

    def close(self) -> None:
        bot, self.bot = self.bot, None
        if bot is not None:
            if self._ended:
                self._pool._give_back(self._key, bot)
            else:
                bot.close()

    def __getattr__(self, name: str) -> Any:  # times, used, hello, proc... of the process
        bot = self.__dict__.get("bot")
        if bot is None:
            raise AttributeError(name)
        return getattr(bot, name)


class BotPool:
    """The reusable bot processes of one batch; use as a context manager."""

    def __init__(self, max_idle: int = MAX_IDLE):
        raise_descriptor_limit()  # a pool of sandboxed processes holds descriptors for each
        self.max_idle = max_idle
        self.allowed = affinity.current()  # the CPUs spares may start on (``affinity``)
        self._spawning: _SpawnThread | None = None  # starts the spares, once there are any
        self._idle: dict[Hashable, list] = {}
        self.started = 0  # processes started through this pool
        self.reused = 0  # matches played by a process that had played before

    def expect(self, spec: BotSpec, limits: Limits, spares: int = 0) -> None:
        """A seat of a match to come (``runner.worker``'s look-ahead): a bot this pool has no
        process of yet gets ``spares + 1`` of them started now, in the background, so that
        its first matches do not wait for their interpreters. Nothing for a bot in-process,
        or one whose processes exist (``handle`` starts more when a deal needs them)."""
        if not spec.isolated:
            return
        key = (spec.name, limits)
        if key in self._idle:
            return
        idle = self._idle[key] = []
        for i in range(min(spares + 1, self.max_idle)):
            # its first process before anyone's spares: the bots of the next match start first
            idle.append(self._background(spec, limits, self.allowed, spare=i > 0))

    def handle(self, spec: BotSpec, limits: Limits, deal: Hashable, spares: int = 0) -> BotHandle:
        """A handle for one seat of one match of ``deal`` (e.g. the game and the match seed:
        the same for every rotation of a duplicate deal). ``spares``: when a new process must
        be started, start this many more now (the next rotations of the deal will need them),
        so that their interpreters start side by side instead of one per match."""
        if not spec.isolated:
            return spec.handle(limits)
        key = (spec.name, limits)
        idle = self._idle.setdefault(key, [])
        here = affinity.current()  # the match's CPU(s)
        for i, bot in enumerate(idle):
            if deal not in bot.deals:
                del idle[i]
                if bot.matches:
                    self.reused += 1
                return _Lease(self, key, bot, deal)
        bot = self._new(spec, limits)
        # started now, beside the other seats' processes, on every CPU (its interpreter loads
        # on whichever is free); moved to the match's CPU once it has started
        self._spawner().start(bot, self.allowed)
        elsewhere = (self.allowed - here) or here  # spares load beside the match, not on its CPU
        for _ in range(min(spares, self.max_idle - len(idle))):
            idle.append(self._background(spec, limits, elsewhere))
        return _Lease(self, key, bot, deal)

    def _background(
        self, spec: BotSpec, limits: Limits, cpus: frozenset, spare: bool = True
    ) -> Any:
        """A new process of ``spec`` started on ``cpus`` by the pool's thread, while matches
        play (a failure is reported by its first start); its handshake comes with its first
        match."""
        bot = self._new(spec, limits)
        bot.cpus = cpus
        self._spawner().start(bot, cpus, spare=spare)
        return bot

    @staticmethod
    def _place(bot: Any, here: frozenset) -> None:
        """Run ``bot``'s process on the match's CPUs; when that is one CPU (a pinned worker,
        ``affinity.pinned``), the platform sleeps while the bot thinks rather than spin."""
        proc = getattr(bot, "proc", None)
        if proc is not None and getattr(bot, "cpus", None) != here:
            wrapped = getattr(bot, "wrapped", None)
            cgroup = getattr(wrapped, "cgroup", None)
            if cgroup is None or not cgroup.set_cpus(here):  # a cpuset holds it there
                affinity.move(proc.pid, here)
        bot.cpus = here
        bot.spin = len(here) != 1

    def _new(self, spec: BotSpec, limits: Limits) -> Any:
        bot: Any = spec.handle(limits)
        bot.deals = set()
        self.started += 1
        return bot

    def _give_back(self, key: Hashable, bot: Any) -> None:
        if not getattr(bot, "reusable", False):
            bot.close()
            return
        idle = self._idle.setdefault(key, [])
        idle.append(bot)
        while len(idle) > self.max_idle:
            idle.pop(0).close()

    def close(self) -> None:
        """End every idle process: ``quit`` to all of them first, then each one's ``close``
        (its grace period, then its process group killed), so they exit side by side."""
        idle, self._idle = self._idle, {}
        bots = [bot for group in idle.values() for bot in group]
        for bot in bots:
            _settle(bot)  # a spare still starting: its process exists before it is closed
        for bot in bots:
            try:
                getattr(bot, "quit", lambda: None)()
            except Exception:
                pass
        for bot in bots:
            try:
                bot.close()
            except Exception:
                pass
        spawner, self._spawning = self._spawning, None
        if spawner is not None:
            spawner.stop()

    def _spawner(self) -> _SpawnThread:
        if self._spawning is None:
            self._spawning = _SpawnThread()
        return self._spawning

    def __enter__(self) -> "BotPool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
