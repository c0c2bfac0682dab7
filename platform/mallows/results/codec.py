"""Record encoding: a match record's JSON text <-> the compact bytes the store keeps. Pure.

Records are stored zstd-compressed. Records of one game share most of their text (keys, event
types, options), so each game gets a zstd *dictionary* trained on its own first records; the
store keeps every dictionary in the database (table ``dictionaries``) next to the records it
decodes, so a database stays readable on its own whatever version of mallows opens it.

A stored record carries a codec number: ``None`` = plain JSON text (schema 1 rows, never written
now), ``0`` = zstd without a dictionary (a game's first records, before there are enough to
train one), ``n > 0`` = zstd with dictionary ``n``. Decoding gives back exactly the JSON text
that was encoded (byte for byte), so a record's digest, replay and export are unchanged.

What one record may cost is bounded: a record is at most ``MAX_RECORD_BYTES`` of JSON text. A
stored frame whose header claims more (or does not say how much), or whose data would decode to
more, is refused as damaged (``RecordTooLarge``) before anything of that size is allocated; and
a record over the bound is never written (``Codec.encode`` refuses it), so every stored record
reads back.
"""

from __future__ import annotations

import threading

import zstandard

from mallows.errors import RecordTooLarge

LEVEL = 3  # zstd level: ~30 us per Arschmallows record with a dictionary
DICT_SIZE = 16 * 1024  # bytes; 16 KiB measured best at level 3 for both games
TRAIN_AT = 256  # a game's dictionary is trained once it has this many records
NO_DICT = 0
# What a stored 4-seat random-bot match adds to a database (rows, indexes, page slack), as
# measured by benchmarks/bench_storage.py; other seat counts scale with the seats. For
# estimates only (a tournament's size before it runs).
BYTES_PER_MATCH = {"arschmallows": 1450, "take4": 700}
DEFAULT_BYTES_PER_MATCH = 1500
# The most JSON text one record may hold, and so the most that decoding one record allocates.
# Real matches stay far below it: six random bots that never call, every round to its 500-turn
# limit, make 86 KB of record over 6 rounds and 1.4 MB over 100 (the most rounds allowed); only
# a turn limit raised far beyond its default could make a match reach it, and then that match's
# record is refused on writing, with this message, rather than stored unreadable.
MAX_RECORD_BYTES = 64 * 1024 * 1024


def estimated_bytes(game: str, players: int, matches: int) -> int:
    """About how much ``matches`` stored matches of ``game`` at ``players`` seats take."""
    per = BYTES_PER_MATCH.get(game, DEFAULT_BYTES_PER_MATCH) * max(1, players) / 4
    return int(per * matches)


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000
    return f"{n:.1f} TB"


class Codec:
    """Compressor and decompressor for one codec number (``dictionary`` bytes or None).

    zstd's compressor and decompressor objects are not thread-safe: two threads decoding at
    once through one (``serve``'s pages, its boards' thread) read each other's state and
    raised "Data corruption detected" on a healthy database, reported as damaged. Each use
    holds the codec's lock."""

    def __init__(self, number: int, dictionary: bytes | None = None):
        self.number = number
        d = zstandard.ZstdCompressionDict(dictionary) if dictionary else None
        if d is not None:
            d.precompute_compress(level=LEVEL)  # else every compress() loads it again (~0.5 ms)
        self._c = zstandard.ZstdCompressor(level=LEVEL, dict_data=d, write_content_size=True)
        self._d = zstandard.ZstdDecompressor(dict_data=d)
        self._lock = threading.Lock()

    def encode(self, text: str) -> bytes:
        data = text.encode("utf-8")
        if len(data) > MAX_RECORD_BYTES:
            raise RecordTooLarge(
                f"a match record of {human_bytes(len(data))} is over the "
                f"{human_bytes(MAX_RECORD_BYTES)} a record may hold"
            )
        with self._lock:
            return self._c.compress(data)

    def decode(self, blob: bytes) -> str:
        """The text of a stored frame, refused (``RecordTooLarge``, or zstd's own error for
        bytes that are no frame) before decoding more than ``MAX_RECORD_BYTES``."""
        claimed = zstandard.get_frame_parameters(blob).content_size
        if claimed == zstandard.CONTENTSIZE_UNKNOWN:
            raise RecordTooLarge("its compressed frame does not say how large the record is")
        if claimed > MAX_RECORD_BYTES:
            raise RecordTooLarge(
                f"its compressed frame claims {human_bytes(claimed)}, over the "
                f"{human_bytes(MAX_RECORD_BYTES)} a record may hold"
            )
        # the claim bounds the output buffer; a frame that decodes to more than it claims is
        # an error of zstd's own (the data are corrupt), never a bigger allocation
        with self._lock:
            data = self._d.decompress(blob, max_output_size=MAX_RECORD_BYTES)
        return data.decode("utf-8")


def train(samples: list[str]) -> bytes | None:
    """A dictionary trained on ``samples`` (record JSON texts), or None when zstd cannot train
    one from them (too few or too small: the game keeps codec 0)."""
    data: list[bytes | bytearray | memoryview] = [s.encode("utf-8") for s in samples]
    size = min(DICT_SIZE, max(1024, sum(map(len, data)) // 10))
    try:
        return zstandard.train_dictionary(size, data, level=LEVEL).as_bytes()
    except zstandard.ZstdError:
        return None
