"""Test helpers for the Arschmallows belief tracker: play a match on the real engine and hand
every seat the events it may see, in the tracker's reading (``botkit.belief.EVENT_FIELDS``),
built from the engine's own state as each action is applied (private values only to the seat
that saw them). The tests check the tracker against the engine's hidden truth with it."""

from __future__ import annotations

import random
from typing import Callable, Iterator

from mallows.games.arschmallows import new_state
from mallows.games.arschmallows.cards import ACTION_VALUES
from mallows.games.arschmallows.options import make_options
from mallows.games.arschmallows.policy import random_action
from mallows.games.base import SeededChance

PRIVATE = {"peek": "values", "draw": "value", "spy": "value"}


def seat_view(event: dict, seat: int) -> dict:
    """``event`` as ``seat`` sees it: another seat's private value left out."""
    key = PRIVATE.get(event["type"])
    if key is None or event.get("seat") == seat:
        return event
    return {k: v for k, v in event.items() if k != key}


def step(state, seat: int, action: dict) -> list[dict]:
    """Apply ``action`` for ``seat``; return the full events it caused (private fields in)."""
    kind = action["type"]
    values = state.values
    before = dict(held=state.held, row=list(state.rows[seat]))
    mark = len(state.events)
    ev: dict = {"type": kind, "seat": seat}
    if kind == "peek":
        i, j = sorted(action["slots"])
        ev.update(slots=[i, j], values=[values[state.rows[seat][i]], values[state.rows[seat][j]]])
    elif kind == "refuse":
        ev.update(slot=action["slot"], discarded=values[before["held"]],
                  revealed=values[state.rows[seat][action["slot"]]])
    elif kind == "spy":
        ev.update(player=action["player"], slot=action["slot"],
                  value=values[state.rows[action["player"]][action["slot"]]])
    elif kind == "exchange":
        ev.update(slot=action["slot"], player=action["player"], their_slot=action["their_slot"])
    elif kind == "get_rid":
        listed = [values[before["row"][i]] for i in action["slots"]]
        shown = []
        for v in listed:
            shown.append(v)
            if v != listed[0]:
                break
        ev.update(slots=list(action["slots"]), revealed=shown)
    elif kind == "swap":
        ev.update(slot=action["slot"])
    state.apply(seat, action)
    if kind == "draw":
        ev["value"] = values[state.held]
    elif kind == "swap":
        ev["discarded"] = values[before["row"][action["slot"]]]
    out = [ev]
    for engine_ev in state.events[mark + 1:]:
        if engine_ev["type"] == "reshuffle":
            out.append({"type": "reshuffle", "top": engine_ev["deck"][0]})
        elif engine_ev["type"] == "round_end":
            out.append({"type": "round_end"})
        elif engine_ev["type"] == "deal":
            out.append(deal_event(state))
    return out


def deal_event(state) -> dict:
    return {"type": "deal", "round": state.round,
            "discard": state.values[state.players * state.table_cards]}


def play(players: int, seed: int, choose: Callable[[dict, random.Random], dict] | None = None,
         options: dict | None = None) -> Iterator[tuple[object, list[dict]]]:
    """Play one match; yield (state, the full events of one action) after every action. The
    first yield is the opening deal. ``choose`` picks an action from an observation (default:
    the random policy)."""
    rng = random.Random(seed)
    state = new_state(make_options(None, options or {}), players, SeededChance(seed))
    yield state, [deal_event(state)]
    while not state.is_terminal():
        (seat,) = state.to_move()
        obs = state.observation(seat)
        action = (choose or random_action)(obs, rng)
        yield state, step(state, seat, action)


__all__ = ["seat_view", "step", "play", "deal_event", "ACTION_VALUES"]
