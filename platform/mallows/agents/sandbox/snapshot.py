"""Read-only copies of host files that every sandbox binds, made once and shared.

A sandbox shows a few host files as copies rather than live: ``/proc``'s counters frozen
(``procview``), and the files of ``/etc`` a runtime reads, as one folder (``etcview``).

- ``publish(memory, name, fill)``: the folder ``memory/name`` (``memory`` a tmpfs such as
  ``/dev/shm``), made once by the first of this user's processes that needs it and then only
  read. ``fill`` writes the copies into a private folder, which gets the shared name only
  once it is complete (``os.rename``, refused when another process named its copy first). A
  folder of that name is used only if it is this user's, a real folder (no link) and
  writable by no one else (``ours``); None otherwise, or when it cannot be made (the caller
  then makes a copy of its own).
- ``copy_file(src, dst)``: one file, read-only (``0444``), if it is at most ``MAX_BYTES`` (or
  another limit, or none).
- ``readable(mode)``: whether every user may read it (a copy never shows more than the bot's
  host user could read live).
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable

#: The environment variable naming a run's scratch folder (``runner.cluster`` sets it for the
#: workers of a local Ray, and removes the folder when the run ends): a process there keeps its
#: copies under it rather than shared (a Ray worker never runs ``atexit``).
SCRATCH_ENV = "MALLOWS_SCRATCH"
MAX_BYTES = 1 << 20  # a larger /proc file is left out of its copy (no counter is that large)


def readable(mode: int) -> bool:
    return bool(mode & stat.S_IROTH)


def copy_file(src: str, dst: str, limit: int | None = MAX_BYTES) -> bool:
    """Copy ``src`` to ``dst``, read-only; False (nothing written) if it cannot be read or is
    larger than ``limit`` bytes (None: any size)."""
    try:
        with open(src, "rb") as f:
            data = f.read() if limit is None else f.read(limit + 1)
    except OSError:
        return False
    if limit is not None and len(data) > limit:
        return False
    with open(dst, "wb") as f:
        f.write(data)
    os.chmod(dst, 0o444)
    return True


def ours(path: str) -> bool:
    """Whether ``path`` is a real folder (no link) of this user that no other user may write."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def publish(memory: str, name: str, fill: Callable[[str], None]) -> str | None:
    """``memory/name``, filled by ``fill(folder)`` the first time (see the module docstring);
    None where it cannot be made or trusted."""
    final = os.path.join(memory, name)
    if not ours(final):
        try:
            folder = tempfile.mkdtemp(prefix="mallows-copy-", dir=memory)
        except OSError:
            return None
        try:
            fill(folder)
            os.chmod(folder, 0o755)
            os.rename(folder, final)  # refused when another process named its copy first
        except OSError:
            shutil.rmtree(folder, ignore_errors=True)
        if not ours(final):
            return None
    return final
