"""The JSON codec of the protocol v1 wire format, shared by both ends of an isolated bot.

One message is one line of compact JSON. A line may end in CRLF (``\r`` is JSON whitespace) and
may begin with a UTF-8 byte-order mark, which ``loads`` skips: both are accepted on every line,
by both ends. ``dumps(obj) -> bytes`` and ``loads(bytes|str)`` use
orjson (a required dependency: 3 to 6 times faster than the standard library to encode and
decode, which is most of an isolated decision's cost). This module imports nothing else from
mallows, so the bot host stays free of the engine.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["dumps", "loads", "shape_problem", "undecodable"]

_BOM = b"\xef\xbb\xbf"


def dumps(obj: Any) -> bytes:
    """Compact JSON as bytes."""
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
    return orjson.loads(data)


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
