"""How a Take4 record reads: the table ``mallows play`` prints (``summary``) and the lines
``mallows replay`` prints (``describe_event``, ``describe_result``)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from mallows.games.describe import seat_label
from mallows.games.take4.cards import completed_squads, progress, squad_counts


def summary(record: Mapping) -> tuple[list[str], list[list], list[str]]:
    """For ``mallows play``: a row per seat in place order (place, 1 = first, as in every
    table mallows prints; seat; bot; what it collected) and notes saying who won and why the
    game ended. Rounds are numbered from 1, as ``mallows replay`` numbers them."""
    result = record["result"]
    names = record["players"]
    winners = result["winners"]
    forfeits = result.get("forfeits") or [None] * len(names)
    end = next((e for e in reversed(record["events"]) if e["type"] == "game_end"), None)
    rounds = sum(1 for e in record["events"] if e["type"] == "picks")
    headers = ["place", "seat", "bot", "cards", "best squad", "distinct", "collected"]
    rows = []
    for seat in sorted(range(len(names)), key=lambda s: (result["ranks"][s], s)):
        held = result["collections"][seat]
        _, total = progress(held)
        place = str(result["ranks"][seat] + 1) + (" (forfeit)" if forfeits[seat] else "")
        rows.append(
            [place, seat, names[seat], len(held), _best_label(held), total, ", ".join(held) or "-"]
        )
    notes = []
    reason = end["reason"] if end else None
    if winners:
        notes.append(
            win_note(names, winners, forfeits, result["collections"], result["ranks"], rounds)
        )
    elif reason == "deck_empty":
        notes.append(f"No winner: the deck ran out after {rounds} rounds (deck_empty).")
    elif reason == "round_limit":
        notes.append(
            f"No winner: the round limit of {record['options'].get('max_rounds')} "
            f"rounds was reached (round_limit)."
        )
    for seat, why in enumerate(forfeits):
        if why:
            notes.append(f"seat {seat} ({names[seat]}) forfeited: {why}")
    return headers, rows, notes


def win_note(
    names: Sequence[str],
    winners: Sequence[int],
    forfeits: Sequence[bool],
    collections: Sequence[Sequence[str]],
    ranks: Sequence[int],
    rounds: int,
) -> str:
    """Who won, in words. A seat that completed a squad after it forfeited ended the game but
    ranks below every seat that did not forfeit (platform: forfeits rank last), so it is not
    said to win: the note says so and names who placed first instead."""

    def squads(s: int) -> str:
        return "/".join(completed_squads(collections[s]))

    fair = [s for s in winners if not forfeits[s]]
    lost = [s for s in winners if forfeits[s]]
    parts = []
    if fair:
        who = ", ".join(f"seat {s} ({names[s]}: {squads(s)})" for s in fair)
        verb = "share the win" if len(fair) > 1 else "wins"
        parts.append(f"{who} {verb}, completing a squad in round {rounds}.")
    if lost:
        who = ", ".join(f"seat {s} ({names[s]}: {squads(s)})" for s in lost)
        first = [s for s in range(len(names)) if ranks[s] == 0 and not forfeits[s]]
        places = ", ".join(f"seat {s} ({names[s]})" for s in first) or "nobody"
        parts.append(
            f"{who} completed a squad in round {rounds}, ending the game, but had "
            f"forfeited, so it ranks below every seat that did not; first place: "
            f"{places}."
        )
    return " ".join(parts)


def _best_label(held: Iterable[str]) -> str:
    """``Fantasy 3/4`` for a unique best squad, ``2/4 (3 squads)`` for a tie, ``-`` if empty."""
    counts = squad_counts(held)
    best = max(counts.values())
    if not best:
        return "-"
    tops = [squad for squad, count in counts.items() if count == best]
    return f"{tops[0]} {best}/4" if len(tops) == 1 else f"{best}/4 ({len(tops)} squads)"


def describe_event(record: Mapping, e: Mapping) -> list[str] | None:
    kind = e.get("type")
    names = record.get("players", [])
    if kind == "deal":
        deck = e["deck"]
        return [
            f"deck dealt ({len(deck)} cards), top first: {', '.join(map(str, deck[:8]))}"
            + (" ..." if len(deck) > 8 else "")
        ]
    if kind == "picks":
        n = len(names)
        return [
            f"round {_number(e.get('round'))}: "
            + ", ".join(
                f"{names[s] if s < n else s} picks {p}" for s, p in enumerate(e.get("picks", []))
            )
        ]
    if kind == "race":
        who = ", ".join(seat_label(record, s) for s in e.get("contenders", []))
        return [
            f"  race for position {e.get('position')} between {who}: "
            f"{seat_label(record, e.get('winner'))} grabs Benny"
        ]
    if kind == "game_end":
        winners = e.get("winners", [])
        forfeits = record.get("result", {}).get("forfeits") or []
        lost = {s for s in winners if isinstance(s, int) and s < len(forfeits) and forfeits[s]}
        return [
            f"game ends ({e.get('reason')}); winners: "
            + (
                ", ".join(
                    seat_label(record, s) + (" (forfeited: ranks last)" if s in lost else "")
                    for s in winners
                )
                or "none"
            )
        ]
    return None


def describe_result(record: Mapping, seat: int) -> list[str]:
    collections = record.get("result", {}).get("collections")
    if isinstance(collections, list) and seat < len(collections):
        return [f"collection {', '.join(collections[seat]) or '-'}"]
    return []


def _number(r: object) -> object:
    """A record's round index (0-based) as people count rounds (from 1)."""
    return r + 1 if isinstance(r, int) else r
