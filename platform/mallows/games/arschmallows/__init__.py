"""Arschmallows: the game module (see ``mallows.games`` for the contract).

Owns the module API only: the constants, ``make_options`` and ``new_state`` (delegating to
``rules`` and ``state``), and ``summary``, the table ``mallows play`` prints for a record.
The rules as this engine plays them are in RULES.md beside this file.
"""

from __future__ import annotations

from typing import Any, Mapping

from mallows.games.arschmallows import rules
from mallows.games.arschmallows.rules import (DEFAULT_RULES, MAX_PLAYERS, MIN_PLAYERS, RULE_SETS,
                                              make_options)
from mallows.games.arschmallows.state import ArschmallowsState

NAME = "arschmallows"
SIMULTANEOUS = False

__all__ = ["NAME", "MIN_PLAYERS", "MAX_PLAYERS", "SIMULTANEOUS", "RULE_SETS", "DEFAULT_RULES",
           "make_options", "new_state", "summary", "replay", "ArschmallowsState"]


def new_state(options: Mapping[str, Any], players: int, chance: Any) -> ArschmallowsState:
    """A new match at its first decision (round 0 dealt, seat 0 to peek). ``options`` are
    validated again (a record's options work as they are)."""
    effective = make_options(None, options)
    rules.check_players(players)
    return ArschmallowsState(effective, players, chance)


def replay(record: Mapping) -> ArschmallowsState:
    """The final state of ``record``, rebuilt from its events alone (no seed): the deals and
    reshuffles are read back, the action events applied in order."""
    from mallows.games.base import ReplayChance

    events = record["events"]
    state = new_state(record["options"], len(record["players"]), ReplayChance(events))
    for event in events:
        if event["type"] == "action":
            state.apply(event["seat"], event["action"])
    return state


def summary(record: Mapping) -> tuple[list[str], list[list], list[str]]:
    """``(headers, rows, notes)`` for a record: one row per seat in place order (place, seat,
    bot, total, each round's score, round wins), and a note per round saying how it ended,
    who called and whether the caller was doubled."""
    result = record["result"]
    names = record["players"]
    n = len(names)
    rounds = len(result["round_scores"])
    headers = ["place", "seat", "bot", "total"] + [f"R{r + 1}" for r in range(rounds)] + ["wins"]
    rows = []
    for seat in sorted(range(n), key=lambda s: (result["ranks"][s], s)):
        place = str(result["ranks"][seat] + 1)
        if result["forfeits"][seat]:
            place += " (forfeit)"
        rows.append([place, seat, names[seat], result["totals"][seat]]
                    + [result["round_scores"][r][seat] for r in range(rounds)]
                    + [result["round_wins"][seat]])
    try:
        history = replay(record).history
    except Exception:  # a record from elsewhere that does not replay: notes from events only
        history = None
    notes = []
    ends = [e for e in record["events"] if e["type"] == "round_end"]
    for r, end in enumerate(ends):
        caller, reason = end["caller"], end["reason"]
        text = f"round {r + 1}: "
        if caller is not None:
            text += f"seat {caller} ({names[caller]}) called"
            if history is not None and r < len(history):
                h = history[r]
                text += (f" and was doubled ({h['raw'][caller]} -> {h['scores'][caller]})"
                         if h["doubled"] else f" and was not doubled ({h['raw'][caller]})")
        elif reason == "all_face_up":
            seat = history[r]["trigger_seat"] if history is not None and r < len(history) else None
            text += (f"seat {seat} ({names[seat]}) turned its last card face up"
                     if seat is not None else "a row went all face up")
        else:
            text += {"exhausted": "no cards left to take", "turn_limit": "the turn limit"}.get(
                reason, reason)
        notes.append(text)
    for seat, why in enumerate(result.get("forfeits", [])):
        if why:
            notes.append(f"seat {seat} ({names[seat]}) forfeited: {why}")
    return headers, rows, notes
