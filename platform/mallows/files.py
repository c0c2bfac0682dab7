"""The one way a command opens a file it was given: regular files only, checked before opening.

Every file argument of every command (a tournament or ladder file, a bot given by path, a
``--record`` to write, a ``--out`` or ``--dir`` folder) goes through these functions, so each
meets the same refusals, each a ``MallowsError`` (exit 2) naming the path, what it is and
the fix, never a traceback and never a hang:

- an empty path (``""`` would read the current folder);
- a path whose name, or one of its folders' names, is over the system's limit
  (``ENAMETOOLONG``: ``Path.exists()`` and ``is_file()`` raise it on Python 3.11);
- a named pipe (FIFO): opening one blocks until a writer comes, so it is never opened;
- a device, a socket, a folder where a file is wanted, a file where a folder is wanted.

``check_file`` and ``read_text``/``read_bytes`` are for files read; ``check_writable`` for a
file to create or replace; ``check_folder`` for a folder read or created. ``exists`` is
``Path.exists()`` that answers False, never raises, for a name no file can have.

Ground floor: imports only ``mallows.errors`` (and the standard library).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from mallows.errors import MallowsError

_KINDS = (
    (
        stat.S_ISFIFO,
        "a named pipe (FIFO), which mallows never opens (reading one waits for a writer)",
    ),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _shown(path: str) -> str:
    """The path as a message shows it: an over-long one cut, its length said."""
    if len(path) <= 120:
        return repr(path)
    return f"{path[:60]!r}... ({len(path.encode())} bytes)"


def _stat(
    path: str | Path, what: str, fix: str, error: type[MallowsError]
) -> os.stat_result | None:
    """``os.stat(path)`` (symlinks followed), None when nothing is there; an empty or over-long
    name, or an unreadable path, is ``error``."""
    text = check_name(path, what, fix, error)
    try:
        return os.stat(text)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise error(
                f"{what} {_shown(text)}: the name is too long for the system (a file or "
                f"folder name holds at most 255 bytes): {fix}"
            ) from None
        raise error(f"{what} {_shown(text)} cannot be read ({exc.strerror}): {fix}") from None


#: The longest name of one file or folder (``NAME_MAX`` on Linux), and of a whole path.
NAME_MAX = 255
PATH_MAX = 4096


def check_name(
    path: str | Path, what: str, fix: str, error: type[MallowsError] = MallowsError
) -> str:
    """``path`` as text, refused (``error``) when no file can have it: empty, holding a NUL, or
    with a part over ``NAME_MAX`` bytes (the whole over ``PATH_MAX``). Touches no file."""
    text = os.fspath(path)
    if not text.strip():
        raise error(f"{what}: an empty path names no file: {fix}")
    if "\x00" in text:
        raise error(f"{what} {_shown(text)}: a path cannot hold a NUL character: {fix}")
    raw = os.fsencode(text)
    if len(raw) >= PATH_MAX or any(len(part) > NAME_MAX for part in raw.split(b"/")):
        raise error(
            f"{what} {_shown(text)}: the name is too long for the system (a file or folder "
            f"name holds at most {NAME_MAX} bytes, a path {PATH_MAX - 1}): {fix}"
        )
    return text


def _kind(st: os.stat_result) -> str | None:
    for test, kind in _KINDS:
        if test(st.st_mode):
            return kind
    return None


def exists(path: str | Path) -> bool:
    """``Path(path).exists()`` that never raises: False for an empty or over-long name."""
    text = os.fspath(path)
    if not text or "\x00" in text:
        return False
    try:
        os.stat(text)
    except (OSError, ValueError):
        return False
    return True


def check_file(
    path: str | Path,
    what: str,
    fix: str,
    error: type[MallowsError] = MallowsError,
    folder_ok: bool = False,
) -> os.stat_result | None:
    """Check ``path`` is a regular file (or, ``folder_ok``, a folder) before anything opens it;
    None when nothing is there (the caller says what a missing file means)."""
    st = _stat(path, what, fix, error)
    if st is None:
        return None
    shown = _shown(os.fspath(path))
    kind = _kind(st)
    if kind is not None:
        raise error(f"{what} {shown} is {kind}, not a file: {fix}")
    if stat.S_ISDIR(st.st_mode) and not folder_ok:
        raise error(f"{what} {shown} is a folder, not a file: {fix}")
    return st


def read_bytes(
    path: str | Path, what: str, fix: str, error: type[MallowsError] = MallowsError
) -> bytes:
    """The bytes of the regular file ``path``; anything else, or nothing there, is ``error``."""
    if check_file(path, what, fix, error) is None:
        raise error(f"there is no {what} {_shown(os.fspath(path))}: {fix}")
    try:
        # O_NONBLOCK: a FIFO put in the file's place since the check still cannot block
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise error(
            f"cannot read {what} {_shown(os.fspath(path))} ({exc.strerror}): {fix}"
        ) from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise error(f"{what} {_shown(os.fspath(path))} is not a regular file: {fix}")
        os.set_blocking(fd, True)
        return f.read()


def read_text(
    path: str | Path, what: str, fix: str, error: type[MallowsError] = MallowsError
) -> str:
    """The UTF-8 text of the regular file ``path`` (a leading byte-order mark dropped)."""
    data = read_bytes(path, what, fix, error)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(
            f"{what} {_shown(os.fspath(path))} is not UTF-8 text (byte {exc.start}): {fix}"
        ) from None
    return text[1:] if text.startswith("\ufeff") else text


def check_writable(
    path: str | Path, what: str, fix: str, error: type[MallowsError] = MallowsError
) -> None:
    """Check ``path`` can be created or replaced as a regular file: nothing there or a regular
    file, and no file where one of its folders should be."""
    check_file(path, what, fix, error)
    parent = Path(os.path.abspath(os.fspath(path))).parent
    while True:
        st = _stat(parent, what, fix, error)
        if st is not None:
            if not stat.S_ISDIR(st.st_mode):
                kind = _kind(st) or "a file"
                raise error(
                    f"{what} {_shown(os.fspath(path))}: {parent} is {kind}, not a folder: {fix}"
                )
            return
        if parent == parent.parent:
            return
        parent = parent.parent


def check_folder(
    path: str | Path, what: str, fix: str, error: type[MallowsError] = MallowsError
) -> bool:
    """Check ``path`` is a folder or can be made one; True when it exists."""
    st = _stat(path, what, fix, error)
    if st is None:
        check_writable(path, what, fix, error)
        return False
    if not stat.S_ISDIR(st.st_mode):
        kind = _kind(st) or "a file"
        raise error(f"{what} {_shown(os.fspath(path))} is {kind}, not a folder: {fix}")
    return True
