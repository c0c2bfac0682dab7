"""How an Arschmallows record reads: the table ``mallows play`` prints (``summary``) and the
turn-by-turn lines ``mallows replay`` prints (``describe_event``, ``describe_result``)."""

from __future__ import annotations

import json
from typing import Mapping

from mallows.games.describe import seat_label


def summary(record: Mapping) -> tuple[list[str], list[list], list[str]]:
    """``(headers, rows, notes)`` for a record: one row per seat in place order (place, 1 =
    first; seat; bot; total; each round's score; round wins), and a note per round saying how
    it ended, who called and whether the caller was doubled. Rounds are numbered from 1, as
    ``mallows replay`` numbers them."""
    result = record["result"]
    names = record["players"]
    n = len(names)
    rounds = len(result["round_scores"])
    headers = (
        ["place", "seat", "bot", "total"] + [f"R{r + 1}" for r in range(rounds)] + ["round wins"]
    )
    rows = []
    for seat in sorted(range(n), key=lambda s: (result["ranks"][s], s)):
        place = str(result["ranks"][seat] + 1)
        if result["forfeits"][seat]:
            place += " (forfeit)"
        rows.append(
            [place, seat, names[seat], result["totals"][seat]]
            + [result["round_scores"][r][seat] for r in range(rounds)]
            + [result["round_wins"][seat]]
        )
    try:
        from mallows.games.arschmallows import replay

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
                text += (
                    f" and was doubled ({h['raw'][caller]} -> {h['scores'][caller]})"
                    if h["doubled"]
                    else f" and was not doubled ({h['raw'][caller]})"
                )
        elif reason == "all_face_up":
            who = history[r]["trigger_seat"] if history is not None and r < len(history) else None
            text += (
                f"seat {who} ({names[who]}) turned its last card face up"
                if who is not None
                else "a row went all face up"
            )
        else:
            text += {"exhausted": "no cards left to take", "turn_limit": "the turn limit"}.get(
                reason, reason
            )
        notes.append(text)
    for seat, why in enumerate(result.get("forfeits", [])):
        if why:
            notes.append(f"seat {seat} ({names[seat]}) forfeited: {why}")
    return headers, rows, notes


def action_text(record: Mapping, a: Mapping) -> str:
    """One recorded action in words, e.g. ``spies seat 2 (greedy) slot 3``."""
    kind = a.get("type")
    if kind == "peek":
        return f"peeks at slots {a['slots'][0]} and {a['slots'][1]}"
    if kind == "draw":
        return "draws from the draw pile"
    if kind == "take_discard":
        return "takes the top of the discard pile"
    if kind == "swap":
        return f"swaps the held card into slot {a['slot']}"
    if kind == "refuse":
        return f"discards the held card and turns slot {a['slot']} face up"
    if kind == "spy":
        return f"spies {seat_label(record, a['player'])} slot {a['slot']}"
    if kind == "exchange":
        return (
            f"exchanges own slot {a['slot']} with {seat_label(record, a['player'])} slot "
            f"{a['their_slot']}"
        )
    if kind == "play_twice":
        return "plays twice: two extra turns"
    if kind == "get_rid":
        return f"tries to get rid of slots {a['slots']}"
    if kind == "call":
        return "calls Arschmallows!"
    if kind == "pass":
        return "passes"
    return json.dumps(a)


def describe_event(record: Mapping, e: Mapping) -> list[str] | None:
    kind = e.get("type")
    if kind == "deal":
        n = len(record.get("players", []))
        t = int(record.get("options", {}).get("table_cards", 6))
        deck = e["deck"]
        lines = [f"-- round {_number(e.get('round'))} --"]
        for s in range(n):
            lines.append(f"  {seat_label(record, s)} dealt {deck[s * t : (s + 1) * t]}")
        if len(deck) > n * t:
            lines.append(f"  discard pile: {deck[n * t]}; draw pile: {len(deck) - n * t - 1} cards")
        return lines
    if kind == "action":
        return [f"  {seat_label(record, e.get('seat'))} {action_text(record, e.get('action', {}))}"]
    if kind == "reshuffle":
        deck = e["deck"]
        return [
            f"  reshuffle: the discard pile becomes a new draw pile ({len(deck) - 1} cards), "
            f"{deck[0] if deck else '-'} turned face up"
        ]
    if kind == "round_end":
        caller = e.get("caller")
        return [
            f"  round {_number(e.get('round'))} ends ({e.get('reason')})"
            + (f", caller {seat_label(record, caller)}" if caller is not None else "")
            + f"; scores {e.get('scores')}"
        ]
    return None


def describe_result(record: Mapping, seat: int) -> list[str]:
    result = record.get("result", {})
    out = []
    for key in ("totals", "round_wins"):
        if isinstance(result.get(key), list) and seat < len(result[key]):
            out.append(f"{key.replace('_', ' ')} {result[key][seat]}")
    return out


def _number(r: object) -> object:
    """A record's round index (0-based) as people count rounds (from 1)."""
    return r + 1 if isinstance(r, int) else r
