"""The one error path for the database, and the digests that detect damaged records.

Every ``sqlite3`` error (and every ``OSError`` met while opening the file) raised by the store
becomes a ``DatabaseError``: a ``MallowsError`` whose message names the file, says what is wrong
with it in words (damaged, not a database, someone else's database, full disk, read-only, a
folder that cannot be created) and what to do about it (restore a copy, free space, use another
``--db``). ``guard(sqlite3.Error)`` on each of the store's classes (``Store`` and the ``Reading`` and
``Submissions`` objects it answers through: guard wraps a class's own methods) wraps every
public method, generators included, so no SQLite exception reaches the user as a traceback.

``record_digest`` is the checksum stored with each match (schema version 2): over the record
text and the players and ranks columns that ratings read, so random bytes written into any of
them are found when the record is read (``replay``) and by ``mallows db check``.

This module does not talk to SQLite, nor import it (``store`` does): it reads SQLite's messages.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import inspect
import json
import os
import stat
from pathlib import Path
from typing import Any, Callable, Iterator, TypeVar

from mallows.errors import DatabaseError
from mallows.files import check_name

#: Written after "what to do" when the file itself is damaged.
RESTORE = (
    "restore it from a copy, or use another --db (`mallows db check --db {path}` lists "
    "what is damaged)"
)
READ_ONLY = (
    "the file or its disk is read-only. Commands that only read (tournament list, "
    "tournament show, ratings, replay, db check) work there; to run a tournament copy "
    "the file to a writable disk and pass --db"
)


#: The first 16 bytes of every SQLite database file.
SQLITE_HEADER = b"SQLite format 3\x00"
_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)
_KERNEL_FILES = ("/proc", "/sys", "/dev")


def check_db_path(path: Path | str) -> None:
    """Refuse at once a ``--db`` that is neither a regular file nor a path to create: a folder,
    a FIFO (opening one would block forever), a device (``/dev/null`` would read as an empty
    database), a kernel file under ``/proc`` or ``/sys``, a regular file that is not SQLite, or
    a path whose folder is a file. Never opens anything but a regular file (for its header)."""
    where = str(path)
    fix = "give the path of a mallows database file with --db, or a new file name to start one"
    check_name(path, "--db", fix, DatabaseError)  # empty, or a name no file can have
    try:
        st = os.stat(path)  # follows symlinks: what SQLite would open
    except FileNotFoundError:
        parent = Path(os.path.abspath(path)).parent
        while not parent.exists() and parent != parent.parent:
            parent = parent.parent
        if parent.exists() and not parent.is_dir():
            raise DatabaseError(f"--db {where}: {parent} is a file, not a folder: {fix}") from None
        if _kernel(os.path.realpath(parent)):
            raise DatabaseError(
                f"--db {where} is in a folder of the kernel ({parent}), where "
                f"no database can be made: {fix}"
            ) from None
        return  # a path to create
    except NotADirectoryError:
        raise DatabaseError(
            f"--db {where}: a part of its path is a file, not a folder: {fix}"
        ) from None
    except OSError as exc:
        raise explain(path, exc) from None
    if stat.S_ISDIR(st.st_mode):
        raise DatabaseError(
            f"--db {where} is a folder, not a database file: {fix} (for "
            f"example {Path(where) / 'mallows.db'})"
        )
    for test, kind in _KINDS:
        if test(st.st_mode):
            raise DatabaseError(f"--db {where} is {kind}, not a database file: {fix}")
    real = os.path.realpath(path)
    if _kernel(real):
        raise DatabaseError(
            f"--db {where} is a file of the kernel ({real}), not a database file: {fix}"
        )
    if st.st_size == 0:
        return  # an empty file: SQLite makes it a new database
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as exc:
        raise explain(path, exc) from None
    if head != SQLITE_HEADER[: len(head)] or len(head) < len(SQLITE_HEADER):
        raise DatabaseError(
            f"{where} is not an SQLite database (it does not start with "
            f"SQLite's header): {fix}; if it was one, " + RESTORE.format(path=where)
        )


def existing_db(path: Path | str, missing: str) -> Path:
    """``path`` checked (``check_db_path``) and present: the ``--db`` of a command that reads
    a database it does not create; ``missing`` is the message when nothing is there."""
    check_db_path(path)
    if not os.path.isfile(path):
        raise DatabaseError(missing)
    return Path(path)


def present_db(path: Path | str) -> bool:
    """Whether the optional ``--db`` ``path`` (a missing file means none) holds a database;
    anything but a regular file or a path to create is refused as ``check_db_path`` does."""
    check_db_path(path)
    return os.path.isfile(path)


def _kernel(real: str) -> bool:
    return any(real == top or real.startswith(top + "/") for top in _KERNEL_FILES)


def record_digest(record: str | bytes, players: str, ranks: str) -> str:
    """The digest of one stored match: its record and the players/ranks columns (as stored)."""
    h = hashlib.blake2b(digest_size=16)
    for part in (players, ranks):
        h.update(part.encode("utf-8", "surrogatepass"))
        h.update(b"\0")
    h.update(record if isinstance(record, bytes) else record.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


def explain(path: Path | str, exc: BaseException) -> DatabaseError:
    """The message for ``exc`` (an ``sqlite3.Error``, read by its text; an ``OSError``; or a
    decoding error of a stored value) met while using the database at ``path``."""
    text = str(exc).strip() or type(exc).__name__
    low = text.lower()
    where = str(path)
    if isinstance(exc, OSError):
        if exc.errno == errno.ENOSPC:
            return DatabaseError(
                f"no space left for {where}: free space on its disk and rerun "
                f"(what was stored is kept)"
            )
        if exc.errno == errno.EROFS:
            return DatabaseError(f"cannot write {where}: {READ_ONLY}")
        if exc.errno in (errno.EACCES, errno.EPERM):
            return DatabaseError(
                f"cannot write {where} ({exc.strerror or text}): use a "
                f"--db on a writable disk, or copy the file there"
            )
        return DatabaseError(
            f"cannot use {where} ({exc.strerror or text}): check that its "
            f"folder exists or can be created, or use another --db"
        )
    if isinstance(exc, (ValueError, UnicodeError)):  # a stored JSON value that does not parse
        return DatabaseError(
            f"{where} holds a damaged value ({text[:200]}): " + RESTORE.format(path=where)
        )
    if "database or disk is full" in low or ("disk i/o" in low and _nearly_full(Path(path))):
        return DatabaseError(
            f"the disk holding {where} is full (SQLite: {text}): free space "
            f"and rerun the same command; the matches stored so far are kept"
        )
    if "file is not a database" in low or "file is encrypted" in low:
        return DatabaseError(
            f"{where} is not an SQLite database (SQLite: {text}): give the "
            f"path of a mallows database with --db, or a new file name to "
            f"start one; if it was one, " + RESTORE.format(path=where)
        )
    if "malformed" in low or "corrupt" in low:
        return DatabaseError(f"{where} is damaged (SQLite: {text}): " + RESTORE.format(path=where))
    if (
        "readonly" in low
        or "read-only" in low
        or ("unable to open" in low and _read_only_disk(Path(path)))
    ):
        return DatabaseError(f"cannot write {where} (SQLite: {text}): {READ_ONLY}")
    if "unable to open" in low:
        return DatabaseError(
            f"cannot open {where} (SQLite: {text}): check that its folder "
            f"exists and is writable, or use another --db"
        )
    if "locked" in low or "busy" in low:
        return DatabaseError(
            f"{where} is busy: another process holds a lock on it for too "
            f"long (SQLite: {text}); wait for it to finish and rerun"
        )
    if "disk i/o" in low:
        return DatabaseError(
            f"the disk holding {where} failed a read or write (SQLite: "
            f"{text}): check the disk, then " + RESTORE.format(path=where)
        )
    if "no such table" in low or "no such column" in low:
        return DatabaseError(
            f"{where} is not a complete mallows database (SQLite: {text}): "
            + RESTORE.format(path=where)
        )
    return DatabaseError(f"{where}: SQLite error ({text}): " + RESTORE.format(path=where))


def _nearly_full(path: Path) -> bool:
    """SQLite reports some writes that fail for want of space as a plain I/O error."""
    try:
        st = os.statvfs(path.parent)
    except OSError:
        return False
    return st.f_bavail * st.f_frsize < 1 << 20


def _read_only_disk(path: Path) -> bool:
    try:
        return bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        return False


_CAUGHT = (OSError, json.JSONDecodeError, UnicodeError)
T = TypeVar("T")


def _path(obj: object, args: tuple) -> str:
    path = getattr(obj, "path", None)
    if path is None and args:
        path = args[0]
    return str(path if path is not None else "the database")


def _damage_said(exc: BaseException) -> bool:
    """Whether SQLite's message calls the file damaged ("malformed", "corrupt")."""
    low = str(exc).lower()
    return not isinstance(exc, OSError) and ("malformed" in low or "corrupt" in low)


def _recheck(obj: object) -> bool | None:
    """On a "damaged" error: the store behind ``obj`` checks the file afresh (a new connection,
    SQLite's quick check) and, when it is intact, opens its connections again. True: the file
    is intact and the call may be retried; False: damaged; None: no store to ask."""
    store = obj if hasattr(obj, "recheck") else getattr(obj, "store", None)
    recheck = getattr(store, "recheck", None)
    return recheck() if recheck is not None else None


def _not_damaged(path: str, exc: BaseException) -> DatabaseError:
    return DatabaseError(
        f"reading {path} failed on a connection opened earlier (SQLite: {exc}), but the file "
        f"itself checks intact: rerun the command (or reload the page); nothing stored is lost"
    )


def _wrap(fn: Callable[..., Any], caught: tuple) -> Callable[..., Any]:
    """``fn`` with ``caught`` errors explained. A "damaged" error is believed only when a fresh
    check of the file agrees (what ``mallows db check`` would say): otherwise the store
    reconnects and a call is tried once more; a generator, already under way, says so."""
    if inspect.isgeneratorfunction(fn):

        @functools.wraps(fn)
        def gen(self: object, *args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                yield from fn(self, *args, **kwargs)
            except caught as exc:
                if _damage_said(exc) and _recheck(self):
                    raise _not_damaged(_path(self, args), exc) from None
                raise explain(_path(self, args), exc) from None

        return gen

    @functools.wraps(fn)
    def call(self: object, *args: Any, **kwargs: Any) -> Any:
        try:
            return fn(self, *args, **kwargs)
        except caught as exc:
            if not (_damage_said(exc) and _recheck(self)):
                raise explain(_path(self, args), exc) from None
            first = exc
        try:  # the file is intact and the connections new: once more
            return fn(self, *args, **kwargs)
        except caught as exc:
            if _damage_said(exc):
                raise _not_damaged(_path(self, args), first) from None
            raise explain(_path(self, args), exc) from None

    return call


def guard(*database_errors: type[BaseException]) -> Callable[[type[T]], type[T]]:
    """Class decorator: every public method (and ``__init__``) turns ``database_errors`` (the
    store passes ``sqlite3.Error``), ``OSError`` and undecodable stored values into a
    ``DatabaseError`` naming the file."""
    caught = _CAUGHT + database_errors

    def decorate(cls: type[T]) -> type[T]:
        for name, fn in list(vars(cls).items()):
            if inspect.isfunction(fn) and (not name.startswith("_") or name == "__init__"):
                setattr(cls, name, _wrap(fn, caught))
        return cls

    return decorate
