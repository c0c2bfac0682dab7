"""The shipped ``belief`` bot (bots/belief.py): a protocol-2 bot that plays legal, complete
Arschmallows matches through the real runner and, with an iteration cap, the same match twice.
Its strength against ``heuristic`` and ``ismcts`` is a benchmark figure (``mallows compare``,
``benchmarks/ladder.py``), not a test."""

from __future__ import annotations

import pytest

from mallows.agents.protocol import Limits
from mallows.agents.registry import SHIPPED, load_bot
from mallows.errors import BotError
from mallows.games import get_game
from mallows.runner.match import play_match

LIMITS = Limits(decision_seconds=10.0, match_seconds=600.0)  # a loaded CI box must not forfeit


def _play(names: list[str], seed: int) -> dict:
    opts = get_game("arschmallows").make_options(None, {"rounds": 1})
    return play_match(
        "arschmallows", opts, seed, [load_bot(n).handle(LIMITS) for n in names], names
    )


def _actions(record: dict) -> list:
    return [(e["seat"], e["action"]) for e in record["events"] if e["type"] == "action"]


def test_belief_is_a_shipped_protocol_2_bot():
    spec = load_bot("belief")
    assert spec.base in SHIPPED and spec.trusted and not spec.isolated
    assert spec.cls.protocol == 2


@pytest.mark.parametrize("players, seed", [(3, 11), (4, 12)])
def test_belief_plays_legal_reproducible_matches(players, seed):
    # an iteration cap (and a budget it never reaches) makes the search reproducible; the
    # other seats are deterministic too, so the whole match repeats
    names = ["belief:iterations=3,budget=5"] + ["heuristic", "greedy", "heuristic"][: players - 1]
    first = _play(names, seed)
    assert first["result"]["forfeits"] == [None] * players  # every answer was legal
    assert [e["type"] for e in first["events"]].count("round_end") == 1
    assert len([a for a in _actions(first) if a[0] == 0]) > 5
    assert _actions(_play(names, seed)) == _actions(first)


def test_without_search_the_belief_bot_plays_its_prior():
    """``search=none``: no decision runs a rollout (the prior, ``botkit.belief_decide``)."""
    names = ["belief:search=none", "heuristic", "greedy"]
    handles = [load_bot(n).handle(LIMITS) for n in names]
    bot = handles[0].bot
    searched = []
    original = bot.search
    bot.search = lambda *a, **k: searched.append(1) or original(*a, **k)
    opts = get_game("arschmallows").make_options(None, {"rounds": 1})
    record = play_match("arschmallows", opts, 5, handles, names)
    assert record["result"]["forfeits"] == [None] * 3
    assert bot.phases == set() and searched == []


@pytest.mark.parametrize(
    "name, words",
    [
        ("belief:budget=0", ["budget", "out of range"]),
        ("belief:utility=fun", ["utility", "place"]),
        ("belief:search=peek", ["search", "none"]),
        ("belief:rollout_risk=2", ["rollout_risk", "range"]),
        ("belief:rollout_improve=x", ["rollout_improve", "number"]),
        ("belief:race=-1", ["race", "range"]),
        ("belief:bank=0.5", ["bank", "range"]),
    ],
)
def test_belief_parameters_are_checked(name, words):
    with pytest.raises(BotError) as info:
        load_bot(name).handle()
    assert all(w in str(info.value) for w in ["belief"] + words), str(info.value)


@pytest.mark.parametrize(
    "name, risk, improve",
    [
        ("belief:iterations=2,budget=5", 0.85, 5.0),
        ("belief:iterations=2,budget=5,rollout_risk=0.7,rollout_improve=3", 0.7, 3.0),
    ],
)
def test_the_rollouts_play_the_bots_rollout_call_rule(name, risk, improve):
    """Every searched world's seats call by ``rollout_risk`` / ``rollout_improve`` (default
    the tuned heuristic's 0.85 / 5, as in ``ismcts``'s rollouts)."""
    import sys

    names = [name, "heuristic", "greedy"]
    handles = [load_bot(n).handle(LIMITS) for n in names]
    module = sys.modules[type(handles[0].bot).__module__]
    seen: list[tuple[float, float]] = []

    class Recording(module.BeliefWorlds):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            seen.append((self.template.risk, self.template.improve))

    original = module.BeliefWorlds
    module.BeliefWorlds = Recording
    try:
        opts = get_game("arschmallows").make_options(None, {"rounds": 1})
        record = play_match("arschmallows", opts, 3, handles, names)
    finally:
        module.BeliefWorlds = original
    assert record["result"]["forfeits"] == [None] * 3
    assert seen and set(seen) == {(risk, improve)}


@pytest.mark.parametrize(
    "name, players, place",
    [
        ("belief", 3, True),
        ("belief", 4, False),
        ("belief:utility=place", 4, True),
        ("belief:utility=points", 3, False),
    ],
)
def test_the_default_utility_is_the_place_at_three_seats_and_the_points_above(name, players, place):
    bot = load_bot(name).handle().bot
    bot.match_start(
        {
            "game": "arschmallows",
            "seat": 0,
            "players": players,
            "seed": 1,
            "options": {"table_cards": 6},
        }
    )
    assert bot.place is place


def test_events_that_disagree_with_the_observation_fall_back_to_the_heuristic():
    """A belief that the observation contradicts (here: no events at all) is not searched: the
    bot answers with the tuned heuristic on the observation, still a legal action."""
    import copy
    import random

    from belief_helpers import play as play_tracked

    bot = load_bot("belief:iterations=2,budget=5").handle().bot
    for state, _ in play_tracked(
        3,
        4,
        lambda obs, rng: random.Random(0).choice(
            [a for a in obs["legal_actions"] if a["type"] != "get_rid"]
        ),
    ):
        if state.phase in ("take", "use"):
            (seat,) = state.to_move()
            obs = state.observation(seat)
            bot.match_start(
                {
                    "game": "arschmallows",
                    "seat": seat,
                    "players": 3,
                    "seed": 1,
                    "options": obs["options"],
                }
            )
            slim = {
                k: v
                for k, v in obs.items()
                if k not in ("protocol", "game", "options", "seat", "players")
            }
            answer = bot.act(slim, [])
            copy.deepcopy(state).apply(seat, answer)  # legal
            assert bot.last_iterations == 0
            break


def _three_rounds(name: str, instrument) -> object:
    """Play three rounds of Arschmallows with ``name`` in seat 0 (``heuristic`` and ``greedy``
    beside it), after ``instrument(bot)`` has wrapped what the test watches; the bot."""
    names = [name, "heuristic", "greedy"]
    handles = [load_bot(n).handle(LIMITS) for n in names]
    bot = handles[0].bot
    instrument(bot)
    opts = get_game("arschmallows").make_options(None, {"rounds": 3})
    record = play_match("arschmallows", opts, 8, handles, names)
    assert record["result"]["forfeits"] == [None] * 3
    return bot


def _clocked_decisions(name: str, monkeypatch) -> tuple[list[float], float, object]:
    """Play three rounds with ``name`` in seat 0 on a fake clock that moves 1 ms each time the
    bot reads it (so the time a decision takes is the work it does, the same on any machine);
    the fake time each searched decision took, the bot's share of the budget, the module."""
    import sys
    import types

    now = [0.0]
    spent: list[float] = []
    searched: list[int] = []

    def perf_counter() -> float:
        now[0] += 0.001
        return now[0]

    def instrument(bot) -> None:
        module = sys.modules[type(bot).__module__]
        monkeypatch.setattr(module, "time", types.SimpleNamespace(perf_counter=perf_counter))
        act, search = bot.act, bot.search

        def timed_act(*args, **kwargs):
            start, before = now[0], len(searched)
            out = act(*args, **kwargs)
            if len(searched) > before:  # as the bot counts it: from its own first clock read
                spent.append(now[0] - start - 0.001)
            return out

        bot.act = timed_act
        bot.search = lambda *a, **k: searched.append(1) or search(*a, **k)

    bot = _three_rounds(name, instrument)
    return spent, 0.9 * bot.budget, sys.modules[type(bot).__module__]


@pytest.mark.parametrize(
    "name, shares", [("belief:budget=0.05", None), ("belief:budget=0.05,bank=2", 2.0)]
)
def test_the_time_bank_keeps_the_match_within_the_budget_and_spends_it_where_undecided(
    monkeypatch, name, shares
):
    """A decision settled early banks the rest of its share; an undecided one draws on it, up
    to ``bank`` shares (default ``BANK_BUDGETS``); the searched decisions' total never passes
    their shares' sum by more than one world's work (the last one out of time). This match's
    longest decision takes more than 2 shares with the default bank, so ``bank=2`` holds it
    at its cap."""
    spent, share, module = _clocked_decisions(name, monkeypatch)
    one_world = 0.02  # 1 ms a clock read: a world reads the clock once per candidate, and more
    cap = shares or module.BANK_BUDGETS
    assert len(spent) > 10
    assert sum(spent) <= len(spent) * share + one_world
    assert min(spent) < share / 2  # some decisions were settled early
    assert max(spent) > share + 0.005  # and others drew on what they banked
    assert max(spent) <= cap * share + one_world


def test_without_a_bank_no_decision_passes_its_share(monkeypatch):
    spent, share, _module = _clocked_decisions("belief:budget=0.05,bank=1", monkeypatch)
    assert len(spent) > 10 and max(spent) <= share + 0.02


def _counted_decisions(name: str) -> list[int]:
    """Play three rounds with ``name`` in seat 0 (iterations alone, no clock): the worlds each
    searched decision used."""
    used: list[int] = []

    def instrument(bot) -> None:
        search = bot.search

        def counted(*args, **kwargs):
            out = search(*args, **kwargs)
            used.append(bot.last_iterations)
            return out

        bot.search = counted

    _three_rounds(name, instrument)
    return used


@pytest.mark.parametrize("bank, cap", [(None, 4), (2, 2), (1, 1)])
def test_by_iterations_the_bank_holds_worlds(bank, cap):
    """By ``iterations`` alone a decision settled early banks its unused worlds and an undecided
    one draws on them, up to ``bank`` counts in all: the searched decisions average at most
    ``iterations`` worlds, and without a bank (``bank=1``) none passes its count."""
    name = "belief:iterations=8" + (f",bank={bank}" if bank else "")
    used = _counted_decisions(name)
    assert len(used) > 10
    assert sum(used) <= 8 * len(used)  # never more than the count on average, at any point
    for k in range(1, len(used) + 1):
        assert sum(used[:k]) <= 8 * k
    assert max(used) <= 8 * cap
    assert min(used) < 8  # some decisions were settled early
    if cap > 1:
        assert max(used) > 8  # and others drew on what they banked
