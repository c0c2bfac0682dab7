"""Bots submitted over HTTP (``POST /api/bots``), checked in a background queue.

Owns ``Queue``: each accepted upload (already unpacked by ``server.archive`` into a folder of
its own) waits its turn; ``workers`` checks run at once (1 by default), each one exactly what
``mallows bots submit`` does on the machine (the same command, in a process of its own: the
bot checked through the sandbox in every game it declares, then stored as ``NAME@N``, and
entered in the hosted ladder with ``--ladder``), never inside a request. A submission's state
is ``queued`` (with its place in the queue), ``checking``, then ``passed`` (the check's table
and ``NAME@N``) or ``failed`` (the table and the reason, e.g. the forfeit that failed it).

The queue survives a restart: each upload is unpacked into a folder of its own beside the
database (``DB-uploads/ID/files``) with its state in ``DB-uploads/ID/submission.json``
(written whole, then renamed into place). A restarted server checks again, in their order,
the uploads still queued and the one whose check it was killed in (the check is what
``bots submit`` does, so a bot it had already stored is found unchanged, not stored twice); the
finished ones keep their table and reason (the newest ``KEEP_FINISHED``), their files removed.
A check runs as a process of the server's own (``server.children``): it ends with the server.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import shutil
import signal
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from mallows.server.children import cli_command

#: A check's output kept (its table and reason), at most.
OUTPUT_CHARS = 20000
#: Seconds a check may take before it is stopped and failed.
CHECK_SECONDS = 600.0
#: Finished submissions whose state a restarted server still shows.
KEEP_FINISHED = 1000
RECORD = "submission.json"


def spool(db: Path) -> Path:
    """The folder of database ``db``'s uploads."""
    return db.with_name(db.name + "-uploads")


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

    def save(self) -> None:
        """Write its state beside its files (whole or not at all)."""
        record = {**asdict(self), "folder": None, "bot": str(self.bot.relative_to(self.folder))}
        path = self.folder.parent / RECORD
        part = path.with_name(RECORD + ".part")
        part.write_text(json.dumps(record))
        os.replace(part, path)

    @classmethod
    def load(cls, record: Path) -> Submission:
        data = json.loads(record.read_text())
        folder = record.parent / "files"
        return cls(**{**data, "folder": folder, "bot": folder / data["bot"]})


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
        self._load()

    def _load(self) -> None:
        """What a previous run of the server left: see the module's docstring."""
        found = []
        for record in spool(self.db).glob(f"*/{RECORD}"):
            try:
                found.append(Submission.load(record))
            except (OSError, ValueError, TypeError, KeyError):
                continue  # a record cut short: its upload never reached the queue
        found.sort(key=lambda s: s.created)
        finished = [s for s in found if s.state in ("passed", "failed")]
        for old in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            shutil.rmtree(old.folder.parent, ignore_errors=True)
            found.remove(old)
        for sub in found:
            self.items[sub.id] = sub
            if sub.state in ("queued", "checking"):
                sub.state = "queued"  # killed during its check: checked again
                self._waiting.append(sub.id)

    def new_folder(self) -> Path:
        """An empty folder for an upload's files (its submission's own)."""
        folder = spool(self.db) / secrets.token_hex(8) / "files"
        folder.mkdir(parents=True)
        return folder

    def add(self, account: str, name: str, folder: Path, bot: Path) -> Submission:
        """Queue the upload unpacked in ``folder`` (a ``new_folder``)."""
        sub = Submission(folder.parent.name, account, name, folder, bot)
        sub.save()
        self.items[sub.id] = sub
        self._waiting.append(sub.id)
        self.start()
        return sub

    def discard(self, folder: Path) -> None:
        """An upload refused before it was queued: its folder goes."""
        shutil.rmtree(folder.parent, ignore_errors=True)

    def start(self) -> None:
        """Start checking (in the server's event loop), what waits included."""
        self._start()
        assert self._wake is not None
        if self._waiting:
            self._wake.set()

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
            sub = self.items[self._waiting[0]]
            sub.state = "checking"
            self._waiting.pop(0)
            sub.save()
            try:
                await self._check(sub)
            except OSError as exc:  # the check could not start
                sub.state, sub.output = "failed", f"the check could not run: {exc}"
            sub.save()  # then its files go: a restart shows its state, checks nothing again
            shutil.rmtree(sub.folder, ignore_errors=True)

    def command(self, sub: Submission) -> list[str]:
        args = [
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
        # killed with the server: its restart checks the bot again (one check at a time)
        return cli_command(
            args + (["--ladder", self.ladder] if self.ladder else []), signal.SIGKILL
        )

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
