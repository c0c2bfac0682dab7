"""A bot archive sent to ``POST /api/bots``, unpacked safely or refused with why.

Owns ``unpack(data, into)``: a zip or a tar.gz (told by its first bytes) of at most
``MAX_ARCHIVE`` bytes, ``MAX_FILES`` members and ``MAX_UNPACKED`` bytes unpacked (the members'
declared sizes are summed before anything is written, and the bytes written are counted too);
every name relative, without ``..``, without a drive or a backslash, at most ``MAX_NAME``
characters; only regular files and folders: a symbolic or hard link, a device, a FIFO is
refused. Nothing is written before the whole list of members passed.
"""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

from mallows.errors import BotError

#: The largest archive taken (the request is refused by its length before it is read).
MAX_ARCHIVE = 1024 * 1024
#: What an archive may unpack to (the snapshot limits of ``agents.submissions``).
MAX_UNPACKED = 5 * 1024 * 1024
MAX_FILES = 500
MAX_NAME = 200


def _checked_name(name: str) -> PurePosixPath:
    path = PurePosixPath(name)
    if (
        not name
        or len(name) > MAX_NAME
        or name.startswith("/")
        or "\\" in name
        or ":" in path.parts[0]
        or ".." in path.parts
        or any(ord(c) < 32 for c in name)
    ):
        raise BotError(
            f"archive member {name[:80]!r}: names must be relative paths inside the bot's "
            f"folder (no /, .., drive or control character, at most {MAX_NAME} characters)"
        )
    return path


def _members(data: bytes) -> list[tuple[PurePosixPath, int, bool, Any]]:
    """(name, size, is a folder, handle) of every member; refused as a whole when one is not a
    plain file or folder."""
    out: list[tuple[PurePosixPath, int, bool, Any]] = []
    if data[:4] == b"PK\x03\x04":
        archive = zipfile.ZipFile(io.BytesIO(data))
        for info in archive.infolist():
            mode = info.external_attr >> 16
            kind = stat.S_IFMT(mode) if mode else 0
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise BotError(
                    f"archive member {info.filename!r} is a link or a special file: send "
                    f"plain files only"
                )
            out.append((_checked_name(info.filename), info.file_size, info.is_dir(), info))
        return out
    if data[:2] == b"\x1f\x8b":
        try:
            tar = tarfile.open(fileobj=io.BytesIO(data), mode="r:gz")
            members = tar.getmembers()
        except (tarfile.TarError, EOFError, OSError) as exc:
            raise BotError(f"the archive cannot be read as a tar.gz ({exc})") from None
        for m in members:
            if not (m.isfile() or m.isdir()):
                raise BotError(
                    f"archive member {m.name!r} is a link or a special file: send plain files only"
                )
            out.append((_checked_name(m.name), m.size, m.isdir(), (tar, m)))
        return out
    raise BotError("the upload is neither a zip nor a tar.gz: pack the bot's folder as one")


def unpack(data: bytes, into: Path) -> Path:
    """Unpack the archive ``data`` into the empty folder ``into``; returns the bot's folder
    (``into``, or its one top folder when every member is inside one)."""
    if len(data) > MAX_ARCHIVE:
        raise BotError(f"the archive is over {MAX_ARCHIVE} bytes: send a smaller bot")
    try:
        members = _members(data)
    except zipfile.BadZipFile as exc:
        raise BotError(f"the archive cannot be read as a zip ({exc})") from None
    files = [m for m in members if not m[2]]
    if len(files) > MAX_FILES:
        raise BotError(f"the archive has {len(files)} files: at most {MAX_FILES}")
    if sum(m[1] for m in files) > MAX_UNPACKED:
        raise BotError(f"the archive unpacks to over {MAX_UNPACKED} bytes: send a smaller bot")
    if not files:
        raise BotError("the archive holds no file: pack the bot's .py file or folder")
    written = 0
    for name, _, is_dir, handle in members:
        target = into.joinpath(*name.parts)
        if is_dir:
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(handle, zipfile.ZipInfo):
            with zipfile.ZipFile(io.BytesIO(data)).open(handle) as src:
                content = src.read(MAX_UNPACKED + 1)
        else:
            tar, member = handle
            stream = tar.extractfile(member)
            content = stream.read(MAX_UNPACKED + 1) if stream is not None else b""
        written += len(content)
        if written > MAX_UNPACKED:  # a member that lied about its size
            raise BotError(f"the archive unpacks to over {MAX_UNPACKED} bytes")
        target.write_bytes(content)
    tops = {m[0].parts[0] for m in members}
    if len(tops) == 1 and into.joinpath(next(iter(tops))).is_dir():
        return into / next(iter(tops))
    return into
