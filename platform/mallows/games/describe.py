"""A record told turn by turn, for ``mallows replay``: the frame every game shares.

Owns ``seen`` (a replay frame's words for one seat), the header, the seat list, the runner's ``forfeit`` events, any event a game does not
describe (printed as JSON) and the final places; each game's ``describe_event`` and
``describe_result`` (see ``mallows.games.base.Game``) supply the rest.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

_MARK = re.compile(r"\[\[([^|\]]*)\|(\d+)\]\]")


def seen(text: str, viewer: int | None = None) -> str:
    """A replay frame's ``text`` for ``viewer``: every value (``None``, the all-seeing view),
    or only the values seat ``viewer`` saw, the others as ``?``. Values are marked
    ``[[text|mask]]``, mask: a bit per seat that saw the card (a game whose cards are all
    public writes no marks)."""
    if viewer is None:
        return _MARK.sub(r"\1", text)
    return _MARK.sub(lambda m: m.group(1) if int(m.group(2)) >> viewer & 1 else "?", text)


def seat_label(record: Mapping, seat: Any) -> str:
    """``seat 2 (greedy)``, or ``seat 7`` for a seat the record does not name."""
    names = record.get("players", [])
    if isinstance(seat, int) and 0 <= seat < len(names):
        return f"seat {seat} ({names[seat]})"
    return f"seat {seat}"


def replay_lines(match_id: str, record: Mapping) -> list[str]:
    """Every line ``mallows replay`` prints for ``record``. A record of a game this
    installation does not know is still told, with its events as JSON."""
    from mallows.errors import GameConfigError
    from mallows.games import get_game

    game: Any = record.get("game")
    try:
        module: Any = get_game(game)
    except GameConfigError:
        module = None
    names = record.get("players", [])
    lines = [
        f"match {match_id} · {game}"
        + (f" ({record['rules']})" if record.get("rules") else "")
        + f" · seed {record.get('seed')}",
        "seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)),
    ]
    for e in record.get("events", []):
        if e.get("type") == "forfeit":
            lines.append(f"  {seat_label(record, e.get('seat'))} FORFEITS: {e.get('reason')}")
            continue
        try:
            told = module.describe_event(record, e) if module is not None else None
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            told = None  # an event the game cannot put in words: as recorded
        lines.extend(told if told is not None else ["  " + json.dumps(e)])
    result = record.get("result", {})
    lines.append("result:")
    ranks = result.get("ranks", [])
    forfeits = result.get("forfeits") or []
    for s in sorted(range(len(ranks)), key=lambda s: (ranks[s], s)):
        try:
            extra = list(module.describe_result(record, s)) if module is not None else []
        except (KeyError, IndexError, TypeError, ValueError, AttributeError):
            extra = []
        if s < len(forfeits) and forfeits[s]:
            extra.append("forfeited")
        lines.append(
            f"  place {ranks[s] + 1}: {seat_label(record, s)}"
            + (f" · {' · '.join(extra)}" if extra else "")
        )
    return lines
