"""One writer per tournament: ``run_lock(db, name)``.

A ``tournament run`` holds an exclusive ``flock`` on a small file beside the database,
``<db>-<name>.lock``, for as long as it runs. A second run of the same tournament on the same
database finds the lock taken and stops with a message naming the process that holds it (exit
2) instead of playing every match a second time. Different tournaments have different lock
files, so they still run at once on one database.

The kernel drops the lock when its holder dies in any way (``kill -9`` included), so a lock is
never stale: a file left behind by a killed run is simply taken by the next one. The holder
deletes the file when it finishes; a process that opened the file just before it was deleted
notices (the path no longer names the file it locked) and starts again.

The lock belongs to the database file, not to the path the user typed: its file sits beside
the database's real path (symlinks resolved), so a symlink to the same database, or a path
through a symlinked folder, finds the same lock. ``tournament delete`` takes the same lock
(``doing="delete"``), so a running tournament cannot be deleted under its run, and a run cannot
start while its tournament is being deleted. The lock file says who holds it: pid, host and
start time.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import socket
import time
from pathlib import Path
from typing import Iterator

from mallows.errors import TournamentBusy


def lock_path(db: str | Path, name: str) -> Path:
    """The lock file of tournament ``name``: beside the database's real file (symlinks
    resolved, so every path to one database names one lock)."""
    real = Path(os.path.realpath(db))
    return real.with_name(f"{real.name}-{name}.lock")


@contextlib.contextmanager
def run_lock(
    db: str | Path, name: str, doing: str = "run", kind: str = "tournament"
) -> Iterator[Path]:
    """Hold the lock of tournament ``name`` on database ``db`` for the ``with`` block.
    ``doing`` ("run" or "delete") words the message when another process holds it, ``kind``
    ("tournament", "ladder" or "comparison", each stored as a tournament) what runs."""
    from mallows.results.integrity import explain

    path = lock_path(db, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _acquire(path, db, name, doing, kind)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise TournamentBusy(
                f"the name of tournament {name[:60]!r}{'...' if len(name) > 60 else ''} is "
                f"too long ({len(name.encode())} bytes) for its lock file beside {db} (a file "
                f"name holds at most 255 bytes): give the tournament a shorter name"
            ) from None
        raise explain(db, exc) from None
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            if _same_file(fd, path):
                path.unlink()
        os.close(fd)


def _busy(
    db: str | Path, name: str, holder: str, doing: str, kind: str = "tournament"
) -> TournamentBusy:
    who = f"by another process ({holder})" if holder else "by another process"
    if kind == "ladder" and doing == "run":
        return TournamentBusy(
            f"ladder {name!r} is being run on {db} {who}: a ladder has one runner; follow it "
            f"with mallows ladder status {name} --db {db}, or stop it (mallows ladder stop "
            f"{name} --db {db}, or Ctrl-C) and rerun this command to resume"
        )
    if kind == "comparison" and doing == "run":
        return TournamentBusy(
            f"comparison {name!r} is being run on {db} {who}: two runs of one comparison "
            f"would split its matches; wait for it to finish (rerunning this command then "
            f"prints its verdict from the stored matches), or stop it and rerun to resume"
        )
    if doing == "delete":
        return TournamentBusy(
            f"tournament {name!r} is being run on {db} {who}: it cannot be deleted while it "
            f"runs; stop that run (Ctrl-C, or kill the pid), then delete it"
        )
    return TournamentBusy(
        f"tournament {name!r} is being run on {db} {who}: wait for it to finish (mallows "
        f"tournament list --db {db} shows its progress), or stop it and rerun this "
        f"command to resume; a different tournament can run beside it"
    )


def _acquire(
    path: Path, db: str | Path, name: str, doing: str = "run", kind: str = "tournament"
) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise _busy(db, name, holder, doing, kind) from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):  # not deleted by a finishing holder in between
            os.ftruncate(fd, 0)
            what = "deleting" if doing == "delete" else "running"
            os.write(
                fd,
                f"pid {os.getpid()}, host {socket.gethostname()}, {what} since "
                f"{time.strftime('%Y-%m-%d %H:%M:%S %Z')}".encode(),
            )
            return fd
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    try:
        a, b = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _read(fd: int) -> str:
    try:
        return os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        return ""
