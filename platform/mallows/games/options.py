"""Reading option values the way every game takes them: real booleans and integers, or the
strings a command line gives ("4", "true"). Each game keeps its own ranges and messages; these
return ``None`` for a value they cannot read, so the game can say what it expected."""

from __future__ import annotations

import re
from typing import Any

TRUE = frozenset({"true", "1", "yes", "on"})
FALSE = frozenset({"false", "0", "no", "off"})
_INTEGER = re.compile(r"[+-]?\d+")


def parse_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE or word in FALSE:
            return word in TRUE
    return None


def parse_int(value: Any) -> int | None:
    """A whole number: an ``int`` (not a bool) or a string of digits with an optional sign."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value.strip()):
        return int(value.strip())
    return None
