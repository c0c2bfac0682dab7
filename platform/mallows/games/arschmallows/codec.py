"""Arschmallows for the learning bridges (``mallows.games.faces.Interop``): the encoder of
``encoding`` (a multi-slot action taken one slot per step, ``Steps``) behind the ``Codec``
interface, the OpenSpiel parameters and chance outcomes, and a record's decisions (each
``action`` event). The encoding itself is ``encoding``'s: nothing is encoded here."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from mallows.games.arschmallows.encoding import VALUES, Encoding, Steps

__all__ = [
    "ArschmallowsCodec",
    "chance_kinds",
    "codec",
    "decisions",
    "max_game_length",
    "openspiel_defaults",
    "openspiel_options",
]


class ArschmallowsCodec:
    def __init__(self, players: int, slots: int):
        self.encoding = Encoding(slots)
        self.steps = [Steps(self.encoding) for _ in range(players)]
        self.size, self.actions, self.low = self.encoding.size, self.encoding.actions, -1.0

    def vector(self, observation: Mapping, seat: int) -> np.ndarray:
        return self.encoding.encode(observation, self.steps[seat])

    def mask(self, observation: Mapping, seat: int) -> np.ndarray:
        return self.steps[seat].mask(observation)

    def take(self, observation: Mapping, seat: int, number: int) -> dict | None:
        return self.steps[seat].step(observation, number)

    def describe(self, number: int) -> str:
        return self.encoding.describe(number)

    def reset(self) -> None:
        for s in self.steps:
            s.reset()

    def numbers(self, observation: Mapping, seat: int, action: Mapping) -> list[int]:
        """The action numbers that take ``action`` (several for a multi-slot one), found by
        trying the legal ones."""
        steps, out = self.steps[seat], []
        steps.reset()
        target = dict(action)
        for _ in range(64):
            mask = steps.mask(observation)
            for number in map(int, mask.nonzero()[0]):
                trial_kind, trial_chosen = steps.kind, list(steps.chosen)
                done = steps.step(observation, number)
                if done is not None:
                    if done == target or (
                        done["type"] == "peek"
                        and target["type"] == "peek"
                        and sorted(done["slots"]) == sorted(target["slots"])
                    ):
                        out.append(number)
                        return out
                    steps.kind, steps.chosen = trial_kind, trial_chosen
                    continue
                if _on_the_way(steps.kind, steps.chosen, target):
                    out.append(number)
                    break
                steps.kind, steps.chosen = trial_kind, trial_chosen
            else:
                raise ValueError(f"the recorded action {target} has no action numbers")
        raise ValueError(f"the recorded action {target} takes too many steps")


def _on_the_way(kind: str | None, chosen: list[int], target: Mapping) -> bool:
    if kind == "get_rid":
        return target.get("type") == "get_rid" and list(target["slots"][: len(chosen)]) == chosen
    if kind == "peek":
        return target.get("type") == "peek" and chosen[0] in target["slots"]
    if kind == "exchange":
        return target.get("type") == "exchange" and target["slot"] == chosen[0]
    return False


def codec(players: int, slots: int) -> ArschmallowsCodec:
    return ArschmallowsCodec(players, slots)


def chance_kinds() -> tuple:
    return tuple(VALUES)


def openspiel_defaults() -> dict[str, Any]:
    return {
        "players": 2,
        "table_cards": 6,
        "rounds": 6,
        "rules": "standard",
        "max_turns_per_round": 200,
        "slots": 24,
    }


def openspiel_options(params: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "rules": str(params["rules"]),
        "table_cards": int(params["table_cards"]),
        "rounds": int(params["rounds"]),
        "max_turns_per_round": int(params["max_turns_per_round"]),
    }


def max_game_length(options: Mapping[str, Any], players: int, slots: int) -> int:
    turns = options["max_turns_per_round"] * players
    return options["rounds"] * (62 + turns * (4 + slots + 62))


def decisions(state: Any, event: Mapping) -> list[tuple[int, dict, dict]]:
    if event.get("type") != "action":
        return []
    seat = int(event["seat"])
    observation = state.observation(seat)
    state.apply(seat, event["action"])
    return [(seat, observation, event["action"])]
