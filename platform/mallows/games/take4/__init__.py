"""Squishmallows Take4 (game id ``take4``): the game module the registry loads.

Owns the module contract of ``mallows.games`` for Take4: the constants, the options
(``make_options``), the new match (``new_state``), the printed summary of a record
(``summary``) and a record's replay without its seed (``replay``). The rules are in
``RULES.md`` beside this file; the rulings in code in ``rules.py``; the state machine in
``state.py``; what a seat is shown in ``observation.py``; the cards in ``cards.py``.
"""

from __future__ import annotations

from typing import Any

from mallows.errors import GameConfigError
from mallows.games.base import Chance, ReplayChance
from mallows.games.options import parse_bool, parse_int
from mallows.games.take4.cards import completed_squads, progress, squad_counts
from mallows.games.take4.state import Take4State

NAME = "take4"
MIN_PLAYERS = 2
MAX_PLAYERS = 4
SIMULTANEOUS = True
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
    raise GameConfigError(f"take4 option {key} must be true or false, not {value!r}: write, "
                          f"for example, --option {key}=true")


def _coerce_int(key: str, value: Any, low: int, high: int) -> int:
    number = parse_int(value)
    if number is None:
        raise GameConfigError(f"take4 option {key} must be a whole number from {low} to {high}, "
                              f"not {value!r}: write, for example, --option {key}=100")
    if not low <= number <= high:
        raise GameConfigError(f"take4 option {key} is {number}, out of range: give a whole "
                              f"number from {low} to {high}, for example --option {key}=100")
    return number


def make_options(rules: str | None = None, overrides: dict | None = None) -> dict:
    """Every effective option, validated; CLI strings are coerced ("100", "true")."""
    rules = DEFAULT_RULES if rules is None else rules
    if rules not in RULE_SETS:
        raise GameConfigError(f"take4 has no rule set {rules!r}: it has one, "
                              f"{DEFAULT_RULES!r} (leave --rules out, or write --rules default)")
    options = dict(RULE_SETS[rules])
    for key, value in (overrides or {}).items():
        if key == "max_rounds":
            options[key] = _coerce_int(key, value, 1, MAX_ROUNDS_LIMIT)
        elif key == "rank_losers_by_progress":
            options[key] = _coerce_bool(key, value)
        else:
            raise GameConfigError(f"take4 has no option {key!r}: its options are "
                                  f"{', '.join(sorted(RULE_SETS[DEFAULT_RULES]))}")
    return options


def new_state(options: dict, players: int, chance: Chance) -> Take4State:
    """A new match. ``options`` are checked again, so a hand-written dict is safe too."""
    if isinstance(players, bool) or not isinstance(players, int) \
            or not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise GameConfigError(f"take4 is for {MIN_PLAYERS} to {MAX_PLAYERS} players, got "
                              f"{players!r}: give one --bot per seat, 2 to 4 of them")
    return Take4State(make_options(None, options), players, chance)


def replay(record: dict) -> Take4State:
    """The final state of a recorded match, rebuilt from its events alone (no seed): the deal
    and the races come back through ``ReplayChance``, the picks from the ``picks`` events."""
    state = new_state(record["options"], len(record["players"]), ReplayChance(record["events"]))
    for event in record["events"]:
        if event["type"] == "picks":
            for seat, position in enumerate(event["picks"]):
                state.apply(seat, {"type": "pick", "position": position})
    return state


def summary(record: dict) -> tuple[list[str], list[list], list[str]]:
    """For ``mallows play``: a row per seat (rank, bot, what it collected) and notes saying who
    won and why the game ended."""
    result = record["result"]
    names = record["players"]
    winners = result["winners"]
    forfeits = result.get("forfeits") or [None] * len(names)
    end = next((e for e in reversed(record["events"]) if e["type"] == "game_end"), None)
    rounds = sum(1 for e in record["events"] if e["type"] == "picks")
    headers = ["seat", "bot", "rank", "cards", "best squad", "distinct", "collected"]
    rows = []
    for seat, name in enumerate(names):
        held = result["collections"][seat]
        _, total = progress(held)
        mark = " (winner)" if seat in winners else ""
        mark += " (forfeited)" if forfeits[seat] else ""
        rows.append([seat, name + mark, result["ranks"][seat], len(held),
                     _best_label(held), total, ", ".join(held) or "-"])
    notes = []
    reason = end["reason"] if end else None
    if winners:
        who = ", ".join(f"seat {s} ({names[s]}: {'/'.join(completed_squads(result['collections'][s]))})"
                        for s in winners)
        verb = "share the win" if len(winners) > 1 else "wins"
        notes.append(f"{who} {verb}, completing a squad in round {rounds - 1}.")
    elif reason == "deck_empty":
        notes.append(f"No winner: the deck ran out after {rounds} rounds (deck_empty).")
    elif reason == "round_limit":
        notes.append(f"No winner: the round limit of {record['options'].get('max_rounds')} "
                     f"rounds was reached (round_limit).")
    for seat, why in enumerate(forfeits):
        if why:
            notes.append(f"seat {seat} ({names[seat]}) forfeited: {why}")
    return headers, rows, notes


def _best_label(held) -> str:
    """``Fantasy 3/4`` for a unique best squad, ``2/4 (3 squads)`` for a tie, ``-`` if empty."""
    counts = squad_counts(held)
    best = max(counts.values())
    if not best:
        return "-"
    tops = [squad for squad, count in counts.items() if count == best]
    return f"{tops[0]} {best}/4" if len(tops) == 1 else f"{best}/4 ({len(tops)} squads)"
