"""Take4 for the learning bridges (``mallows.games.faces.Interop``): the encoder of
``encoding`` behind the ``Codec`` interface, the OpenSpiel parameters and chance outcomes, and
a record's decisions (each ``picks`` event is one pick per seat, all shown the same table).
The encoding itself is ``encoding``'s: nothing is encoded here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mallows.games.take4 import encoding
from mallows.games.take4.cards import CHARACTERS

__all__ = [
    "Take4Codec",
    "fast_core",
    "chance_kinds",
    "codec",
    "decisions",
    "max_game_length",
    "openspiel_defaults",
    "openspiel_options",
]


def fast_core(seed: int, players: int, options: Mapping[str, Any]) -> Any:
    """The match on the compiled core (``take4.core.CoreTake4``: the interop table steps it
    without building observations), or None where the core is not built or is turned off."""
    from mallows.games.take4 import core

    return core.CoreTake4(seed, players, dict(options)) if core.available() else None


class Take4Codec:
    def __init__(self, players: int):
        self.size, self.actions, self.low = encoding.SIZE, encoding.ACTIONS, 0.0

    def vector(self, observation: Mapping, seat: int) -> np.ndarray:
        return encoding.encode(observation)

    def mask(self, observation: Mapping, seat: int) -> np.ndarray:
        return encoding.action_mask(observation)

    def take(self, observation: Mapping, seat: int, number: int) -> dict | None:
        action = encoding.action_of(number)
        if not encoding.action_mask(observation)[number]:
            raise ValueError(f"position {number + 1} cannot be picked now")
        return action

    def describe(self, number: int) -> str:
        return f"pick position {number + 1}"

    def reset(self) -> None:
        pass

    def numbers(self, observation: Mapping, seat: int, action: Mapping) -> list[int]:
        return [int(action["position"]) - 1]


def codec(players: int, slots: int) -> Take4Codec:
    return Take4Codec(players)


def chance_kinds() -> tuple:
    return tuple(CHARACTERS)


def openspiel_defaults() -> dict[str, Any]:
    return {"players": 2, "max_rounds": 200}


def openspiel_options(params: Mapping[str, Any]) -> dict[str, Any]:
    return {"max_rounds": int(params["max_rounds"])}


def max_game_length(options: Mapping[str, Any], players: int, slots: int) -> int:
    return 64 + options["max_rounds"] * 2 * players


def decisions(state: Any, event: Mapping) -> list[tuple[int, dict, dict]]:
    if event.get("type") != "picks":
        return []
    shown = {s: state.observation(s) for s in range(len(event["picks"]))}
    out = []
    for seat, position in enumerate(event["picks"]):
        action = {"type": "pick", "position": position}
        out.append((seat, shown[seat], action))
        state.apply(seat, action)
    return out
