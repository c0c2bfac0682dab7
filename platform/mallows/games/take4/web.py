"""Take4's web play view (``mallows.games.faces.WebView``): a seat's observation drawn as one
replay frame (the keys of ``frames``): the positions on show, the collections, the deck."""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["decision", "frame"]


def decision(observation: Mapping) -> str:
    return "pick a position"


def frame(observation: Mapping) -> dict:
    obs = observation
    return {
        "positions": list(obs["positions"]),
        "picks": None,
        "took": None,
        "deck": obs["deck"],
        "round": obs["round"],
        "collections": obs["collections"],
        "winners": [],
    }
