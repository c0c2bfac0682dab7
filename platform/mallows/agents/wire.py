"""The JSON codec of the protocol v1 wire format, shared by both ends of an isolated bot.

One message is one line of compact JSON. ``dumps(obj) -> bytes`` and ``loads(bytes|str)`` use
orjson (a required dependency: 3 to 6 times faster than the standard library to encode and
decode, which is most of an isolated decision's cost). This module imports nothing else from
mallows, so the bot host stays free of the engine.
"""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["dumps", "loads"]


def dumps(obj: Any) -> bytes:
    """Compact JSON as bytes."""
    try:
        return orjson.dumps(obj)
    except TypeError:  # e.g. integer keys, which the json module turns into strings
        return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)


loads = orjson.loads
