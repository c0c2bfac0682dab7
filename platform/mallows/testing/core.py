"""The compiled core against the Python engine, side by side: one seed's match played on both
with the same answers, compared at every decision and at the end.

Owns ``side_by_side(game, seed)``: a match of ``game`` on seed ``seed`` with a player count,
rule set and options that vary with the seed (so many seeds cover every variant), its answers
drawn by the game's random policy (``random.Random(seed)``) from the Python engine's
observations; at every decision the seats to move, the legal actions and the table (the
positions and collections; the rows, held card and piles) must agree, and at the end the
record events and the result. A difference is a ``ConformanceError`` naming the seed, the
decision and both sides. Used by ``tests/test_engine_core.py`` (a few hundred seeds).

``core_played(game, seed)`` is the cheaper check ``benchmarks/bench_engines.py --side-by-side
N`` runs on 10^5 seeds: the core's own random match, its answers replayed on the Python
engine, the events and result compared.
"""

from __future__ import annotations

import random
from typing import Any

from mallows.games import get_game
from mallows.games.arschmallows.core import CoreArschmallows
from mallows.games.arschmallows.policy import random_action as ars_random
from mallows.games.base import SeededChance
from mallows.games.take4 import encoding
from mallows.games.take4.core import CoreTake4
from mallows.testing.games import ConformanceError


def _same(seed: int, step: int, what: str, python: Any, compiled: Any) -> None:
    if python != compiled:
        raise ConformanceError(
            f"seed {seed}, decision {step}: {what} differ: Python engine {python!r}, "
            f"compiled core {compiled!r}"
        )


def arschmallows_variant(seed: int) -> tuple[int, dict]:
    """The player count and options seed ``seed`` plays (every rule set and option varied)."""
    rules = ("standard", "supermallows")[seed % 2]
    over: dict[str, Any] = {}
    if seed % 3 == 0:
        over["table_cards"] = 2 + seed // 3 % 9
    if seed % 7 == 0:
        over["max_turns_per_round"] = 1 + seed // 7 % 40
    if seed % 5 == 0:
        over.update(caller_strictly_lowest=False, double_negative=True)
    if seed % 11 == 0:
        over.update(final_turns=seed % 2 == 0, next_starter="highest_round")
    if seed % 13 == 0:
        over["rounds"] = 1 + seed % 4
    players = 2 + seed % 5
    if players * over.get("table_cards", 6) > 60:
        over["table_cards"] = 4
    return players, get_game("arschmallows").make_options(rules, over)


def arschmallows(seed: int) -> int:
    """One Arschmallows seed side by side; returns the decisions compared."""
    players, options = arschmallows_variant(seed)
    rng = random.Random(seed)
    py = get_game("arschmallows").new_state(options, players, SeededChance(seed))
    core = CoreArschmallows(seed, players, options)
    step = 0
    while not py.is_terminal():
        (seat,) = py.to_move()
        _same(seed, step, "phase and seat", (py.phase, seat), core.turn())
        legal = py.legal_actions(seat)
        _same(seed, step, "legal actions", legal, core.legal_actions())
        table = core.table()
        rows = [[(py.values[c], py.up[c]) for c in row] for row in py.rows]
        held = None if py.held is None else py.values[py.held]
        _same(seed, step, "rows", rows, table["rows"])
        _same(seed, step, "held card", held, table["held"])
        _same(
            seed,
            step,
            "pile sizes",
            (len(py.discard), len(py.draw)),
            (table["discard"], table["draw"]),
        )
        action = ars_random(py.observation(seat), rng, call_probability=0.1)
        py.apply(seat, action)
        core.apply(action)
        step += 1
    _same(seed, step, "the end", True, core.is_terminal())
    _same(seed, step, "record events", py.events, core.events())
    _same(seed, step, "totals and round wins", (py.totals, py.round_wins), core.totals())
    return step


def take4(seed: int) -> int:
    """One Take4 seed side by side (the observation vectors and masks too); returns the
    decisions compared."""
    players, options = take4_variant(seed)
    rng = random.Random(seed)
    py = get_game("take4").new_state(options, players, SeededChance(seed))
    core = CoreTake4(seed, players, options)
    step = 0
    while not py.is_terminal():
        _same(seed, step, "seats to move", py.to_move(), core.to_move())
        table = core.table()
        for key in ("round", "positions", "collections"):
            _same(seed, step, key, getattr(py, key), table[key])
        _same(seed, step, "deck", len(py.deck), table["deck"])
        for seat in range(players):
            obs = py.observation(seat)
            _same(seed, step, "vectors", encoding.encode(obs).tolist(), core.encode(seat).tolist())
            _same(seed, step, "masks", encoding.action_mask(obs).tolist(), core.mask(seat).tolist())
        for seat in py.to_move():
            action = rng.choice(py.legal_actions(seat))
            py.apply(seat, action)
            core.pick(seat, action["position"])
            step += 1
    _same(seed, step, "the end", True, core.is_terminal())
    _same(seed, step, "record events", py.events, core.events())
    forfeits: list[str | None] = [None] * players
    by_progress = bool(options["rank_losers_by_progress"])
    _same(seed, step, "ranks", py.result(forfeits)["ranks"], core.ranks(forfeits, by_progress))
    return step


def side_by_side(game: str, seed: int) -> int:
    """``game``'s seed ``seed`` on both engines; the decisions compared."""
    return {"arschmallows": arschmallows, "take4": take4}[game](seed)


def take4_variant(seed: int) -> tuple[int, dict]:
    game = get_game("take4")
    options = game.make_options(None, {"max_rounds": 1 + seed % 40} if seed % 4 == 0 else {})
    return 2 + seed % 3, options


def core_played(game: str, seed: int) -> int:
    """The cheap check for very many seeds: the core plays seed ``seed`` to its end on its own
    random policy, then the Python engine, on ``SeededChance(seed)``, is given the core's
    answers: it must accept every one and record the same events (every deal, reshuffle and
    race drawn from numpy, every score) and the same result. Returns the decisions."""
    variant = arschmallows_variant if game == "arschmallows" else take4_variant
    players, options = variant(seed)
    compiled: Any = (CoreArschmallows if game == "arschmallows" else CoreTake4)(
        seed, players, options
    )
    decisions = compiled.play_random(seed)
    events = compiled.events()
    py = get_game(game).new_state(options, players, SeededChance(seed))
    for event in events:
        if event["type"] == "action":
            py.apply(event["seat"], event["action"])
        elif event["type"] == "picks":
            for seat, position in enumerate(event["picks"]):
                py.apply(seat, {"type": "pick", "position": position})
    _same(seed, decisions, "record events", py.events, events)
    _same(seed, decisions, "the end", True, py.is_terminal())
    if game == "arschmallows":
        _same(seed, decisions, "totals", (py.totals, py.round_wins), compiled.totals())
    return decisions
