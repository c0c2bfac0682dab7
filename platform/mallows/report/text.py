"""A record told in plain text, turn by turn, from its replay frames: what ``mallows replay``
prints. Every card's value (the all-seeing view), or with ``seat`` only what that seat saw
(the others as ``?``); doubling, Take4's characters and races in words."""

from __future__ import annotations

from typing import Mapping

from mallows.errors import MallowsError
from mallows.report.frames import frames, seen


def _who(names, seat) -> str:
    return (
        f"seat {seat} ({names[seat]})"
        if isinstance(seat, int) and 0 <= seat < len(names)
        else f"seat {seat}"
    )


def _row(frame: dict, seat: int, viewer: int | None) -> str:
    cells = []
    for value, up, mask in frame["rows"][seat]:
        shown = up or viewer is None or (mask >> viewer) & 1
        cells.append((str(value) if up else f"({value})") if shown else "?")
    return " ".join(cells)


def replay_text(match_id: str, record: Mapping, seat: int | None = None) -> list[str]:
    """The lines of a replay; ``seat``: that seat's view. Raises ``ReplayMismatch`` for a
    record the engine does not reproduce."""
    from mallows.report.data import short_bot

    names = [short_bot(p) for p in record.get("players", [])]
    record = dict(record, players=names)
    if seat is not None and not 0 <= seat < len(names):
        raise MallowsError(f"--seat {seat}: the match has seats 0 to {len(names) - 1}")
    fs = frames(dict(record))
    game = record.get("game")
    lines = [
        f"match {match_id} · {game}"
        + (f" ({record['rules']})" if record.get("rules") else "")
        + f" · seed {record.get('seed')}",
        "seats: " + ", ".join(f"{s} {n}" for s, n in enumerate(names)),
        (
            "view: all-seeing (every card's value; (v) is face down)"
            if seat is None
            else f"view: {_who(names, seat)}: only the cards it saw, the others as ?"
        )
        if game == "arschmallows"
        else "view: everything is public in take4",
    ]
    for f in fs:
        kind = f["event"].get("type")
        if kind == "deal" and game == "arschmallows":
            lines.append(f"-- round {f['event']['round'] + 1} --")
            lines.append("  " + seen(f["text"], seat))
            for s in range(len(names)):
                lines.append(f"    {_who(names, s)}: {_row(f, s, seat)}")
            continue
        if kind == "round_end" and game == "arschmallows":
            # the narration's lines: every row revealed and summed, the totals after it
            lines += ["  " + line for line in seen(f["text"], seat).splitlines()]
            continue
        if kind == "picks":
            lines.append(seen(f["text"], seat))
            continue
        lines.append("  " + seen(f["text"], seat))
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
