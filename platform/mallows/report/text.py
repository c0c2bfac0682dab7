"""A record told in plain text, turn by turn, from its replay frames: what ``mallows replay``
prints. Every card's value (the all-seeing view), or with ``seat`` only what that seat saw
(the others as ``?``): each frame's lines are the game's replay face's (``text_lines``)."""

from __future__ import annotations

from typing import Mapping

from mallows.errors import MallowsError
from mallows.games.describe import seat_label
from mallows.games.faces import replay_view
from mallows.report.frames import frames


def _who(names: list[str], seat: int) -> str:
    return seat_label({"players": names}, seat)


def replay_text(match_id: str, record: Mapping, seat: int | None = None) -> list[str]:
    """The lines of a replay; ``seat``: that seat's view. Raises ``ReplayMismatch`` for a
    record the engine does not reproduce."""
    from mallows.report.data import short_bot

    names = [short_bot(p) for p in record.get("players", [])]
    record = dict(record, players=names)
    if seat is not None and not 0 <= seat < len(names):
        raise MallowsError(f"--seat {seat}: the match has seats 0 to {len(names) - 1}")
    fs = frames(dict(record))
    face = replay_view(str(record.get("game")))  # frames found it
    game = record.get("game")
    lines = [
        f"match {match_id} · {game}"
        + (f" ({record['rules']})" if record.get("rules") else "")
        + f" · seed {record.get('seed')}",
        "seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)),
        face.view_line(names, seat),
    ]
    for f in fs:
        lines.extend(face.text_lines(f, names, seat))
    result = record.get("result", {})
    ranks = result.get("ranks", [])
    forfeits = result.get("forfeits") or []
    lines.append("result:")
    for s in sorted(range(len(ranks)), key=lambda s: (ranks[s], s)):
        extra = []
        if isinstance(result.get("totals"), list):
            extra.append(f"total {result['totals'][s]}")
        if isinstance(result.get("round_wins"), list):
            extra.append(f"round wins {result['round_wins'][s]}")
        if isinstance(result.get("collections"), list):
            extra.append(f"collected {', '.join(result['collections'][s]) or '-'}")
        if s < len(forfeits) and forfeits[s]:
            extra.append("forfeited")
        lines.append(
            f"  place {ranks[s] + 1}: {_who(names, s)}"
            + (f" · {' · '.join(extra)}" if extra else "")
        )
    return lines
