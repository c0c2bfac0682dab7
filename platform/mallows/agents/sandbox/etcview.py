"""What of ``/etc`` a bot sees: the few files a dynamic linker or runtime reads, as one
read-only folder.

``ETC_FILES`` names them (no user database, no secrets). Bound one by one they cost a mount
apiece in every sandbox, and bwrap reads the whole mount table again for every mount it makes
(``benchmarks/bench_sandbox.py`` measures a start). So ``etc_argv()`` binds one folder at
``/etc`` instead: a copy of those entries, made the way they look through a bind (an entry
that is a link is copied as what it points to; inside a folder, links stay links and files
every user may read are copied, read-only).

The copy is shared by this user's platform processes (``snapshot.publish``, in ``/dev/shm``)
and named by a fingerprint of what it copies (each entry's type, size, modification time,
inode and link target), worked out once per process: a changed file (a new ``ld.so.cache``
once a library is installed) gets a new copy at the next start of the platform, and an old
copy is never changed or removed under a sandbox that binds it. Where no shared copy can be
made or trusted, the process makes its own (removed at exit, or with the run's scratch
folder); where none can be made at all, the entries are bound one by one as before.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import stat
import tempfile

from mallows.agents.sandbox.snapshot import SCRATCH_ENV, copy_file, publish, readable

# What the dynamic linker and common runtimes read in /etc (no user database, no secrets).
ETC_FILES = (
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "alternatives",
    "nsswitch.conf",
    "ssl/certs",
    "mime.types",
)
_FOLDER: dict[tuple[str, str], str | None] = {}  # (root, memory) -> the copy (None: none)


def _walk(src: str, rel: str, top: bool) -> list[tuple[str, str, os.stat_result, str]]:
    """``(path, relative name, stat, link target)`` of ``src`` and, for a folder, everything
    under it, as a bind shows it: ``top`` follows a link, below it links are kept."""
    try:
        st = os.stat(src) if top else os.lstat(src)
    except OSError:
        return []
    link = "" if top or not stat.S_ISLNK(st.st_mode) else os.readlink(src)
    out = [(src, rel, st, link)]
    if stat.S_ISDIR(st.st_mode) and not link and st.st_mode & 0o005 == 0o005:
        try:
            names = sorted(os.listdir(src))
        except OSError:
            names = []
        for name in names:
            out += _walk(os.path.join(src, name), f"{rel}/{name}", False)
    return out


def entries(root: str = "/etc") -> list[tuple[str, str, os.stat_result, str]]:
    """Every file, folder and link the copy of ``root`` holds (``_walk``), in order."""
    out = []
    for name in ETC_FILES:
        out += _walk(os.path.join(root, name), name, True)
    return out


def fingerprint(found: list[tuple[str, str, os.stat_result, str]]) -> str:
    """What names a copy: a hash of every entry's name, type, mode, size, modification time,
    inode and link target."""
    h = hashlib.sha256()
    for _, rel, st, link in found:
        h.update(
            f"{rel}\0{st.st_mode}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ino}\0{link}\n".encode(
                "utf-8", "surrogateescape"
            )
        )
    return h.hexdigest()[:24]


def fill(folder: str, found: list[tuple[str, str, os.stat_result, str]]) -> None:
    """Copy ``found`` into ``folder``: folders (0755), links, and files every user may read
    (read-only); the parents of a nested entry (``ssl`` of ``ssl/certs``) are made."""
    for src, rel, st, link in found:
        dst = os.path.join(folder, rel)
        os.makedirs(os.path.dirname(dst), mode=0o755, exist_ok=True)
        if link:
            os.symlink(link, dst)
        elif stat.S_ISDIR(st.st_mode):
            os.makedirs(dst, mode=0o755, exist_ok=True)  # (its entries only if it is readable)
        elif stat.S_ISREG(st.st_mode) and readable(st.st_mode):
            copy_file(src, dst, limit=None)  # whole, as a bind showed it (a big CA bundle too)


def etc_folder(root: str = "/etc", memory: str = "/dev/shm") -> str | None:
    """The copy of ``root``'s ``ETC_FILES`` this process binds (see the module docstring),
    shared in ``memory`` where it can be; made once per process; None if none can be made."""
    key = (root, memory)
    if key not in _FOLDER:
        found = entries(root)
        here = memory if os.path.isdir(memory) and os.access(memory, os.W_OK) else None
        scratch = os.environ.get(SCRATCH_ENV)
        name = f"mallows-etc-{os.geteuid()}-{fingerprint(found)}"
        made = None
        if here is not None and not scratch:
            made = publish(here, name, lambda folder: fill(folder, found))
        if made is None:
            try:
                where = scratch if scratch and os.path.isdir(scratch) else here
                made = tempfile.mkdtemp(prefix="mallows-etc-", dir=where)
                atexit.register(shutil.rmtree, made, True)
                fill(made, found)
                os.chmod(made, 0o755)
            except OSError:
                made = None
        _FOLDER[key] = made
    return _FOLDER[key]


def etc_argv() -> list[str]:
    """bwrap's options for ``/etc``: the copy bound read-only, or else each entry on its own."""
    folder = etc_folder()
    if folder is not None:
        return ["--ro-bind", folder, "/etc"]
    argv = []
    for name in ETC_FILES:
        argv += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return argv
