"""Take4's rule set and options: ``RULE_SETS``, ``make_options``, the player-count check.

Take4 has one rule set, ``"default"``, so its effective options do not name it (its records
never have): ``make_options`` accepts ``"rules": "default"`` among the overrides and drops it.
"""

from __future__ import annotations

from typing import Any, Mapping

from mallows.errors import GameConfigError
from mallows.games.options import parse_bool, parse_int, rule_set_and_overrides

MIN_PLAYERS = 2
MAX_PLAYERS = 4
RULE_SETS: dict[str, dict[str, Any]] = {
    "default": {"max_rounds": 1000, "rank_losers_by_progress": False},
}
DEFAULT_RULES = "default"

MAX_ROUNDS_LIMIT = 1_000_000


def _coerce_bool(key: str, value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool) and value in (0, 1):
        return bool(value)
    flag = parse_bool(value)
    if flag is not None:
        return flag
    raise GameConfigError(
        f"take4 option {key} must be true or false, not {value!r}: write, "
        f"for example, --option {key}=true"
    )


def _coerce_int(key: str, value: Any, low: int, high: int) -> int:
    number = parse_int(value)
    if number is None:
        raise GameConfigError(
            f"take4 option {key} must be a whole number from {low} to {high}, "
            f"not {value!r}: write, for example, --option {key}=100"
        )
    if not low <= number <= high:
        raise GameConfigError(
            f"take4 option {key} is {number}, out of range: give a whole "
            f"number from {low} to {high}, for example --option {key}=100"
        )
    return number


def make_options(rules: str | None = None, overrides: Mapping[str, Any] | None = None) -> dict:
    """Every effective option, validated; CLI strings are coerced ("100", "true")."""
    rules, overrides = rule_set_and_overrides(rules, overrides, DEFAULT_RULES)
    if rules not in RULE_SETS:
        raise GameConfigError(
            f"take4 has no rule set {rules!r}: it has one, "
            f"{DEFAULT_RULES!r} (leave --rules out, or write --rules default)"
        )
    options = dict(RULE_SETS[rules])
    for key, value in overrides.items():
        if key == "max_rounds":
            options[key] = _coerce_int(key, value, 1, MAX_ROUNDS_LIMIT)
        elif key == "rank_losers_by_progress":
            options[key] = _coerce_bool(key, value)
        else:
            raise GameConfigError(
                f"take4 has no option {key!r}: its options are "
                f"{', '.join(sorted(RULE_SETS[DEFAULT_RULES]))}"
            )
    return options


def check_players(players: Any) -> None:
    if (
        isinstance(players, bool)
        or not isinstance(players, int)
        or not MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise GameConfigError(
            f"take4 is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got "
            f"{players!r}: give one --bot per seat, 2 to 4 of them"
        )
