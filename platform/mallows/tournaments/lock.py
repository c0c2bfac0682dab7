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
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from pathlib import Path
from typing import Iterator

from mallows.errors import TournamentBusy


def lock_path(db: str | Path, name: str) -> Path:
    db = Path(db)
    return db.with_name(f"{db.name}-{name}.lock")


@contextlib.contextmanager
def run_lock(db: str | Path, name: str) -> Iterator[Path]:
    """Hold the lock of tournament ``name`` on database ``db`` for the ``with`` block."""
    from mallows.results.integrity import explain

    path = lock_path(db, name)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = _acquire(path, db, name)
    except OSError as exc:
        raise explain(db, exc) from None
    try:
        yield path
    finally:
        with contextlib.suppress(OSError):
            if _same_file(fd, path):
                path.unlink()
        os.close(fd)


def _acquire(path: Path, db, name: str) -> int:
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _read(fd)
            os.close(fd)
            raise TournamentBusy(
                f"tournament {name!r} is being run on {db} by another process"
                + (f" ({holder})" if holder else "") + ": wait for it to finish (mallows "
                f"tournament list --db {db} shows its progress), or stop it and rerun this "
                f"command to resume; a different tournament can run beside it") from None
        except BaseException:
            os.close(fd)
            raise
        if _same_file(fd, path):  # not deleted by a finishing holder in between
            os.ftruncate(fd, 0)
            os.write(fd, f"pid {os.getpid()}, started {time.strftime('%Y-%m-%d %H:%M:%S')}"
                     .encode())
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
