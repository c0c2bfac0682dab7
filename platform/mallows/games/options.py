"""Reading option values the way every game takes them: real booleans and integers, or the
strings a command line gives ("4", "true"). Each game keeps its own ranges and messages; these
return ``None`` for a value they cannot read, so the game can say what it expected."""

from __future__ import annotations

import re
from typing import Any, Mapping

from mallows.errors import GameConfigError

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


def rule_set_and_overrides(
    rules: str | None, overrides: Mapping[str, Any] | None, default: str
) -> tuple[str, dict]:
    """The rule set's name and the other overrides. The name comes from ``rules`` or from the
    overrides' ``"rules"`` key (a record's options repeat it), else ``default``; both given and
    different is an error. Each game then checks the name against its own rule sets."""
    rest = dict(overrides or {})
    named = rest.pop("rules", None)
    if named is not None and rules is not None and named != rules:
        raise GameConfigError(
            f"rule set given twice: {rules!r} and {named!r} in the options; give it once"
        )
    return (rules if rules is not None else (named if named is not None else default)), rest
