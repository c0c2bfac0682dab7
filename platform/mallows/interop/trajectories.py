"""Stored matches as trajectories for offline learning: ``mallows export --trajectories``.

Owns ``decisions(record)`` (every decision of a record, replayed through the engine: the seat,
the observation it was shown and the action it answered) and ``trajectory_rows(record)``: one
JSON-ready row per decision, in the form the environments use:

``{"match", "game", "seat", "player", "step", "vector", "mask", "actions", "action",
"reward", "done", "by"}``: ``vector`` and ``mask`` are the game's encoder's
(``mallows.games.take4.encoding``, ``mallows.games.arschmallows.encoding``) for the observation
shown; ``actions`` the action numbers of the answer (one for Take4; Arschmallows' multi-slot
actions several, as the environments take them, the first from ``vector``'s step); ``action``
the protocol action; ``reward`` the seat's place mapped onto [-1, 1] on its last decision and
0 before; ``done`` true on the seat's last decision; ``by`` ``"bot"``, or ``"fallback"`` once
the seat had forfeited (the random policy played it then).

Nothing here re-implements a rule: the record's deal and races come back through
``ReplayChance`` and each action is applied by the engine.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from mallows.errors import MallowsError
from mallows.games import get_game
from mallows.games.base import ReplayChance
from mallows.interop.rewards import place_reward
from mallows.interop.table import ArschmallowsCodec, Codec, Take4Codec

GAMES = ("arschmallows", "take4")


def decisions(record: Mapping) -> Iterator[tuple[int, dict, dict, bool]]:
    """``(seat, observation, action, after_forfeit)`` for every decision of ``record``."""
    game = record.get("game")
    if game not in GAMES:
        raise MallowsError(
            f"no trajectories for game {game!r}: they are written for {', '.join(GAMES)}"
        )
    module = get_game(game)
    events = record["events"]
    state = module.new_state(
        record["options"], len(record["players"]), ReplayChance(events, module.CHANCE_EVENTS)
    )
    forfeited: set[int] = set()
    for event in events:
        kind = event.get("type")
        if kind == "forfeit":
            forfeited.add(int(event["seat"]))
        elif kind == "action" and game == "arschmallows":
            seat = int(event["seat"])
            obs = state.observation(seat)
            yield seat, obs, event["action"], seat in forfeited
            state.apply(seat, event["action"])
        elif kind == "picks" and game == "take4":
            shown = {s: state.observation(s) for s in range(len(event["picks"]))}
            for seat, position in enumerate(event["picks"]):
                action = {"type": "pick", "position": position}
                yield seat, shown[seat], action, seat in forfeited
                state.apply(seat, action)


def _numbers(codec: Codec, observation: dict, seat: int, action: Mapping) -> list[int]:
    """The action numbers that take ``action`` in the environments (several for a
    multi-slot Arschmallows action), found by trying the legal ones."""
    if isinstance(codec, Take4Codec):
        return [int(action["position"]) - 1]
    assert isinstance(codec, ArschmallowsCodec)
    steps, out = codec.steps[seat], []
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
            raise MallowsError(f"the recorded action {target} has no action numbers")
    raise MallowsError(f"the recorded action {target} takes too many steps")


def _on_the_way(kind: str | None, chosen: list[int], target: Mapping) -> bool:
    if kind == "get_rid":
        return target.get("type") == "get_rid" and list(target["slots"][: len(chosen)]) == chosen
    if kind == "peek":
        return target.get("type") == "peek" and chosen[0] in target["slots"]
    if kind == "exchange":
        return target.get("type") == "exchange" and target["slot"] == chosen[0]
    return False


def trajectory_rows(match_id: str, record: Mapping) -> Iterator[dict[str, Any]]:
    """One row per decision of ``record`` (see the module docstring)."""
    game = record["game"]
    players = len(record["players"])
    codec: Codec = Take4Codec(players) if game == "take4" else ArschmallowsCodec(players, 24)
    ranks = record["result"]["ranks"]
    rows: list[dict[str, Any]] = []
    last: dict[int, int] = {}
    for seat, obs, action, after in decisions(record):
        codec.reset()
        vector = codec.vector(obs, seat)
        mask = codec.mask(obs, seat)
        numbers = _numbers(codec, obs, seat, action)
        last[seat] = len(rows)
        rows.append(
            {
                "match": match_id,
                "game": game,
                "seat": seat,
                "player": record["players"][seat],
                "step": 0,
                "vector": [round(float(x), 6) for x in vector],
                "mask": [int(x) for x in mask],
                "actions": numbers,
                "action": action,
                "reward": 0.0,
                "done": False,
                "by": "fallback" if after else "bot",
            }
        )
    steps: dict[int, int] = {}
    for row in rows:
        row["step"] = steps.get(row["seat"], 0)
        steps[row["seat"]] = row["step"] + 1
    for seat, at in last.items():
        rows[at]["reward"] = place_reward(ranks, seat)
        rows[at]["done"] = True
    yield from rows
