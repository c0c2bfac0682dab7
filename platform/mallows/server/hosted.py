"""The ladder ``mallows serve --ladder NAME`` hosts, played by the server itself.

Owns ``HostedLadder``: while the server runs, the ladder runs as ``mallows ladder resume NAME
--follow`` in a process of the server's own (``server.children``): the CLI's runner with the
CLI's executors (``--workers``: in that process or a local Ray; ``--address``: a Ray cluster),
the ladder's run lock (one runner per ladder: one started by hand in a shell is left to play,
the server tries again later) and its resume (the stored epochs and schedule go on: a match
stored is never played again, one cut short is played again from its seed). The process gets
SIGTERM when the server stops or dies (``kill -9`` included) and stops as ``ladder run`` does
on Ctrl-C; a process that ends otherwise (a crash, the lock taken) is started again after
``RETRY_SECONDS``, doubling to ``MAX_RETRY_SECONDS`` while it keeps ending.

The machine's workers are shared by fixed shares, so neither side waits for the other:
``ladder_workers`` gives the checks of submitted bots their ``--check-workers`` and the ladder
the rest of ``--workers`` (at least 1); with ``--address`` the ladder's matches run on the
cluster and the checks keep the server's machine.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from pathlib import Path

from mallows.server.children import cli_command

#: Seconds before a hosted ladder that ended is started again (doubling while it keeps ending).
RETRY_SECONDS = 5.0
MAX_RETRY_SECONDS = 300.0
#: Seconds the ladder has to stop (its matches in flight end, the rest resumes) at the server's stop.
STOP_SECONDS = 20.0


def ladder_workers(workers: int | None, address: str | None, check_workers: int) -> int | None:
    """The ladder's share of the workers (see the module's docstring); None: the cluster's."""
    if address:
        return workers
    total = workers or os.cpu_count() or 1
    return max(1, total - check_workers)


class HostedLadder:
    """Ladder ``name`` of database ``db`` played while the server runs."""

    def __init__(self, db: Path, name: str, workers: int | None, address: str | None) -> None:
        self.db, self.name, self.workers, self.address = Path(db), name, workers, address
        self.proc: asyncio.subprocess.Process | None = None
        self.starts = 0
        self._task: asyncio.Task | None = None

    def command(self) -> list[str]:
        args = ["ladder", "resume", self.name, "--db", str(self.db), "--follow", "--quiet"]
        if self.workers is not None:
            args += ["--workers", str(self.workers)]
        if self.address:
            args += ["--address", self.address]
        return cli_command(args, signal.SIGTERM)

    def start(self) -> None:
        """Start playing (in the server's event loop)."""
        self._task = asyncio.get_running_loop().create_task(self._keep_running())

    async def _keep_running(self) -> None:
        wait = RETRY_SECONDS
        while True:
            self.starts += 1
            # its output is the server's (a refused start says why, e.g. who holds the lock)
            self.proc = await asyncio.create_subprocess_exec(
                *self.command(), stdin=asyncio.subprocess.DEVNULL
            )
            status = await self.proc.wait()
            if status == 0:  # stopped (mallows ladder stop), its finals or max_matches reached
                return
            print(
                f"the hosted ladder {self.name} ended (exit {status}): it starts again in "
                f"{wait:g} s",
                file=sys.stderr,
            )
            await asyncio.sleep(wait)
            wait = min(MAX_RETRY_SECONDS, wait * 2)

    async def stop(self) -> None:
        """Stop the ladder as Ctrl-C would (resumable), then wait for it."""
        if self._task is not None:
            self._task.cancel()
        proc = self.proc
        if proc is None or proc.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            proc.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(proc.wait(), STOP_SECONDS)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
