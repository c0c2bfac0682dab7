"""A tournament's replays as a few compressed data files, drawn by one replay page.

One page per match costs about 6 KB a Take4 match (and 4 KB of disk block each), so a report of
10^5 matches would be over 600 MB in 10^5 files. Instead ``mallows report`` writes, per
tournament, the replay page ``m/<slug>.html`` (it picks the match from the address:
``m/<slug>.html#<index>``) and the data files ``d/<slug>/<k>.js`` it reads.

A data file is a chunk of consecutive matches: one JSON object a line (``match_view``: the
result table, notes, players and the replay frames as ``site.compact`` deltas, without the
record's events, which the page does not draw), the lines gzip-compressed together (matches
share most of their words, so a chunk compresses far better than one match alone) and
base64-encoded into a script that hands them to the page::

    mallowsReplayChunk("<slug>", <k>, "<base64 of gzip>");

A script rather than a binary file fetched: a page opened from the file system may not
``fetch`` files beside it, but it may load scripts, so the same site works from ``file://``
and from any web server. The page decodes the base64, gunzips it with the browser's
``DecompressionStream`` and parses only the line of the match shown. A chunk holds at most
``CHUNK_MATCHES`` matches and ``CHUNK_BYTES`` of uncompressed lines, so a page never loads
much more than one match needs; ``index`` (embedded in the replay page) lists each chunk's
first and last match index. Output is deterministic (no time in the gzip header): the same
database writes the same bytes, which is what lets a later report take a data file of the last
one as it is (``replay_cache``: ``d/<slug>/cache.json`` lists what each file holds).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from mallows.report.replay_cache import Entry, KeyHash

#: Most matches in one data file (one file is decoded whole to show any of its matches).
CHUNK_MATCHES = 500
#: Most uncompressed bytes of lines in one data file (an Arschmallows match is ~25 KB).
CHUNK_BYTES = 4_000_000
#: Keys of a frame the replay page does not draw: left out of the data files.
UNDRAWN = ("event", "index", "actor")


def chunk_path(slug: str, k: int) -> str:
    return f"d/{slug}/{k}.js"


def script(slug: str, k: int, lines: list[str]) -> bytes:
    """The data file holding ``lines`` (one match's JSON each)."""
    packed = gzip.compress("\n".join(lines).encode(), compresslevel=9, mtime=0)
    return (
        f'mallowsReplayChunk({json.dumps(slug)},{k},"'.encode()
        + base64.b64encode(packed)
        + b'");\n'
    )


def drawn(deltas: list[dict]) -> list[dict]:
    """Compact frames without the keys the page does not draw."""
    return [{k: v for k, v in d.items() if k not in UNDRAWN} for d in deltas]


@dataclass
class Chunks:
    """Matches' lines gathered into data files: ``add`` each match in index order (with its
    ``replay_cache.match_key``), then ``close``; ``index`` is each file's [first, last] match
    index, ``entries`` what ``cache.json`` lists of each. ``reuse`` puts in an old report's
    data file as it is, before any match is added."""

    slug: str
    tournament: str = ""
    index: list[list[int]] = field(default_factory=list)
    entries: list[Entry] = field(default_factory=list)
    _lines: list[str] = field(default_factory=list)
    _bytes: int = 0
    _first: int | None = None
    _last: int | None = None
    _keys: KeyHash | None = None

    def add(self, idx: int, view: dict, key: str | None = None) -> Iterator[tuple[str, bytes]]:
        """Add match ``idx``; yields the data file it closed, if any."""
        line = json.dumps(dict(view, idx=idx), separators=(",", ":"), ensure_ascii=False)
        if self._lines and (
            len(self._lines) >= CHUNK_MATCHES or self._bytes + len(line) > CHUNK_BYTES
        ):
            yield self._cut(key, True)
        if self._first is None:
            self._first, self._keys = idx, KeyHash(self.tournament)
        assert self._keys is not None
        self._keys.add(key)
        self._last = idx
        self._lines.append(line)
        self._bytes += len(line)

    def close(self) -> Iterator[tuple[str, bytes]]:
        if self._lines:
            yield self._cut(None, False)

    def reuse(self, entry: Entry, content: bytes) -> tuple[str, bytes]:
        assert not self._lines, "old data files come before any new match"
        self.index.append([entry.first, entry.last])
        self.entries.append(entry)
        return chunk_path(self.slug, len(self.index) - 1), content

    def _cut(self, after: str | None, more: bool) -> tuple[str, bytes]:
        """The data file of the lines so far; ``after``: the key of the match that cut it
        (``more``: there is one)."""
        k = len(self.index)
        assert self._first is not None and self._last is not None and self._keys is not None
        key = self._keys.value() if after is not None or not more else None
        self.index.append([self._first, self._last])
        self.entries.append(Entry(self._first, self._last, len(self._lines), key, after))
        out = (chunk_path(self.slug, k), script(self.slug, k, self._lines))
        self._lines, self._bytes, self._first, self._last = [], 0, None, None
        return out
