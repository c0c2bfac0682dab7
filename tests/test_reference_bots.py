"""The shipped reference bots (issue 5): they play complete matches, take parameters, keep to
their budgets, never sample a seen card, and are ordered where it is cheap to check.

Fast by design (a few tens of seconds): ``ismcts`` runs with a tiny budget here; the full,
statistically certain ladder is ``benchmarks/ladder.py``.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter

import pytest

from mallows.games.arschmallows import botkit as botlib
from mallows.agents.protocol import Limits
from mallows.errors import BotError
from mallows.games import get_game
from mallows.games.arschmallows.cards import COUNTS
from mallows.games.base import SeededChance
from mallows.agents.registry import SHIPPED, load_bot
from mallows.runner.match import play_match

REFERENCE = ["random", "greedy", "heuristic", "ismcts:budget=0.003", "denial"]
LIMITS = Limits(decision_seconds=5.0, match_seconds=600.0)  # a loaded CI box must not forfeit


def _play(game: str, names: list[str], seed: int, options: dict | None = None) -> dict:
    opts = get_game(game).make_options(None, options or {})
    handles = [load_bot(n).handle(LIMITS) for n in names]
    return play_match(game, opts, seed, handles, names)


def _games(name: str) -> tuple[str, ...]:
    spec = load_bot(name)
    assert spec.games, f"{name} declares no games"
    return spec.games


def test_reference_bots_are_shipped_and_in_process():
    for name in REFERENCE:
        spec = load_bot(name)
        assert spec.base in SHIPPED
        assert spec.trusted and not spec.isolated, name
        module_doc = sys.modules[spec.cls.__module__].__doc__
        assert module_doc and "Strength" in module_doc and "Speed" in module_doc, name


@pytest.mark.parametrize("name", REFERENCE)
def test_plays_complete_matches_without_forfeit(name):
    for game in _games(name):
        counts = range(2, 7) if game == "arschmallows" else range(2, 5)
        for players in counts:
            for seed in (players, 100 + players):
                # self-play, and a mixed table with the bot in a different seat each time
                tables = [
                    [name] * players,
                    [
                        name if s == seed % players else ("random" if s % 2 else "greedy")
                        for s in range(players)
                    ],
                ]
                for names in tables:
                    options = {"rounds": 2} if game == "arschmallows" else None
                    record = _play(game, names, seed, options)
                    assert record["result"]["forfeits"] == [None] * players, (
                        name,
                        game,
                        players,
                        seed,
                        record["result"]["forfeits"],
                    )
                    if game == "arschmallows":
                        ends = [e for e in record["events"] if e["type"] == "round_end"]
                        assert len(ends) == 2
                    else:
                        assert record["events"][-1]["type"] == "game_end"


def test_parameters_parse():
    bot = load_bot("ismcts:budget=0.01").handle().bot
    assert bot.budget == pytest.approx(0.01)
    assert load_bot("greedy:margin=4").handle().bot.margin == 4.0
    assert load_bot("heuristic:risk=0.8,improve=1").handle().bot.risk == pytest.approx(0.8)
    assert load_bot("denial:deny=0.5").handle().bot.deny == pytest.approx(0.5)
    assert load_bot("ismcts:search=end").handle().bot.phases == {"end"}


@pytest.mark.parametrize(
    "name, words",
    [
        ("ismcts:budget=abc", ["budget", "abc"]),
        ("ismcts:budget=0", ["budget", "out of range"]),
        ("ismcts:search=peek", ["search"]),
        ("ismcts:speed=2", ["speed"]),
        ("greedy:margin=lots", ["margin"]),
        ("heuristic:risk=2", ["risk", "out of range"]),
        ("denial:deny=x", ["deny"]),
    ],
)
def test_bad_parameter_is_a_clear_error(name, words):
    with pytest.raises(BotError) as info:
        load_bot(name).handle()
    text = str(info.value)
    assert name.split(":")[0] in text
    for word in words:
        assert word in text, text


# ------------------------------------------------------------------------ Arschmallows helpers


def _observations(seed: int, players: int = 4, policy=None, limit: int = 400):
    """Yield (state, observation of the seat to move) along a mostly heuristic-played match;
    the state is live: it moves on when the next item is asked for."""
    module = get_game("arschmallows")
    state = module.new_state(module.make_options("standard", {}), players, SeededChance(seed))
    rng = random.Random(seed)
    policy = policy or (
        lambda obs: botlib.heuristic_decide(obs) if rng.random() < 0.8 else _random(obs, rng)
    )
    count = 0
    while not state.is_terminal() and count < limit:
        seat = state.to_move()[0]
        obs = state.observation(seat)
        yield state, obs
        count += 1
        state.apply(seat, policy(obs))


def _random(obs, rng):
    from mallows.agents.policy import random_action

    return random_action(obs, rng)


def test_unseen_is_the_deck_minus_what_the_observation_shows():
    for seed in range(3):
        for state, obs in _observations(seed, limit=150):
            pool = botlib.unseen(obs)
            shown = Counter(
                s["value"] for row in obs["rows"] for s in row if s["value"] is not None
            )
            shown.update(obs["discard"])
            if obs["held"] is not None:
                shown[obs["held"]["value"]] += 1
            assert pool + shown == Counter(COUNTS)
            unknown_slots = sum(1 for row in obs["rows"] for s in row if s["value"] is None)
            assert sum(pool.values()) == unknown_slots + obs["draw_pile"]
            # and it really is what the seat has not seen: the true hidden cards
            seat = obs["seat"]
            view = state.knowledge.views[seat]
            truly = Counter(state.values[c] for row in state.rows for c in row if view[c] is None)
            truly.update(state.values[c] for c in state.draw)
            assert truly == pool


def test_determinization_samples_only_unseen_cards():
    rng = random.Random(7)
    checked = 0
    for seed in range(4):
        for _state, obs in _observations(seed, players=3 + seed % 3, limit=120):
            if obs["phase"] == "peek":
                continue
            pool = botlib.unseen(obs)
            for skew in (0.0, 0.5, 1.0):
                world = botlib.sample_world(obs, rng, pool, skew=skew)
                hidden = Counter()
                for p, row in enumerate(obs["rows"]):
                    assert len(world.rows[p]) == len(row)
                    for i, slot in enumerate(row):
                        value = world.values[world.rows[p][i]]
                        if slot["value"] is None:
                            hidden[value] += 1
                        else:
                            assert value == slot["value"]
                        assert world.up[world.rows[p][i]] == slot["face_up"]
                hidden.update(world.values[c] for c in world.draw)
                assert hidden == pool  # exactly the unseen multiset, nothing seen
                assert [world.values[c] for c in world.discard] == obs["discard"]
                checked += 1
    assert checked > 100


def test_simulator_scores_rounds_like_the_engine():
    """The forward model, given the true cards, plays a round to the engine's very scores."""
    compared = 0
    for seed in range(8):
        module = get_game("arschmallows")
        players = 2 + seed % 5
        state = module.new_state(module.make_options("standard", {}), players, SeededChance(seed))
        rng = random.Random(seed)
        sim = None
        round_ = 0
        while not state.is_terminal():
            seat = state.to_move()[0]
            obs = state.observation(seat)
            if state.round != round_:
                round_, sim = state.round, None
            if sim is None and obs["phase"] == "take" and obs["turn"] == 0:
                sim = botlib.sample_world(obs, random.Random(0))
                for p, row in enumerate(state.rows):  # the truth, not a sample
                    for i, card in enumerate(row):
                        sim.values[sim.rows[p][i]] = state.values[card]
                for k, card in enumerate(state.draw):
                    sim.values[sim.draw[k]] = state.values[card]
            action = botlib.heuristic_decide(obs) if rng.random() < 0.7 else _random(obs, rng)
            before = len(state.events)
            state.apply(seat, action)
            new = state.events[before:]
            if sim is not None and obs["phase"] != "peek":
                sim.apply(action)
                if any(e["type"] == "reshuffle" for e in new):
                    sim = None  # the engine's shuffle is not the simulator's: stop comparing
                    continue
                ends = [e for e in new if e["type"] == "round_end"]
                if ends:
                    assert sim.phase is None
                    assert sim.scores == ends[0]["scores"], (seed, ends[0])
                    compared += 1
                    sim = None
                else:
                    assert sim.phase == state.phase and sim.current == state.current
    assert compared >= 10


def test_ismcts_respects_its_budget():
    budget = 0.02
    bot = load_bot(f"ismcts:budget={budget}").handle().bot
    bot.match_start({"seed": 1})
    times, searched = [], 0
    for _state, obs in _observations(3, limit=200):
        if obs["phase"] == "peek":
            continue
        t0 = time.perf_counter()
        action = bot.act(obs)
        times.append(time.perf_counter() - t0)
        searched += bot.last_iterations > 0
        assert action["type"] in {a["type"] for a in obs["legal_actions"]}
    assert searched >= 20
    assert statistics.median(times) <= budget + 0.01
    assert max(times) < 1.0


def test_ismcts_is_reproducible_with_an_iteration_cap():
    obs_list = [obs for _s, obs in _observations(5, limit=60) if obs["phase"] != "peek"]
    answers = []
    for _ in range(2):
        bot = load_bot("ismcts:budget=10,iterations=5,seed=9").handle().bot
        answers.append([bot.act(obs) for obs in obs_list])
    assert answers[0] == answers[1]


# ------------------------------------------------------------------------ order (cheap checks)


def _duplicate(game: str, names: list[str], seeds, options=None) -> list[list[float]]:
    """Per bot index, its results over every cyclic seat rotation of every seed: the match
    total (Arschmallows) or 1 for a win (Take4)."""
    k = len(names)
    out: list[list[float]] = [[] for _ in names]
    for seed in seeds:
        for r in range(k):
            seating = [(r + s) % k for s in range(k)]
            record = _play(game, [names[b] for b in seating], seed, options)
            result = record["result"]
            for seat, b in enumerate(seating):
                if game == "arschmallows":
                    out[b].append(result["totals"][seat])
                else:
                    out[b].append(1.0 if seat in result["winners"] else 0.0)
    return out


def test_greedy_beats_random_at_arschmallows():
    totals = _duplicate("arschmallows", ["random", "greedy", "random", "greedy"], range(6))
    greedy = statistics.fmean(totals[1] + totals[3])
    rand = statistics.fmean(totals[0] + totals[2])
    assert greedy < rand - 10, (greedy, rand)


def test_heuristic_beats_greedy_at_arschmallows():
    totals = _duplicate("arschmallows", ["greedy", "heuristic", "greedy", "heuristic"], range(6))
    assert statistics.fmean(totals[1] + totals[3]) < statistics.fmean(totals[0] + totals[2]) - 10


def test_take4_greedy_beats_random_and_denial_beats_greedy():
    wins = _duplicate("take4", ["random", "greedy", "denial"], range(120))
    rate = [statistics.fmean(w) for w in wins]
    assert rate[0] + 0.2 < rate[1], rate
    assert rate[1] + 0.05 < rate[2], rate
