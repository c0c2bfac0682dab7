"""Take4 told in words, as one seat may follow it: each round's positions, who picked what,
the races and who took which character, the game's end.

Owns the game's phrasing (``round_text``, ``picks_text``, ``race_text``, ``end_reason``,
``and_list``) and ``Narrator``, which turns a seat's match events
(``mallows.games.take4.events``: all public) into those lines. The person at the terminal
(``mallows.agents.human``), the browser's play page and the report's replay
(``mallows.games.take4.frames``) speak through these functions.

Pure: no I/O; a ``Narrator`` only reads the events it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mallows.games.narration import Narration

from mallows.games.take4.cards import SQUAD_OF

__all__ = ["Narrator", "and_list", "end_reason", "picks_text", "race_text", "round_text"]

REASONS = {
    "squad": "a squad is complete",
    "deck_empty": "the deck has run out",
    "round_limit": "the round limit is reached",
}


def and_list(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def end_reason(reason: str) -> str:
    return REASONS.get(reason, reason)


def round_text(round_: int, positions: Sequence[str | None], deck: int | None = None) -> str:
    """A round's positions laid out."""
    shown = ", ".join(f"{p} {c} ({SQUAD_OF.get(c, '?')})" for p, c in enumerate(positions, 1) if c)
    return f"round {round_ + 1} lays out {shown}" + (
        f"; {deck} cards left in the deck" if deck is not None else ""
    )


def picks_text(
    round_: int,
    positions: Sequence[str | None],
    picks: Sequence[int],
    contested: set[int],
    who: Callable[[int], str],
) -> str:
    """A round's picks, by seat (``who(seat)``: the seat in words), and the cards nobody
    picked."""
    parts = []
    for seat, p in enumerate(picks):
        name = positions[p - 1] if 1 <= p <= len(positions) else None
        verb = "pick" if who(seat) == "you" else "picks"
        parts.append(
            f"{who(seat)} {verb} {name} ({SQUAD_OF.get(name or '', '?')}, position {p}"
            f"{', contested' if p in contested else ''})"
        )
    chosen = set(picks)
    left = [c for p, c in enumerate(positions, 1) if c and p not in chosen]
    return (
        f"round {round_ + 1}: "
        + "; ".join(parts)
        + (f". Nobody picks {', '.join(left)}: back under the deck" if left else "")
    )


def race_text(
    card: str | None, position: int, contenders: Sequence[int], winner: int, who: Callable
) -> str:
    """A race for one position: who picked it, who is quicker and takes it."""
    others = [s for s in contenders if s != winner]
    both = "both" if len(contenders) == 2 else "all"
    return (
        f"race for {card} (position {position}): {and_list([who(s) for s in contenders])} "
        f"{both} picked it; {who(winner)} {'are' if who(winner) == 'you' else 'is'} quicker "
        f"and {'take' if who(winner) == 'you' else 'takes'} it, "
        + and_list([who(s) for s in others])
        + (" gets" if len(others) == 1 and who(others[0]) != "you" else " get")
        + " nothing this round"
    )


class Narrator(Narration):
    """A seat's Take4 events in words (``mallows.games.narration.Narration``)."""

    def setup(self) -> None:
        self.positions: list[str | None] = []

    def lines(self, e: Mapping[str, Any]) -> list[str]:
        kind = e["type"]
        if kind == "round":
            self.positions = list(e["positions"])
            return [round_text(e["round"], self.positions, e.get("deck"))]
        if kind == "picks":
            races = list(e.get("races") or [])
            out = [
                picks_text(
                    e["round"], self.positions, e["picks"], {r["position"] for r in races}, self.who
                )
            ]
            for r in races:
                p = r["position"]
                card = self.positions[p - 1] if 1 <= p <= len(self.positions) else None
                out.append("  " + race_text(card, p, r["contenders"], r["winner"], self.who))
            return out
        if kind == "game_end":
            winners = [self.who(s) for s in e.get("winners") or []]
            return [
                f"the game ends: {end_reason(e['reason'])}. "
                + (
                    ("Winner: " if len(winners) == 1 else "Winners: ") + and_list(winners)
                    if winners
                    else "Nobody completed a squad"
                )
            ]
        if kind == "forfeit":
            what = f"forfeits ({e['kind']})" if e.get("kind") else "forfeits"
            return [f"{self.who(e['seat'])} {what}. From here a random policy plays its seat"]
        return []
