"""``check_events(game_id)``: perfect recall, checked. Does a game's event view (protocol 2's
events, ``mallows.games.<id>.events``) tell each seat everything its observations tell it, and
nothing it may not know?

What it checks, for every rule set, every player count and each seed given, over random play:

- recall: folding a seat's events from the start (the game's ``SeatRecall``) rebuilds every
  observation the seat received, every key but ``legal_actions`` and the game's ``STEP_KEYS``
  (whose step it is) and the keys fixed for the match (the start info's); a game that drops a
  public event, or a private part, cannot rebuild them;
- numbering: a seat's events are numbered ``n`` = 0, 1, 2, ... without a gap, the public part
  of event ``n`` is the same for every seat, and everything is JSON data;
- secrecy (the hidden-variants check, applied to events): at sampled decisions, each copy of
  the state that differs only in what the seat has never known (the game's
  ``recall_variants``, else ``hidden_variants``) must give the seat the very same events from
  the start, translated afresh; an event that carries another seat's private value or the
  deck's order is caught;
- the protocol-2 observation a game builds itself (``events.observation``, optional) is its
  observation without the keys fixed for the match (and ``HISTORY_KEYS``), and its ``"step"``
  observation (``events.step_observation``, optional) is its observation's ``legal_actions``
  and ``STEP_KEYS``: with the fold, the whole observation again;
- the final reveal is JSON data.

``check_registry()`` runs it over every registered game that has an event view.
"""

from __future__ import annotations

import json
import random
from typing import Any, Iterable, Sequence

from mallows.errors import ConformanceError
from mallows.games import game_ids, get_game
from mallows.games.base import SeededChance
from mallows.games.events import MATCH_KEYS
from mallows.testing.games import tables

__all__ = ["check_events", "check_registry", "events_module"]


def _fail(where: str, what: str) -> None:
    raise ConformanceError(f"{where}: {what}")


def events_module(game: Any) -> Any:
    """The game's event view module (its ``events`` attribute), or None."""
    module = getattr(game, "events", None)
    return module if module is not None and hasattr(module, "match_events") else None


def start_info(game: Any, options: dict, players: int, seat: int) -> dict:
    """The start info a seat's fold starts from (as the runner sends it)."""
    info = {
        "protocol": 2,
        "game": game.NAME,
        "options": dict(options),
        "seat": seat,
        "players": players,
    }
    ev = events_module(game)
    static = getattr(ev, "static", None)
    if static is not None:
        info.update(static(options))
    return info


def check_registry(seeds: Iterable[int] = (0, 1), **kwargs: Any) -> list[str]:
    """``check_events`` for every registered game with an event view; the games checked."""
    checked = []
    for game_id in game_ids():
        if events_module(get_game(game_id)) is not None:
            check_events(game_id, seeds, **kwargs)
            checked.append(game_id)
    return checked


def check_events(
    game_id: str,
    seeds: Iterable[int] = (0, 1, 2),
    *,
    players: Sequence[int] | None = None,
    rules: Sequence[str] | None = None,
    max_decisions: int = 20_000,
    sample_every: int = 5,
) -> int:
    """Check ``game_id``'s events; return the number of decisions played. Raises
    ``ConformanceError`` naming the first problem."""
    game = get_game(game_id)
    ev = events_module(game)
    if ev is None:
        _fail(game_id, "the game has no event view (a module `events` with `match_events`)")
    decisions = 0
    for where, options, n, seed in tables(game_id, game, seeds, players, rules):
        decisions += _play(where, game, ev, options, n, seed, max_decisions, sample_every)
    return decisions


def _json(value: Any, where: str) -> str:
    try:
        return json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        _fail(where, f"not JSON data ({exc})")
        raise  # unreachable


def _play(
    where: str,
    game: Any,
    ev: Any,
    options: dict,
    n: int,
    seed: int,
    max_decisions: int,
    sample_every: int,
) -> int:
    state = game.new_state(options, n, SeededChance(seed))
    rng = random.Random(seed)
    view = ev.match_events(n, options)
    view.feed(state)
    recalls = [ev.SeatRecall(start_info(game, options, n, s)) for s in range(n)]
    cursors = [0] * n
    skip = (
        set(MATCH_KEYS)
        | set(getattr(ev, "STATIC_KEYS", ()))
        | set(getattr(ev, "STEP_KEYS", ()))
        | {"legal_actions"}
    )
    direct = getattr(ev, "observation", None)
    step_direct = getattr(ev, "step_observation", None)
    step_keys = ("legal_actions",) + tuple(getattr(ev, "STEP_KEYS", ()))
    cache: dict = {}
    dropped = (
        set(MATCH_KEYS) | set(getattr(ev, "STATIC_KEYS", ())) | set(getattr(ev, "HISTORY_KEYS", ()))
    )
    decisions = 0
    while not state.is_terminal():
        seats = list(state.to_move())
        step = {s: state.observation(s) for s in seats}
        for seat in seats:
            decisions += 1
            here = f"{where}, decision {decisions}, seat {seat}"
            if decisions > max_decisions:
                _fail(where, f"no end after {max_decisions} decisions")
            batch = view.for_seat(seat, cursors[seat])
            _check_batch(here, view, batch, seat, cursors[seat])
            cursors[seat] += len(batch)
            recalls[seat].add(batch)
            obs = step[seat]
            if direct is not None:  # the game builds protocol 2's observation itself
                v2 = _json(direct(state, seat, cache), here)
                if v2 != _json({k: v for k, v in obs.items() if k not in dropped}, here):
                    _fail(
                        here,
                        "the game's protocol-2 observation (events.observation) is not "
                        "its observation without the keys fixed for the match",
                    )
            if step_direct is not None:
                step_obs = _json(step_direct(state, seat), here)
                if step_obs != _json({k: obs[k] for k in step_keys if k in obs}, here):
                    _fail(
                        here,
                        "the game's step observation (events.step_observation) is not "
                        "its observation's legal_actions and STEP_KEYS",
                    )
            expected = {k: v for k, v in obs.items() if k not in skip}
            folded = recalls[seat].observation()
            if _json(folded, here) != _json(expected, here):
                diff = sorted(
                    k
                    for k in set(folded) | set(expected)
                    if folded.get(k, "<missing>") != expected.get(k, "<missing>")
                )
                _fail(
                    here,
                    f"folding the seat's events does not rebuild its observation: "
                    f"{', '.join(diff)} differ (from the events: "
                    f"{ {k: folded.get(k) for k in diff} }; observed: "
                    f"{ {k: expected.get(k) for k in diff} }): an event is missing "
                    f"or says too little",
                )
            if decisions <= 3 or decisions % sample_every == 0:
                _check_secrecy(here, game, ev, state, view, seat, rng)
        for seat in seats:
            state.apply(seat, game.random_action(step[seat], rng))
        view.feed(state)
    for seat in range(n):
        batch = view.for_seat(seat, cursors[seat])
        _check_batch(f"{where}, the end, seat {seat}", view, batch, seat, cursors[seat])
    _json(view.reveal(state), f"{where}: the final reveal")
    return decisions


def _check_batch(here: str, view: Any, batch: list, seat: int, start: int) -> None:
    for k, event in enumerate(batch):
        if not isinstance(event, dict) or event.get("n") != start + k:
            _fail(
                here,
                f"event {event!r} should be number n={start + k}: a seat's events are "
                f"numbered from 0 without a gap",
            )
        if "type" not in event:
            _fail(here, f"event {event!r} has no type")
        public = {k2: v for k2, v in event.items() if k2 != "private"}
        if _json(public, here) != _json(view.public[start + k], here):
            _fail(here, f"event n={start + k}'s public part is not the same for every seat")
        if "private" in event and not isinstance(event["private"], dict):
            _fail(here, f"event n={start + k}'s private part is not an object")


def _check_secrecy(
    here: str, game: Any, ev: Any, state: Any, view: Any, seat: int, rng: random.Random
) -> None:
    variants = getattr(game, "recall_variants", None) or getattr(game, "hidden_variants", None)
    if variants is None:
        return
    mine = _json(view.for_seat(seat), here)
    for k, variant in enumerate(variants(state, seat, rng)):
        other = ev.match_events(state.players, state.options)
        other.feed(variant)
        if _json(other.for_seat(seat), here) != mine:
            theirs = other.for_seat(seat)
            first = next(
                (i for i, (a, b) in enumerate(zip(view.for_seat(seat), theirs)) if a != b), None
            )
            shown = view.for_seat(seat)[first] if first is not None else None
            _fail(
                here,
                f"hidden variant {k} (differing only in what seat {seat} has never "
                f"known) gives the seat other events (first: {shown!r} becomes "
                f"{theirs[first] if first is not None else None!r}): an event leaks "
                f"hidden information",
            )
