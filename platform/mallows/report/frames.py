"""Replay frames for any game: ``frames(record)`` dispatches on ``record["game"]``."""

from __future__ import annotations

from mallows.errors import IllegalAction
from mallows.report import frames_arschmallows, frames_take4
from mallows.report.frames_arschmallows import ReplayMismatch, seen

__all__ = ["frames", "seen", "ReplayMismatch"]

_BY_GAME = {"arschmallows": frames_arschmallows.frames, "take4": frames_take4.frames}


def frames(record: dict) -> list[dict]:
    game = record.get("game")
    if game not in _BY_GAME:
        raise ReplayMismatch(
            f"no card table for game {game!r} (tables are drawn for {', '.join(sorted(_BY_GAME))})"
        )
    try:
        return _BY_GAME[game](record)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, IllegalAction) as exc:
        raise ReplayMismatch(
            f"the {game} record does not replay: {type(exc).__name__}: {exc}"
        ) from None
