"""Bot code as data: snapshots, their digests, submitted versions and short names.

A **snapshot** is every file of a bot, keyed by its path relative to the folder that holds the
bot: a single-file bot ``mybot.py`` is ``{"mybot.py": ...}``; a folder bot (a ``bot.toml``
manifest or a Python package) ``mybot/`` is ``{"mybot/bot.toml": ..., "mybot/bot.py": ...}``
(``__pycache__``, ``*.pyc`` and dot-files left out). Its ``entry`` is the top-level name
(``mybot.py`` or ``mybot``). Its **digest** is the sha256 over the sorted relative paths and
bytes, so the same code has the same digest wherever it lies, and one changed byte changes it.

Snapshots are stored in the database (``results.store``: ``snapshot_files``) and run from a
read-only folder in the cache, ``$MALLOWS_SNAPSHOTS`` or ``~/.cache/mallows/snapshots``
(``$XDG_CACHE_HOME``), one folder per digest (``materialise``), checked against its digest
before use. The registry loads them like any user bot: isolated, never in the platform's
process.

**Names.** A submitted version is ``NAME@N``. Everywhere a bot is shown it is its short name:
the manifest's or class's ``name`` (else the file or folder name), ``@N`` for a submission, and
its parameters sorted (``obslog:depth=3,log=x``); never a path. The database gives a second
code under a short name already taken a suffix (``obslog~2``, ``Store.display_name``).

This module imports no database and no Ray: the store keeps what it computes, and
``mallows.tournaments.pinning`` uses both.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from mallows import botname
from mallows.botname import BotName
from mallows.errors import BadNameError, BotError

if TYPE_CHECKING:
    from mallows.agents.registry import BotSpec

MAX_BYTES = 5 * 1024 * 1024  # a snapshot's files together, at most
MAX_FILES = 500
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
VERSION_RE = botname.VERSION_RE
log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Snapshot:
    files: dict  # relative path -> bytes
    entry: str  # the top-level file or folder the registry loads
    digest: str

    @property
    def size(self) -> int:
        return sum(len(b) for b in self.files.values())


def digest_files(files: dict[str, bytes]) -> str:
    """sha256 over the sorted relative paths and their bytes (each length-prefixed, so no
    two different file sets hash alike)."""
    h = hashlib.sha256()
    for path in sorted(files):
        raw = path.encode("utf-8")
        data = files[path]
        h.update(len(raw).to_bytes(8, "big") + raw + len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def _skipped(part: str) -> bool:
    return part == "__pycache__" or part.startswith(".") or part.endswith(".pyc")


def _refuse_odd(p: Path, what: str) -> None:
    """A file ``bots submit`` refuses: a hard link (its bytes are another file's, which could
    change under the snapshot's name) or a special file (a pipe, socket or device)."""
    try:
        st = os.lstat(p)
    except OSError as exc:
        raise BotError(f"{what}: {p} cannot be read ({exc.strerror})") from None
    if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
        raise BotError(
            f"{what}: {p} is a hard link ({st.st_nlink} names for one file): a "
            f"submission holds only files of its own; copy it (cp --remove-"
            f"destination) and submit again"
        )
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        kind = (
            "a named pipe"
            if stat.S_ISFIFO(st.st_mode)
            else "a socket"
            if stat.S_ISSOCK(st.st_mode)
            else "a device or special file"
        )
        raise BotError(
            f"{what}: {p} is {kind}, not a regular file: remove it from the bot's "
            f"folder and submit again"
        )


def read_files(path: Path, what: str, strict: bool = False) -> Snapshot:
    """The snapshot of the bot at ``path`` (a ``.py`` file or a bot folder). A bot over
    ``MAX_BYTES`` or ``MAX_FILES`` is refused with what to do; ``strict`` (``bots submit``):
    so is a hard link or a special file (``_refuse_odd``)."""
    path = path.resolve()
    if path.is_file() and path.name == "bot.toml":
        path = path.parent
    files: dict[str, bytes] = {}
    total = 0
    if path.is_file():
        candidates = [path]
    else:
        candidates = sorted(
            p
            for p in path.rglob("*")
            if not any(_skipped(part) for part in p.relative_to(path).parts)
        )
    for p in candidates:
        if strict:
            _refuse_odd(p, what)
        if p.is_symlink() and not p.resolve().is_relative_to(
            path if path.is_dir() else path.parent
        ):
            raise BotError(
                f"{what}: {p} is a link to {p.resolve()}, outside the bot: copy the "
                f"file into the bot's folder"
            )
        if not p.is_file():
            continue
        if len(files) >= MAX_FILES:
            raise BotError(
                f"{what}: more than {MAX_FILES} files under {path}: a bot is its "
                f"source, not its data; move the rest out of the folder"
            )
        total += p.stat().st_size  # before reading: a huge file is refused, not loaded
        if total > MAX_BYTES:
            raise BotError(
                f"{what}: its files come to more than {MAX_BYTES // (1024 * 1024)} "
                f"MiB (at {p.relative_to(path.parent)}): a snapshot keeps every "
                f"file in the database, so leave out data, logs and build output "
                f"(move them out of {path})"
            )
        files[p.relative_to(path.parent).as_posix()] = p.read_bytes()
    if not files:
        raise BotError(f"{what}: no files in {path}")
    return Snapshot(files, path.name, digest_files(files))


def entry_point_digest(ep: importlib.metadata.EntryPoint) -> str:
    """An entry-point bot's code identity: its distribution's files (name, version and the
    bytes of every file it installed), else the entry point's text."""
    dist = getattr(ep, "dist", None)
    h = hashlib.sha256(f"{ep.name}={ep.value}".encode())
    if dist is not None:
        h.update(f"{dist.name} {dist.version}".encode())
        for f in sorted(dist.files or [], key=str):
            if str(f).endswith((".py", ".toml", ".json", ".so", ".pyd")):
                try:
                    h.update(str(f).encode() + Path(f.locate()).read_bytes())
                except OSError:
                    h.update(str(f).encode())
    return h.hexdigest()


def code_of(spec: BotSpec) -> tuple[str, Snapshot | None]:
    """``(digest, snapshot)`` of the code a resolved ``BotSpec`` runs: a snapshot for a bot
    loaded from files (``bots/``, a path, a snapshot); for an entry point, the distribution's
    digest and no snapshot."""
    if spec.origin == "entry point":
        ep = next(
            (
                e
                for e in importlib.metadata.entry_points(group="mallows.bots")
                if e.name == spec.base
            ),
            None,
        )
        return (entry_point_digest(ep) if ep is not None else ""), None
    if spec.kind == "human":  # a person (mallows.agents.human): no code to fix
        return "human", None
    folder = spec.cwd if spec.kind == "subprocess" else spec.target
    assert folder is not None  # a bot resolved from files has them
    root = Path(folder)
    snap = read_files(root, f"bot {spec.name!r}")
    return snap.digest, snap


def short_name(spec: BotSpec, version: int | None = None, name: str | None = None) -> str:
    """``name`` (default: the bot's own ``name``, else its file or folder name), ``@version``
    for a submission, and its parameters sorted."""
    base = name or spec.bot_name or spec.base
    # letters, digits, . _ - only: no path, and nothing that reads as @N, ~N or parameters
    base = re.sub(r"[^A-Za-z0-9._-]+", "-", str(base).strip()).strip("-.") or "bot"
    return str(BotName(base, version).with_params(spec.params).canonical())


# endings that make a name read as a file: ``--bot mybot.py`` must mean the file
FILE_SUFFIXES = (
    ".py",
    ".toml",
    ".pyc",
    ".pyz",
    ".js",
    ".mjs",
    ".ts",
    ".json",
    ".sh",
    ".exe",
    ".bin",
    ".zip",
    ".tar",
    ".gz",
    ".whl",
)


def name_owner(name: str, submitted: Path | None = None) -> str | None:
    """Which bot the registry already resolves ``name`` to, said for a message (a file or
    folder in a bots directory, an entry point, a file or folder of that name here), or
    None. A submission may not take such a name: it would shadow that bot or be shadowed.
    ``submitted``: the file or folder being submitted, which does not count as another bot."""
    from mallows.agents import registry

    def same(path: Path) -> bool:
        try:
            return submitted is not None and path.resolve() == Path(submitted).resolve()
        except OSError:
            return False

    if name in registry.SHIPPED:
        return f"the bot {name!r} shipped with mallows"
    for d in registry.search_dirs():
        for candidate in (d / f"{name}.py", d / name):
            if candidate.exists() and not same(candidate):
                return f"the bot {name!r} in {candidate}"
    for ep in importlib.metadata.entry_points(group=registry.ENTRY_POINT_GROUP):
        if ep.name == name:
            return f"the installed entry point {name!r} ({ep.value})"
    here = Path(name)
    if here.exists() and not same(here):
        return f"the {'folder' if here.is_dir() else 'file'} {str(here.resolve())!r} here"
    return None


def check_submission_name(
    name: str, shipped: Iterable[str] = (), submitted: Path | None = None
) -> str:
    """A submission's name: a plain identifier (letters, digits, ``.``, ``_``, ``-``; no
    ``/``, ``@``, ``:``, control character or file suffix) that no other bot already has
    (``name_owner``; ``submitted``: the bot's own file or folder). ``BadNameError`` says
    why."""
    from mallows.safetext import refuse_control

    refuse_control(name, "--name", "--name mybot")
    if not NAME_RE.fullmatch(name):
        raise BadNameError(
            f"--name {name!r}: use letters, digits, '.', '_' or '-' (up to 64, "
            f"no '/', '@', ':' or spaces), for example --name mybot"
        )
    if name.lower().endswith(FILE_SUFFIXES):
        stem = name[: name.rindex(".")] or "mybot"
        raise BadNameError(
            f"--name {name!r} ends like a file name: --bot {name} would mean a "
            f"file, so give a plain name, for example --name {stem}"
        )
    owner = "the bot shipped with mallows" if name in shipped else None
    owner = name_owner(name, submitted) or owner
    if owner is not None:
        raise BadNameError(
            f"--name {name!r} is taken by {owner}: a submission may not "
            f"borrow another bot's name; give yours another, for example "
            f"--name my-{name}"
        )
    return name


def parse_version(base: str) -> tuple[str, int] | None:
    """``"mybot@3"`` -> ``("mybot", 3)``; None for a name without ``@N``
    (``mallows.botname``)."""
    return botname.parse_version(base)


def newest_versions(rows: list[dict]) -> list[dict]:
    """A leaderboard (rows with ``bot`` and ``rank``, best first) keeping, of every submitted
    bot (``NAME@N``, any parameters), only its highest ``N``; ranks renumbered."""
    newest: dict[tuple, int] = {}
    keyed = []
    for r in rows:
        name = BotName.parse(r["bot"], strict=False)
        key = (name.base, name.params) if name.version is not None else None
        if key is not None and name.version is not None:
            newest[key] = max(newest.get(key, 0), name.version)
        keyed.append((r, key, name.version))
    out = [dict(r) for r, key, n in keyed if key is None or newest[key] == n]
    for rank, r in enumerate(out, 1):
        r["rank"] = rank
    return out


# -- the cache of materialised snapshots --------------------------------------------------------


def cache_root() -> Path:
    env = os.environ.get("MALLOWS_SNAPSHOTS")
    if env:
        return Path(env).resolve()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mallows" / "snapshots"


def materialised(digest: str) -> Path | None:
    """The folder holding snapshot ``digest`` here, if it is there and holds exactly the
    snapshot: every file (a ``__pycache__``, ``.pyc`` or dot-file included, which a snapshot
    never has) counts, and anything but folders and regular files is wrong. A folder that
    differs is reported (a warning) and ``None`` returned: ``materialise`` rebuilds it."""
    folder = cache_root() / digest
    if not folder.is_dir():
        return None
    files: dict[str, bytes] = {}
    odd = []
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            mode = os.lstat(p).st_mode
            if stat.S_ISDIR(mode):
                if any(_skipped(part) for part in p.relative_to(folder).parts):
                    odd.append(p.relative_to(folder).as_posix() + "/")
                continue
            rel = p.relative_to(folder).as_posix()
            if not stat.S_ISREG(mode):
                odd.append(rel)
                continue
            if any(_skipped(part) for part in p.relative_to(folder).parts):
                odd.append(rel)
            files[rel] = p.read_bytes()
    if odd or digest_files(files) != digest:
        log.warning(
            "the snapshot folder %s does not hold exactly snapshot %s%s: it is rebuilt",
            folder,
            digest[:12],
            f" ({', '.join(sorted(odd)[:5])} should not be there)" if odd else "",
        )
        return None
    return folder


def materialise(digest: str, files: dict[str, bytes]) -> Path:
    """Write a snapshot, read-only, into ``cache_root()/digest`` (once; atomically, so two
    processes may race) and return that folder. Files whose digest is not ``digest`` are
    refused: the database was damaged."""
    if digest_files(files) != digest:
        raise BotError(
            f"snapshot {digest[:12]} in the database does not match its digest: "
            f"the database is damaged; submit the bot again"
        )
    folder = materialised(digest)
    if folder is not None:
        return folder
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    _sweep_partial(root)
    target = root / digest
    if target.exists():  # damaged or partial: replace it
        _make_writable(target)
        shutil.rmtree(target, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-{os.getpid()}-", dir=root))
    for rel, data in files.items():
        path = tmp / rel
        if ".." in Path(rel).parts or Path(rel).is_absolute():
            raise BotError(f"snapshot {digest[:12]}: bad path {rel!r} in the database")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        mode = 0o555 if data.startswith((b"#!", b"\x7fELF")) else 0o444
        path.chmod(mode)
    for d in sorted((p for p in tmp.rglob("*") if p.is_dir()), reverse=True):
        d.chmod(0o555)
    tmp.chmod(0o555)
    try:
        tmp.rename(target)
    except OSError:  # another process got there first
        _make_writable(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _sweep_partial(root: Path) -> None:
    """Remove the read-only half-written snapshots (``.<digest>-<pid>-<random>``) of processes
    that were killed while they wrote one (``bots submit`` under ``kill -9``); one of a name
    without a pid (written before the pid was in the name) once it is an hour old."""
    import time

    try:
        entries = list(root.iterdir())
    except OSError:
        return
    for entry in entries:
        parts = entry.name.split("-")
        if not entry.name.startswith(".") or len(parts) < 2 or len(parts[0]) != 13:
            continue
        if len(parts) >= 3 and parts[1].isdigit():
            try:
                os.kill(int(parts[1]), 0)
                continue  # its writer is alive
            except ProcessLookupError:
                pass
            except OSError:
                continue
        else:
            try:
                if time.time() - entry.stat().st_mtime < 3600:
                    continue
            except OSError:
                continue
        _make_writable(entry)
        shutil.rmtree(entry, ignore_errors=True)


def _make_writable(folder: Path) -> None:
    for p in [folder, *folder.rglob("*")]:
        try:
            p.chmod(0o755 if p.is_dir() else 0o644)
        except OSError:
            pass
