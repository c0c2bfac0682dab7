"""Replay data kept between reports: a data file of the report already at ``-o`` is used again
as it is while the matches it holds are unchanged, so a rerun replays only what is new.

A data file (``replay_data``) costs the replay of each of its matches through the engine, over
a millisecond a match: a report of 10^5 matches would spend minutes redoing what the last one
did. So beside each tournament's data files the report writes ``d/<slug>/cache.json``:

- ``code``: a fingerprint of everything a data file is made from (the package version and the
  source of ``mallows.report`` and ``mallows.games``); another one and nothing is used again;
- ``files``: per data file, in order, its first and last match index, its number of matches,
  ``key`` (a hash over the tournament's name and each of its matches' index and stored digest,
  or null: a file holding a damaged match, or one stored without a digest, is never used
  again) and ``next`` (the index and digest of the match after it, whose line decided where
  the file was cut, or null for the last file).

The next report to the same folder reads the stored digests in order (no record is read) and,
while they hash to a file's ``key`` and the match after it is the same ``next``, copies that
file from the old site; from the first file that differs on, every match is replayed as from
scratch. A data file depends only on its matches and on where it was cut, so the site is the
same, byte for byte, as one written from scratch (``cache.json`` included). What is trusted is
the stored digest: a record damaged on disk since the last report is not read again here
(``mallows db check`` reads every record).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

#: bumped when ``cache.json`` changes meaning
FORMAT = 1


def cache_path(slug: str) -> str:
    return f"d/{slug}/cache.json"


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of what makes a data file: this package's version and the source of the report
    and of every game (a changed replay face, summary or narration: other data files)."""
    import mallows

    h = hashlib.blake2b(digest_size=16)
    h.update(f"{FORMAT} {getattr(mallows, '__version__', '')}".encode())
    for package in ("mallows.report", "mallows.games"):
        root = Path(str(resources.files(package)))
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".js") and path.is_file():
                h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def match_key(idx: int, digest: str | None) -> str | None:
    """What identifies a stored match to the cache (None: nothing, it is replayed each time)."""
    return None if digest is None else f"{idx}:{digest}"


@dataclass
class Entry:
    """One data file as ``cache.json`` lists it."""

    first: int
    last: int
    count: int
    key: str | None
    next: str | None

    def as_json(self) -> list:
        return [self.first, self.last, self.count, self.key, self.next]


@dataclass
class KeyHash:
    """The running ``key`` of the data file being filled."""

    tournament: str
    _h: Any = field(init=False)
    ok: bool = True

    def __post_init__(self) -> None:
        self._h = hashlib.blake2b(self.tournament.encode(), digest_size=16)

    def add(self, key: str | None) -> None:
        if key is None:
            self.ok = False
        else:
            self._h.update(key.encode() + b"\0")

    def value(self) -> str | None:
        return self._h.hexdigest() if self.ok else None


def file_key(tournament: str, keys: Iterable[str | None]) -> str | None:
    h = KeyHash(tournament)
    for k in keys:
        h.add(k)
    return h.value()


def manifest(entries: list[Entry]) -> bytes:
    """``cache.json``'s content."""
    return (
        json.dumps(
            {"format": FORMAT, "code": code_fingerprint(), "files": [e.as_json() for e in entries]},
            separators=(",", ":"),
        )
        + "\n"
    ).encode()


def previous(folder: Path | None, slug: str) -> list[Entry]:
    """The data files the report at ``folder`` lists for ``slug`` that were made by this code
    (empty: no such report, another code, or a list that does not read)."""
    if folder is None:
        return []
    try:
        found = json.loads((Path(folder) / cache_path(slug)).read_text())
        if found.get("format") != FORMAT or found.get("code") != code_fingerprint():
            return []
        return [_entry(e) for e in found["files"]]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


def _entry(listed: list) -> Entry:
    """One listed data file, its types checked (anything else: the list is not used)."""
    first, last, count, key, after = listed
    numbers = all(isinstance(v, int) and not isinstance(v, bool) for v in (first, last, count))
    texts = all(v is None or isinstance(v, str) for v in (key, after))
    if not (numbers and texts and count >= 1 and first <= last):
        raise ValueError(listed)
    return Entry(first, last, count, key, after)


class Lookahead:
    """An iterator of (index, digest) that can take back what it gave."""

    def __init__(self, items: Iterator[tuple[int, str | None]]):
        self._items = items
        self._back: list[tuple[int, str | None]] = []

    def __iter__(self) -> Iterator[tuple[int, str | None]]:
        return self

    def __next__(self) -> tuple[int, str | None]:
        return self._back.pop() if self._back else next(self._items)

    def take(self, n: int) -> list[tuple[int, str | None]]:
        out = []
        for item in self:
            out.append(item)
            if len(out) >= n:
                break
        return out

    def give_back(self, items: list[tuple[int, str | None]]) -> None:
        self._back.extend(reversed(items))

    def peek(self) -> tuple[int, str | None] | None:
        got = self.take(1)
        self.give_back(got)
        return got[0] if got else None


def reusable(
    entries: list[Entry],
    folder: Path,
    tournament: str,
    stream: Lookahead,
    path_of: Callable[[int], str],
) -> Iterator[tuple[Entry, bytes]]:
    """The leading data files of the old report that hold exactly the next matches of
    ``stream`` (consumed as they are used; the first file that differs is given back)."""
    for k, entry in enumerate(entries):
        if entry.key is None:
            return
        taken = stream.take(entry.count)
        after = stream.peek()
        same = (
            len(taken) == entry.count
            and taken[0][0] == entry.first
            and taken[-1][0] == entry.last
            and file_key(tournament, [match_key(i, d) for i, d in taken]) == entry.key
            and (None if after is None else match_key(*after)) == entry.next
            and (after is None) == (entry.next is None)
        )
        content = _read(folder / path_of(k)) if same else None
        if content is None:
            stream.give_back(taken)
            return
        yield entry, content


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None
