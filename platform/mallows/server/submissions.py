"""Bots submitted over HTTP (``POST /api/bots``), checked in a background queue.

Owns ``Queue``: each accepted upload (already unpacked by ``server.archive`` into a folder of
its own) waits its turn; ``workers`` checks run at once (1 by default), each one exactly what
``mallows bots submit`` does on the machine (the same command, in a process of its own: the
bot checked through the sandbox in every game it declares, then stored as ``NAME@N``, and
entered in the hosted ladder with ``--ladder``), never inside a request. A submission's state
is ``queued`` (with its place in the queue), ``checking``, then ``passed`` (the check's table
and ``NAME@N``) or ``failed`` (the table and the reason, e.g. the forfeit that failed it).
The queue lives in memory: a restart forgets the uploads still waiting.
"""

from __future__ import annotations

import asyncio
import secrets
import shutil
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

#: A check's output kept (its table and reason), at most.
OUTPUT_CHARS = 20000
#: Seconds a check may take before it is stopped and failed.
CHECK_SECONDS = 600.0


@dataclass
class Submission:
    id: str
    account: str
    name: str
    folder: Path  # the unpacked upload (removed after its check)
    bot: Path  # the bot inside it (a folder or a .py file)
    state: str = "queued"
    output: str = ""
    version: str | None = None  # NAME@N once passed
    created: float = field(default_factory=time.time)

    def view(self, position: int | None) -> dict:
        out: dict = {"id": self.id, "name": self.name, "state": self.state}
        if self.state == "queued":
            out["position"] = position
        if self.state in ("passed", "failed"):
            out["output"] = self.output
        if self.version:
            out["bot"] = self.version
        if self.state == "failed":
            lines = [ln for ln in self.output.splitlines() if ln.strip()]
            out["reason"] = "\n".join(lines[-6:])
        return out


class Queue:
    """Checks of submissions to database ``db``; ``ladder``: the hosted ladder a passing bot
    enters; ``games``: check matches per game."""

    def __init__(self, db: Path, ladder: str | None, workers: int = 1, games: int = 5):
        self.db, self.ladder, self.games = Path(db), ladder, games
        self.workers = max(1, workers)
        self.items: dict[str, Submission] = {}
        self._waiting: list[str] = []
        self._wake: asyncio.Event | None = None
        self._tasks: list[asyncio.Task] = []

    def add(self, account: str, name: str, folder: Path, bot: Path) -> Submission:
        sub = Submission(secrets.token_hex(8), account, name, folder, bot)
        self.items[sub.id] = sub
        self._waiting.append(sub.id)
        self._start()
        assert self._wake is not None
        self._wake.set()
        return sub

    def position(self, sub: Submission) -> int | None:
        """1 for the next to be checked; None once it is no longer waiting."""
        return self._waiting.index(sub.id) + 1 if sub.id in self._waiting else None

    def _start(self) -> None:
        if self._wake is None:
            self._wake = asyncio.Event()
        loop = asyncio.get_running_loop()
        while len(self._tasks) < self.workers:
            self._tasks.append(loop.create_task(self._work()))

    async def _work(self) -> None:
        assert self._wake is not None
        while True:
            while not self._waiting:
                self._wake.clear()
                await self._wake.wait()
            sub = self.items[self._waiting.pop(0)]
            sub.state = "checking"
            try:
                await self._check(sub)
            finally:
                shutil.rmtree(sub.folder, ignore_errors=True)

    def command(self, sub: Submission) -> list[str]:
        args = [
            sys.executable,
            "-c",
            "import sys; from mallows.cli import main; sys.argv[0] = 'mallows'; main()",
            "bots",
            "submit",
            str(sub.bot),
            "--name",
            sub.name,
            "--db",
            str(self.db),
            "--games",
            str(self.games),
        ]
        return args + (["--ladder", self.ladder] if self.ladder else [])

    async def _check(self, sub: Submission) -> None:
        proc = await asyncio.create_subprocess_exec(
            *self.command(sub),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            stdin=asyncio.subprocess.DEVNULL,
            env={**_env(), "COLUMNS": "120"},
        )
        try:
            out, _ = await asyncio.wait_for(proc.communicate(), CHECK_SECONDS)
        except TimeoutError:
            proc.kill()
            await proc.wait()
            sub.state, sub.output = "failed", f"the check took over {CHECK_SECONDS:g} s"
            return
        except asyncio.CancelledError:  # the server stops: the check stops with it
            proc.kill()
            raise
        text = out.decode("utf-8", "replace")[-OUTPUT_CHARS:]
        sub.output = text
        last = text.strip().splitlines()[-1] if text.strip() else ""
        if proc.returncode == 0 and last.startswith(f"{sub.name}@"):
            sub.state, sub.version = "passed", last.strip()
        else:
            sub.state = "failed"

    def close(self) -> None:
        for task in self._tasks:
            task.cancel()


def _env() -> dict[str, str]:
    import os

    return dict(os.environ)
