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
from mallows.games.faces import Codec, Interop, interop_of


def _face(game: Any) -> Interop:
    try:
        return interop_of(str(game))
    except MallowsError as exc:
        raise MallowsError(f"no trajectories for game {game!r}: {exc}") from None


def decisions(record: Mapping) -> Iterator[tuple[int, dict, dict, bool]]:
    """``(seat, observation, action, after_forfeit)`` for every decision of ``record`` (which
    events hold decisions is the game's codec face's ``decisions``)."""
    game = str(record.get("game"))
    face = _face(game)
    module = get_game(game)
    events = record["events"]
    state = module.new_state(
        record["options"], len(record["players"]), ReplayChance(events, module.CHANCE_EVENTS)
    )
    forfeited: set[int] = set()
    for event in events:
        if event.get("type") == "forfeit":
            forfeited.add(int(event["seat"]))
            continue
        for seat, obs, action in face.decisions(state, event):
            yield seat, obs, action, seat in forfeited


def _numbers(codec: Codec, observation: dict, seat: int, action: Mapping) -> list[int]:
    try:
        return codec.numbers(observation, seat, action)
    except ValueError as exc:
        raise MallowsError(str(exc)) from None


def trajectory_rows(match_id: str, record: Mapping) -> Iterator[dict[str, Any]]:
    """One row per decision of ``record`` (see the module docstring)."""
    game = record["game"]
    players = len(record["players"])
    codec = _face(game).codec(players, 24)
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
