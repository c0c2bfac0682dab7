"""The take4 module contract (constants, make_options, summary) and the two shipped bots that
play it: ``random`` (shared with Arschmallows) and ``greedy`` (RULES.md T9: best squad first,
never a duplicate)."""

import random

import pytest

from mallows.agents.protocol import Limits
from mallows.errors import GameConfigError
from mallows.games import get_game
from mallows.games.take4 import rules
from mallows.games.take4.cards import SQUADS
from mallows.agents.policy import random_action
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match

take4 = get_game("take4")
LIMITS = Limits(decision_seconds=30.0, match_seconds=1e9)


def test_module_constants():
    assert (take4.NAME, take4.MIN_PLAYERS, take4.MAX_PLAYERS, take4.SIMULTANEOUS) == (
        "take4",
        2,
        4,
        True,
    )
    assert take4.DEFAULT_RULES in take4.RULE_SETS
    assert take4.make_options() == {"max_rounds": 1000, "rank_losers_by_progress": False}


@pytest.mark.parametrize(
    "overrides, expected",
    [
        ({"max_rounds": "20"}, {"max_rounds": 20}),
        ({"max_rounds": 1}, {"max_rounds": 1}),
        ({"rank_losers_by_progress": "true"}, {"rank_losers_by_progress": True}),
        ({"rank_losers_by_progress": "No"}, {"rank_losers_by_progress": False}),
        ({"rank_losers_by_progress": 1}, {"rank_losers_by_progress": True}),
        ({"rank_losers_by_progress": True}, {"rank_losers_by_progress": True}),
    ],
)
def test_make_options_coerces(overrides, expected):
    options = take4.make_options("default", overrides)
    assert options == {**take4.make_options(), **expected}
    assert all(type(options[k]) is type(take4.make_options()[k]) for k in options)


@pytest.mark.parametrize(
    "rules, overrides, names",
    [
        (None, {"max_rounds": "0"}, ["max_rounds", "1 to"]),
        (None, {"max_rounds": -3}, ["max_rounds"]),
        (None, {"max_rounds": "2.5"}, ["max_rounds", "whole number"]),
        (None, {"max_rounds": True}, ["max_rounds"]),
        (None, {"max_rounds": 10**9}, ["max_rounds", "out of range"]),
        (
            None,
            {"rank_losers_by_progress": "perhaps"},
            ["rank_losers_by_progress", "true or false"],
        ),
        (None, {"rank_losers_by_progress": 2}, ["rank_losers_by_progress"]),
        (None, {"table_cards": 4}, ["table_cards", "max_rounds, rank_losers_by_progress"]),
        ("standard", {}, ["standard", "default"]),
    ],
)
def test_make_options_refuses_with_the_option_and_the_fix(rules, overrides, names):
    with pytest.raises(GameConfigError) as info:
        take4.make_options(rules, overrides)
    for name in names:
        assert name in str(info.value)


def _record(winners, collections, reason, forfeits=None, max_rounds=1000):
    n = len(collections)
    forfeits = forfeits or [None] * n
    events = [{"type": "picks", "round": r, "picks": [1] * n} for r in range(7)]
    events.append({"type": "game_end", "reason": reason, "winners": winners})
    return {
        "game": "take4",
        "options": {"max_rounds": max_rounds, "rank_losers_by_progress": False},
        "players": [f"bot{s}" for s in range(n)],
        "events": events,
        "result": {
            "ranks": rules.ranks(winners, collections, forfeits, False),
            "winners": winners,
            "collections": collections,
            "forfeits": forfeits,
        },
    }


def test_summary_shared_win_and_forfeit():
    c, f = list(SQUADS["Classic"]), list(SQUADS["Fantasy"])
    headers, rows, notes = take4.summary(
        _record([0, 1], [c, f, ["Cam", "Cam"]], "squad", [None, None, "act() raised X"])
    )
    assert headers[:3] == ["place", "seat", "bot"]  # places from 1, as every table shows them
    assert [(row[0], row[1]) for row in rows] == [("1", 0), ("1", 1), ("3 (forfeit)", 2)]
    assert rows[2][-1] == "Cam, Cam"
    assert rows[0][4] == "Classic 4/4"
    assert any("seat 0 (bot0: Classic), seat 1 (bot1: Fantasy) share the win" in n for n in notes)
    assert any("round 7." in n for n in notes)  # record rounds 0..6: the 7th, counted from 1
    assert any("seat 2 (bot2) forfeited: act() raised X" in n for n in notes)


@pytest.mark.parametrize(
    "reason, words",
    [
        ("deck_empty", "deck ran out after 7 rounds"),
        ("round_limit", "round limit of 7 rounds"),
    ],
)
def test_summary_without_winner(reason, words):
    _, rows, notes = take4.summary(_record([], [["Cam"], []], reason, max_rounds=7))
    assert any(words in n for n in notes) and any("No winner" in n for n in notes)
    assert rows[1][-1] == "-" and rows[1][4] == "-"


# -- the bots -----------------------------------------------------------------------------------


def _obs(seat, positions, collections):
    legal = [{"type": "pick", "position": p} for p in range(1, 5) if positions[p - 1]]
    return {
        "protocol": 1,
        "game": "take4",
        "seat": seat,
        "players": len(collections),
        "phase": "pick",
        "legal_actions": legal,
        "positions": positions,
        "collections": collections,
        "round": 0,
        "deck": 10,
        "history": [],
        "options": take4.make_options(),
        "squads": {k: list(v) for k, v in SQUADS.items()},
    }


def greedy():
    bot = load_bot("greedy").cls()
    bot.match_start({"seed": 1})
    return bot


@pytest.mark.parametrize(
    "positions, mine, expected",
    [
        # the card that completes a squad beats everything
        (["Archie", "Lola", "Maui", "Carl"], ["Cam", "Winston", "Malcolm", "Maui", "Carl"], 2),
        # never a character already held, even in the best squad
        (["Cam", "Patty", None, None], ["Cam", "Winston"], 2),
        # the squad it is furthest in
        (["Tatiana", "Stacy", "Chanel", "Cam"], ["Sheldon", "Gordon", "Maui"], 2),
        # a short deck: only filled positions
        (["Cam", None, None, None], [], 1),
    ],
)
def test_greedy_take4_choice(positions, mine, expected):
    bot = greedy()
    for _ in range(20):
        assert bot.act(_obs(0, positions, [mine, []]))["position"] == expected


def test_greedy_take4_denies_when_it_holds_everything_on_the_table():
    # it holds all four cards shown; seat 1 would complete Fantasy with Patty
    positions = ["Cam", "Patty", "Archie", "Maui"]
    mine = ["Cam", "Patty", "Archie", "Maui"]
    theirs = ["Tatiana", "Michaela", "Leonard"]
    assert greedy().act(_obs(0, positions, [mine, theirs]))["position"] == 2


def greedy_seeded(seed):
    bot = load_bot("greedy").cls()
    bot.match_start({"seed": seed})
    return bot


def test_greedy_take4_breaks_ties_from_its_seed():
    obs = _obs(0, ["Cam", "Tatiana", "Archie", "Maui"], [[], []])  # all four tie
    a, b, c = greedy_seeded(1), greedy_seeded(1), greedy_seeded(2)
    seq_a = [a.act(obs)["position"] for _ in range(40)]
    assert seq_a == [b.act(obs)["position"] for _ in range(40)]
    assert seq_a != [c.act(obs)["position"] for _ in range(40)]
    assert set(seq_a) == {1, 2, 3, 4}


def test_greedy_refuses_a_game_it_does_not_play():
    with pytest.raises(ValueError, match="does not play"):
        greedy().act({"game": "chess", "legal_actions": []})


@pytest.mark.parametrize("name", ["random", "greedy"])
def test_shipped_bots_play_take4_without_forfeits(name):
    spec = load_bot(name)
    assert "take4" in spec.cls.games
    for players in (2, 3, 4):
        for seed in range(5):
            record = play_match(
                "take4", take4.make_options(), seed, [spec.handle(LIMITS) for _ in range(players)]
            )
            assert record["result"]["forfeits"] == [None] * players
            assert record["players"] == [name] * players


def test_greedy_beats_random_over_a_fixed_set_of_deals():
    greedy_spec, random_spec = load_bot("greedy"), load_bot("random")
    wins = {"greedy": 0, "random": 0}
    for seed in range(30):
        for order in (("greedy", "random"), ("random", "greedy")):
            specs = [greedy_spec if n == "greedy" else random_spec for n in order]
            record = play_match(
                "take4",
                take4.make_options(),
                seed,
                [s.handle(LIMITS) for s in specs],
                names=list(order),
            )
            for seat in record["result"]["winners"]:
                wins[order[seat]] += 1
    assert wins["greedy"] > 3 * wins["random"], wins


def test_random_policy_is_uniform_over_filled_positions():
    rng = random.Random(3)
    obs = _obs(0, ["Cam", "Lola", "Maui", None], [[], []])
    counts = {p: 0 for p in (1, 2, 3)}
    for _ in range(3000):
        counts[random_action(obs, rng)["position"]] += 1
    assert all(900 < c < 1100 for c in counts.values()), counts
