"""Arschmallows' web play view (``mallows.games.faces.WebView``): a seat's observation drawn as
one replay frame (the keys of ``frames``), from the observation alone, so the play page's table
shows exactly what the seat may see: its own known cards with their values, every other card
face down."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["decision", "frame"]


def decision(observation: Mapping) -> str:
    from mallows.games.arschmallows.view import PHASE

    return PHASE.get(str(observation.get("phase")), "decide")


def frame(observation: Mapping) -> dict:
    obs = observation
    me = obs["seat"]
    rows = [
        [
            [
                c["value"] if c["value"] is not None else 0,
                1 if c["face_up"] else 0,
                (1 << me) if c["value"] is not None else 0,
            ]
            for c in row
        ]
        for row in obs["rows"]
    ]
    held = obs.get("held")
    discard = obs.get("discard") or []
    return {
        "rows": rows,
        "discard": discard[-1] if discard else None,
        "discard_size": len(discard),
        "draw_pile": obs["draw_pile"],
        "held": dict(held, seat=me) if held else None,
        "current": obs.get("current_seat"),
        "phase": obs.get("phase"),
        "round": obs["round"],
        "totals": list(obs["scores"]),
        "caller": obs.get("caller"),
        "final_turns": bool(obs.get("final_turns")),
    }
