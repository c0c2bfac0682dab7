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

from typing import Any, Hashable

MAX_IDLE = 8  # idle processes kept per bot; the oldest beyond that are closed


class _Lease:
    """One seat's use of a pooled process, for one match; ``close`` gives it back."""

    def __init__(self, pool: "BotPool", key: Hashable, bot: Any, deal: Hashable):
        self._pool, self._key, self.bot, self._deal = pool, key, bot, deal
        self.name = bot.name
        self.isolation = getattr(bot, "isolation", "process")
        self._ended = False  # only a process that finished its match cleanly is given back

    def start(self, info: dict) -> None:
        self.bot.deals.add(self._deal)  # before it sees anything of the deal
        self.bot.start(info)

    def act(self, observation: dict) -> Any:
        return self.bot.act(observation)

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

    def __getattr__(self, name: str):  # times, used, hello, proc... of the process
        bot = self.__dict__.get("bot")
        if bot is None:
            raise AttributeError(name)
        return getattr(bot, name)


class BotPool:
    """The reusable bot processes of one batch; use as a context manager."""

    def __init__(self, max_idle: int = MAX_IDLE):
        self.max_idle = max_idle
        self._idle: dict[Hashable, list] = {}
        self.started = 0  # processes started through this pool
        self.reused = 0   # matches played by a process that had played before

    def handle(self, spec, limits, deal: Hashable, spares: int = 0):
        """A handle for one seat of one match of ``deal`` (e.g. the game and the match seed:
        the same for every rotation of a duplicate deal). ``spares``: when a new process must
        be started, start this many more now (the next rotations of the deal will need them),
        so that their interpreters start side by side instead of one per match."""
        if not spec.isolated:
            return spec.handle(limits)
        key = (spec.name, limits)
        idle = self._idle.setdefault(key, [])
        for i, bot in enumerate(idle):
            if deal not in bot.deals:
                del idle[i]
                if bot.matches:
                    self.reused += 1
                return _Lease(self, key, bot, deal)
        bot = self._new(spec, limits)
        try:  # started now, beside the other seats' processes; a failure is reported by start
            bot.spawn()
        except Exception:
            pass
        for _ in range(min(spares, self.max_idle - len(idle))):
            spare = self._new(spec, limits)
            try:
                spare.spawn()  # started now; its handshake comes with its first match
            except Exception:
                spare.close()
                break
            idle.append(spare)
        return _Lease(self, key, bot, deal)

    def _new(self, spec, limits):
        bot = spec.handle(limits)
        bot.deals = set()
        self.started += 1
        return bot

    def _give_back(self, key: Hashable, bot) -> None:
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
            try:
                getattr(bot, "quit", lambda: None)()
            except Exception:
                pass
        for bot in bots:
            try:
                bot.close()
            except Exception:
                pass

    def __enter__(self) -> "BotPool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
