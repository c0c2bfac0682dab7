"""Arschmallows' rule sets and options, and the rules that are pure arithmetic.

Owns: the two rule sets and every option (``RULE_SETS``, ``OPTIONS``), turning a rule-set name
plus overrides into validated effective options (``make_options``), a round's scoring with the
caller rules (``score_round``), the next round's starting seat (``next_starter``) and the game's
ranking (``final_ranks``). The rulings these implement are in RULES.md, section numbers cited.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from mallows.errors import GameConfigError
from mallows.games.base import competition_ranks
from mallows.games.options import parse_bool, parse_int

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
        raise GameConfigError(f"option {key}={value!r} is not a boolean: write {key}=true "
                              f"or {key}=false")
    if kind == "int":
        low, high = allowed
        number = parse_int(value)
        if number is None:
            raise GameConfigError(f"option {key}={value!r} is not a whole number: write, for "
                                  f"example, {key}={RULE_SETS[DEFAULT_RULES][key]}")
        if not low <= number <= high:
            raise GameConfigError(f"option {key}={number} is out of range: {key} must be "
                                  f"from {low} to {high}")
        return number
    if value not in allowed:
        raise GameConfigError(f"option {key}={value!r} is not allowed: choose one of "
                              f"{', '.join(allowed)}")
    return value


def make_options(rules: str | None = None, overrides: Mapping[str, Any] | None = None) -> dict:
    """Every effective option of rule set ``rules`` with ``overrides`` applied, validated.

    The result also carries ``"rules"`` (the rule set's name), so that a game can be rebuilt
    from its options alone. ``overrides`` may repeat ``rules`` (e.g. a record's options) if it
    names the same set. CLI strings ("4", "true") are coerced.
    """
    overrides = dict(overrides or {})
    named = overrides.pop("rules", None)
    if named is not None and rules is not None and named != rules:
        raise GameConfigError(f"rule set given twice: {rules!r} and {named!r} in the options; "
                              f"give it once")
    rules = rules if rules is not None else (named if named is not None else DEFAULT_RULES)
    if rules not in RULE_SETS:
        raise GameConfigError(f"unknown arschmallows rule set {rules!r}: choose one of "
                              f"{', '.join(RULE_SETS)}")
    options: dict[str, Any] = {"rules": rules, **RULE_SETS[rules]}
    for key, value in overrides.items():
        if key not in OPTIONS:
            raise GameConfigError(f"unknown arschmallows option {key!r}: the options are "
                                  f"{', '.join(OPTIONS)}")
        options[key] = _coerce(key, value)
    return options


def check_players(players: Any) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or \
            not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameConfigError(f"arschmallows is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
                              f"got {players!r}: seat 2 to 6 bots")
    # 6 seats x 10 table cards + 1 discard card = 61: every allowed setting can be dealt.


def score_round(raw: Sequence[int], caller: int | None, options: Mapping) -> tuple[list[int], bool]:
    """Round scores after the caller rule (RULES.md 1.14), and whether the caller was doubled.

    The caller is doubled when its score is not strictly below every other seat's (with
    ``caller_strictly_lowest`` false, a tie with the lowest counts as lowest), unless the score
    is zero or negative and ``double_negative`` is false.
    """
    scores = list(raw)
    if caller is None:
        return scores, False
    mine = raw[caller]
    others = [v for s, v in enumerate(raw) if s != caller]
    lowest = min(others)
    is_lowest = mine < lowest if options["caller_strictly_lowest"] else mine <= lowest
    if is_lowest or (mine <= 0 and not options["double_negative"]):
        return scores, False
    scores[caller] = 2 * mine
    return scores, True


def round_winners(scores: Sequence[int]) -> list[int]:
    low = min(scores)
    return [s for s, v in enumerate(scores) if v == low]


def next_starter(scores: Sequence[int], totals: Sequence[int], start: int, options: Mapping) -> int:
    """The next round's starting seat (RULES.md 1.15): the highest round score after doubling
    (``highest_round``) or highest total (``highest_total``); a tie goes to the first of the
    tied seats counting clockwise from this round's starting seat, that seat included."""
    by = scores if options["next_starter"] == "highest_round" else totals
    n = len(by)
    best = max(by)
    for k in range(n):
        seat = (start + k) % n
        if by[seat] == best:
            return seat
    raise AssertionError("unreachable")


def final_ranks(totals: Sequence[int], round_wins: Sequence[int],
                forfeits: Sequence[str | None]) -> list[int]:
    """Lowest total first; then more round wins; still tied: a shared place (RULES.md 1.16)."""
    return competition_ranks([(t, -w) for t, w in zip(totals, round_wins)], forfeits)
