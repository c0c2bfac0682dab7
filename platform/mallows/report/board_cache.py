"""The boards' fold states a written report keeps, so its next run rates only new matches.

A report writes, beside its pages, ``cache/t-<tournament slug>.json`` and
``cache/g-<game slug>.json``: each board's ``fold.BoardFold`` state after the stored results it
folded, with how many rows that was, a hash of those rows (``chain``: each row's tournament,
index, players and ranks as stored, and a hash of its tournament's definition, whose deals the
seat effects count) and a ``key`` (a hash of all else the fold depends on: the board, its
rating parameters, the fold's version). The next
report over the same folder (``Site.write``: the report at ``-o``) reads the rows in rating
order, hashes the first ``rows`` of them, and when hash and key agree goes on from the state
with the rows after them; anything else (another board, a match changed, deleted or stored
between older ones, a file damaged or from another version) is folded from the first row. So
the tables are those of a report from scratch, bit for bit, in every case.

Files are only read from the previous report and only written into the new one (``files``);
a state is JSON, never code.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Callable, Iterable, Iterator

from mallows.report.data import slug
from mallows.report.fold import MAX_POINTS, BoardFold

#: a state written by another version of the fold is not used (folded from the first row);
#: 2: a rating is kept as the mu and sigma it was made from (version 1's resumed a bit off)
VERSION = 2
FOLDER = "cache"

Row = tuple[str, int, str, str]  # ResultStore.rated_rows: tournament, index, players, ranks


def path(scope: str, name: str) -> str:
    """Where a board's state is kept in a report: ``t-`` a tournament's, ``g-`` a game's, by
    the name's slug."""
    return f"{FOLDER}/{'t' if scope == 'tournament' else 'g'}-{slug(name)}.json"


def _hash(value: object) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def key(scope: str, name: str, params: dict, humans: bool) -> str:
    """A hash of everything the board's fold depends on besides its rows."""
    return _hash([VERSION, MAX_POINTS, scope, name, params, humans])


class _Chain:
    """The running hash of the rows folded, each with its tournament's definition's hash (a
    game's board: a tournament added after the others is rows added at the end)."""

    def __init__(self, definitions: dict[str, dict]) -> None:
        self.definitions = definitions
        self.tags: dict[str, str] = {}
        self.hash = hashlib.blake2b(digest_size=16)
        self.count = 0

    def add(self, row: Row) -> None:
        tournament, index, players, ranks = row
        tag = self.tags.get(tournament)
        if tag is None:
            tag = self.tags[tournament] = _hash(self.definitions.get(tournament))
        self.hash.update(f"{tournament}\x00{tag}\x00{index}\x00{players}\x00{ranks}\n".encode())
        self.count += 1


class BoardCache:
    """The states of the report at ``previous`` (None: none) and those of this one."""

    def __init__(self, previous: Path | None) -> None:
        self.previous = previous
        self.written: dict[str, bytes] = {}

    def _kept(self, at: str, wanted: str) -> dict | None:
        if self.previous is None:
            return None
        try:
            kept = json.loads((self.previous / at).read_bytes())
        except (OSError, ValueError):
            return None
        if not isinstance(kept, dict) or kept.get("key") != wanted:
            return None
        return kept

    def fold(
        self,
        scope: str,
        name: str,
        rows: Callable[[], Iterable[Row]],
        params: dict,
        definitions: dict[str, dict],
        humans: bool,
    ) -> BoardFold:
        """The board's fold over ``rows()`` (rating order), going on from the previous
        report's state where it still holds; the new state is kept for ``files``."""
        at, wanted = path(scope, name), key(scope, name, params, humans)
        kept = self._kept(at, wanted)
        chain, stream = _Chain(definitions), iter(rows())
        fold = (
            None if kept is None else self._resume(kept, stream, chain, params, definitions, humans)
        )
        if fold is None:  # from the first row
            chain, stream = _Chain(definitions), iter(rows())
            fold = BoardFold(params, definitions, humans)
        for row in stream:
            chain.add(row)
            fold.add(row[0], row[1], json.loads(row[2]), json.loads(row[3]))
        state = {
            "key": wanted,
            "rows": chain.count,
            "chain": chain.hash.hexdigest(),
            "state": fold.state(),
        }
        self.written[at] = json.dumps(state, separators=(",", ":")).encode()
        return fold

    @staticmethod
    def _resume(
        kept: dict,
        stream: Iterator[Row],
        chain: _Chain,
        params: dict,
        definitions: dict[str, dict],
        humans: bool,
    ) -> BoardFold | None:
        """Hash the first ``kept["rows"]`` rows of ``stream`` into ``chain``; the kept fold
        when they are the rows it folded (else None: fold from the first row)."""
        wanted = kept.get("rows")
        if not isinstance(wanted, int) or wanted < 0:
            return None
        if wanted:
            for row in stream:
                chain.add(row)
                if chain.count == wanted:
                    break
        if chain.count != wanted or chain.hash.hexdigest() != kept.get("chain"):
            return None
        try:
            return BoardFold.from_state(kept["state"], params, definitions, humans)
        except (KeyError, TypeError, ValueError, IndexError, AttributeError):
            return None

    def files(self) -> Iterator[tuple[str, bytes]]:
        """The states of this report's boards, to write beside its pages."""
        yield from sorted(self.written.items())
