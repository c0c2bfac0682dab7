"""Arschmallows' rule sets and options: ``RULE_SETS``, ``OPTIONS``, ``make_options``.

Owns the two rule sets (RULES.md 2) and every option with its range and meaning, turning a
rule-set name plus overrides into validated effective options, and the player-count check.
The effective options carry ``"rules"`` (the rule set's name): the game has two, and a record's
options alone rebuild its game.
"""

from __future__ import annotations

from typing import Any, Mapping

from mallows.errors import GameConfigError
from mallows.games.options import parse_bool, parse_int, rule_set_and_overrides

MIN_PLAYERS = 2
MAX_PLAYERS = 6
DEFAULT_RULES = "standard"
NEXT_STARTERS = ("highest_total", "highest_round")

#: Rule-set name -> every option's default (RULES.md 2).
RULE_SETS: dict[str, dict[str, Any]] = {
    "standard": {
        "rounds": 6,
        "table_cards": 6,
        "final_turns": True,
        "next_starter": "highest_total",
        "caller_strictly_lowest": True,
        "double_negative": False,
        "max_turns_per_round": 500,
    },
    "supermallows": {
        "rounds": 3,
        "table_cards": 6,
        "final_turns": False,
        "next_starter": "highest_round",
        "caller_strictly_lowest": True,
        "double_negative": False,
        "max_turns_per_round": 500,
    },
}

#: Option -> (kind, allowed: (low, high) for ints or a tuple of choices, what it means).
OPTIONS: dict[str, tuple[str, Any, str]] = {
    "rounds": ("int", (1, 100), "rounds in a game"),
    "table_cards": ("int", (2, 10), "cards dealt to each seat's row (6; 4 is the quick mode)"),
    "final_turns": ("bool", None, "after the trigger every other seat takes one more turn"),
    "next_starter": ("choice", NEXT_STARTERS, "who starts the next round"),
    "caller_strictly_lowest": ("bool", None, "a caller tied for lowest is doubled"),
    "double_negative": ("bool", None, "a caller's negative score is doubled too"),
    "max_turns_per_round": ("int", (1, 1_000_000), "turns after which a round ends, turn_limit"),
}


def _coerce(key: str, value: Any) -> Any:
    kind, allowed, _ = OPTIONS[key]
    if kind == "bool":
        flag = parse_bool(value)
        if flag is not None:
            return flag
        raise GameConfigError(
            f"option {key}={value!r} is not a boolean: write {key}=true or {key}=false"
        )
    if kind == "int":
        low, high = allowed
        number = parse_int(value)
        if number is None:
            raise GameConfigError(
                f"option {key}={value!r} is not a whole number: write, for "
                f"example, {key}={RULE_SETS[DEFAULT_RULES][key]}"
            )
        if not low <= number <= high:
            raise GameConfigError(
                f"option {key}={number} is out of range: {key} must be from {low} to {high}"
            )
        return number
    if value not in allowed:
        raise GameConfigError(
            f"option {key}={value!r} is not allowed: choose one of {', '.join(allowed)}"
        )
    return value


def make_options(rules: str | None = None, overrides: Mapping[str, Any] | None = None) -> dict:
    """Every effective option of rule set ``rules`` with ``overrides`` applied, validated.

    The result also carries ``"rules"`` (the rule set's name), so that a game can be rebuilt
    from its options alone. ``overrides`` may repeat ``rules`` (e.g. a record's options) if it
    names the same set. CLI strings ("4", "true") are coerced.
    """
    rules, overrides = rule_set_and_overrides(rules, overrides, DEFAULT_RULES)
    if rules not in RULE_SETS:
        raise GameConfigError(
            f"unknown arschmallows rule set {rules!r}: choose one of {', '.join(RULE_SETS)}"
        )
    options: dict[str, Any] = {"rules": rules, **RULE_SETS[rules]}
    for key, value in overrides.items():
        if key not in OPTIONS:
            raise GameConfigError(
                f"unknown arschmallows option {key!r}: the options are {', '.join(OPTIONS)}"
            )
        options[key] = _coerce(key, value)
    return options


def check_players(players: Any) -> None:
    if (
        not isinstance(players, int)
        or isinstance(players, bool)
        or not MIN_PLAYERS <= players <= MAX_PLAYERS
    ):
        raise GameConfigError(
            f"arschmallows is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
            f"got {players!r}: seat 2 to 6 bots"
        )
    # 6 seats x 10 table cards + 1 discard card = 61: every allowed setting can be dealt.
