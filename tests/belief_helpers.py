"""Test helpers for the Arschmallows belief tracker: play a match on the real engine and hand
every seat its protocol-2 events (``mallows.games.arschmallows.events``, the platform's own
per-seat view), so the tests can hold the tracker against the engine's hidden truth."""

from __future__ import annotations

import random
from typing import Callable, Iterator

from mallows.games.arschmallows import new_state
from mallows.games.arschmallows.events import match_events
from mallows.games.arschmallows.options import make_options
from mallows.games.arschmallows.policy import random_action
from mallows.games.base import SeededChance


def play(
    players: int,
    seed: int,
    choose: Callable[[dict, random.Random], dict] | None = None,
    options: dict | None = None,
) -> Iterator[tuple[object, list[list[dict]]]]:
    """Play one match; yield (state, each seat's new events) after the deal and after every
    action. ``choose`` picks an action from a protocol-1 observation (default: the random
    policy)."""
    rng = random.Random(seed)
    opts = make_options(None, options or {})
    state = new_state(opts, players, SeededChance(seed))
    view = match_events(players, opts)
    cursors = [0] * players

    def batches() -> list[list[dict]]:
        view.feed(state)
        out = []
        for s in range(players):
            batch = view.for_seat(s, cursors[s])
            cursors[s] += len(batch)
            out.append(batch)
        return out

    yield state, batches()
    while not state.is_terminal():
        (seat,) = state.to_move()
        obs = state.observation(seat)
        state.apply(seat, (choose or random_action)(obs, rng))
        yield state, batches()
