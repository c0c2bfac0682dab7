"""The JSON codec of the protocol v1 wire format, shared by both ends of an isolated bot.

One message is one line of compact JSON. ``dumps(obj) -> bytes`` and ``loads(bytes|str)``
use orjson when it is installed (3 to 6 times faster to encode and decode, which is most of an
isolated decision's cost) and the standard library otherwise; both give the same JSON. This
module imports nothing else from mallows, so the bot host stays free of the engine.
"""

from __future__ import annotations

import json
from typing import Any

try:
    import orjson

    def dumps(obj: Any) -> bytes:
        """Compact JSON as bytes."""
        try:
            return orjson.dumps(obj)
        except TypeError:  # e.g. integer keys, which the json module turns into strings
            return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS)

    loads = orjson.loads
except ImportError:  # pragma: no cover - depends on the environment
    _json_encode = json.JSONEncoder(separators=(",", ":"), check_circular=False).encode

    def dumps(obj: Any) -> bytes:
        """Compact JSON as bytes."""
        return _json_encode(obj).encode()

    loads = json.loads
