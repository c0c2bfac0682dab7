"""Replay frames for any game: ``frames(record)`` asks the record's game for its replay face
(``mallows.games.faces.ReplayView``); a game without one, or a record its engine does not
replay, is a ``ReplayMismatch`` saying so (the page then tells the events in words)."""

from __future__ import annotations

from mallows.errors import GameConfigError, IllegalAction, MissingFace, ReplayMismatch
from mallows.games.describe import seen
from mallows.games.faces import replay_view

__all__ = ["frames", "seen", "ReplayMismatch"]


def frames(record: dict) -> list[dict]:
    game = record.get("game")
    try:
        face = replay_view(str(game))
    except MissingFace as exc:
        raise ReplayMismatch(str(exc)) from None
    except GameConfigError as exc:
        raise ReplayMismatch(f"no card table for game {game!r}: {exc}") from None
    try:
        return face.frames(record)
    except (KeyError, TypeError, IndexError, ValueError, AttributeError, IllegalAction) as exc:
        raise ReplayMismatch(
            f"the {game} record does not replay: {type(exc).__name__}: {exc}"
        ) from None
