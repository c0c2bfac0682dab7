"""The JSON codec of the protocol v1 wire format, shared by both ends of an isolated bot.

One message is one line of compact JSON. A line may end in CRLF (``\r`` is JSON whitespace) and
may begin with a UTF-8 byte-order mark, which ``loads`` skips: both are accepted on every line,
by both ends. ``dumps(obj) -> bytes`` and ``loads(bytes|str)`` use
orjson (a required dependency: 3 to 6 times faster than the standard library to encode and
decode, which is most of an isolated decision's cost). This module imports nothing else from
mallows, so the bot host stays free of the engine.

The bot's end (``mallows.agents.host``) uses ``HostCodec``: the standard library's ``json``
until the process has passed ``HostCodec.SWITCH_BYTES`` through it, then orjson. Importing
orjson costs about 15 ms (its module pulls in ``dataclasses``, ``uuid``, ``datetime``), half of
a hosted bot's start, and a bot process starts for every few matches; the standard library
costs about 4.5 us more a kilobyte, so orjson repays its import only after some megabytes
(``benchmarks/bench_sandbox.py`` measures the start). Its output is what orjson's would mean:
anything the standard library would write differently (NaN, an integer beyond 64 bits, a value
only orjson can encode, a string that is not UTF-8) goes through orjson, which writes or
refuses it as it always did. The platform's end always uses orjson: a bot's reply is held to
orjson's stricter reading.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["HostCodec", "dumps", "loads", "shape_problem", "undecodable"]

_BOM = b"\xef\xbb\xbf"
_orjson: Any = None


def _fast() -> Any:
    """orjson, imported on first use."""
    global _orjson
    if _orjson is None:
        import orjson

        _orjson = orjson
    return _orjson


def dumps(obj: Any) -> bytes:
    """Compact JSON as bytes."""
    orjson = _orjson or _fast()
    try:
        return orjson.dumps(obj)
    except TypeError:  # e.g. integer keys, which the json module turns into strings
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """One message: JSON text, a leading byte-order mark skipped."""
    if isinstance(data, str):
        if data[:1] == "\ufeff":
            data = data[1:]
    elif data[:3] == _BOM:
        data = bytes(data)[3:]
    return (_orjson or _fast()).loads(data)


#: a run of 19 digits: in json's output, maybe an integer beyond 64 bits (orjson refuses one)
_LONG_DIGITS = re.compile(rb"\d{19}")


class HostCodec:
    """The bot host's ``dumps`` and ``loads``: the standard library's until ``SWITCH_BYTES``
    have passed, then orjson's (see the module's docstring)."""

    SWITCH_BYTES = 4_000_000  # about orjson's import time at the standard library's extra cost

    def __init__(self) -> None:
        self.passed = 0

    def _count(self, size: int) -> None:
        self.passed += size
        if self.passed > self.SWITCH_BYTES:
            _fast()
            self.dumps, self.loads = dumps, loads  # type: ignore[method-assign]

    def dumps(self, obj: Any) -> bytes:
        try:
            data = json.dumps(
                obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False
            ).encode()
        except (TypeError, ValueError, RecursionError):  # orjson writes it, or says why not
            return dumps(obj)
        if _LONG_DIGITS.search(data):
            return dumps(obj)  # orjson refuses an integer beyond 64 bits
        self._count(len(data))
        return data

    def loads(self, data: bytes) -> Any:
        """A message from the platform (orjson's output: plain JSON, UTF-8)."""
        self._count(len(data))
        return json.loads(data)


def undecodable(line: bytes, exc: Exception) -> str:
    """What a line that ``loads`` refused is, in words: not UTF-8, valid JSON holding a number
    out of range (integers on the wire fit in 64 bits), or not JSON (with the parser's words)."""
    import json

    try:
        text = bytes(line).decode("utf-8")
    except UnicodeDecodeError as err:
        return f"a line that is not UTF-8 text (byte {err.start})"
    try:
        json.loads(text.lstrip("\ufeff"))
    except (ValueError, RecursionError):
        return f"a line that is not JSON ({exc})"
    return (
        "JSON holding a number out of range (integers on the wire must fit in 64 bits, "
        "floats in a double)"
    )


def shape_problem(reply: Any, expected: str) -> str:
    """What is wrong with ``reply``, a JSON object that is not the ``expected`` message
    (``"ok"``, ``"action"``, ``"hello"``), in words."""
    if "type" not in reply:
        keys = ", ".join(repr(k) for k in list(reply)[:5]) or "none"
        return f'it has no "type" (its keys: {keys})'
    kind = reply["type"]
    if kind != expected:
        return f'its "type" is {dumps(kind).decode(errors="replace")[:40]}, not "{expected}"'
    if expected == "action" and "action" not in reply:
        return 'it has no "action"'
    return "it is not that message"
