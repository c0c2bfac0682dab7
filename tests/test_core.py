"""Seeding streams, competition ranking and the random policy: the pieces every game uses."""

import random

import pytest
from hypothesis import given, strategies as st

from mallows import seeding
from mallows.games.base import ReplayChance, SeededChance, competition_ranks
from mallows.agents.policy import random_action


def test_deal_stream_depends_only_on_seed_and_round():
    a = SeededChance(7)
    b = SeededChance(7)
    cards = list(range(62))
    b.shuffle("reshuffle", 0, cards)  # drawing from another stream first must not move the deal
    b.choice("race", 0, [0, 1])
    b.shuffle("dice", 3, cards)  # nor from a stream a new game names
    assert a.shuffle("deal", 3, cards) == b.shuffle("deal", 3, cards)
    assert SeededChance(7).shuffle("deal", 3, cards) != SeededChance(7).shuffle("deal", 4, cards)
    assert SeededChance(8).shuffle("deal", 3, cards) != SeededChance(7).shuffle("deal", 3, cards)


def test_reshuffles_of_a_round_draw_in_order_from_one_stream():
    cards = list(range(20))
    a = SeededChance(1)
    first, second = a.shuffle("reshuffle", 2, cards), a.shuffle("reshuffle", 2, cards)
    assert first != second
    b = SeededChance(1)
    b.shuffle("deal", 2, cards)
    assert b.shuffle("reshuffle", 2, cards) == first


def test_the_known_streams_keep_their_record_v1_spawn_keys():
    """The same seed deals the same cards: deal, reshuffle and race are the SeedSequence
    children (0, r), (1, r) and (2, r) of the match seed, as before streams had names."""
    import numpy as np

    def old(seed, *key):
        return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))

    cards = list(range(64))
    for seed, r in ((0, 0), (2026, 3), (2**63 - 1, 17)):
        chance = SeededChance(seed)
        assert chance.shuffle("deal", r, cards) == [
            cards[i] for i in old(seed, 0, r).permutation(64)
        ]
        assert chance.shuffle("reshuffle", r, cards) == [
            cards[i] for i in old(seed, 1, r).permutation(64)
        ]
        assert chance.choice("race", r, [3, 5, 7]) == [3, 5, 7][int(old(seed, 2, r).integers(3))]


@given(
    st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    st.from_regex(r"[a-z][a-z0-9_]{0,12}", fullmatch=True),
    st.integers(0, 50),
    st.integers(0, 50),
)
def test_stream_keys_never_collide(a, b, r, s):
    """A stream's key is injective in (name, round) and never meets the bot or fallback keys."""
    if (a, r) != (b, s):
        assert seeding.stream_key(a, r) != seeding.stream_key(b, s)
    assert seeding.stream_key(a, r)[0] not in (3, 4)


@pytest.mark.parametrize(
    "name, round_",
    [("", 0), ("Deal", 0), ("deal-2", 0), ("x" * 41, 0), ("deal", -1), ("deal", True), (3, 0)],
)
def test_a_bad_stream_name_or_round_is_refused(name, round_):
    with pytest.raises(ValueError, match="chance stream"):
        seeding.stream_key(name, round_)


@given(st.integers(0, 2**63 - 1), st.integers(0, 5))
def test_bot_seeds_are_json_safe_and_distinct_per_seat(seed, seat):
    s = seeding.bot_seed(seed, seat)
    assert 0 <= s < 2**53
    assert s == seeding.bot_seed(seed, seat)
    assert s != seeding.bot_seed(seed, seat + 1)
    assert s != seeding.fallback_seed(seed, seat)


def test_replay_chance_returns_recorded_draws_in_order():
    events = [
        {"type": "deal", "deck": [3, 1, 2]},
        {"type": "reshuffle", "deck": [9, 8]},
        {"type": "race", "winner": 2},
        {"type": "deal", "deck": [1]},
        {"type": "dice", "roll": 6},
        {"type": "action", "deck": [0]},
    ]
    chance = ReplayChance(
        events, {"deal": "deck", "reshuffle": "deck", "race": "winner", "dice": "roll"}
    )
    assert chance.shuffle("deal", 0, [1, 2, 3]) == [3, 1, 2]
    assert chance.shuffle("reshuffle", 0, [8, 9]) == [9, 8]
    assert chance.choice("race", 0, [0, 2], at=1) == 2
    assert chance.shuffle("deal", 1, [1]) == [1]
    assert chance.choice("dice", 0, [1, 2, 3, 4, 5, 6]) == 6
    with pytest.raises(ValueError, match="no more 'deal' events"):
        chance.shuffle("deal", 2, [1])


def test_replay_chance_refuses_a_draw_the_game_could_not_have_made():
    chance = ReplayChance(
        [{"type": "deal", "deck": [1, 1]}, {"type": "race", "winner": 5}],
        {"deal": "deck", "race": "winner"},
    )
    with pytest.raises(ValueError, match="not a shuffle"):
        chance.shuffle("deal", 0, [1, 2])
    with pytest.raises(ValueError, match="not one of"):
        chance.choice("race", 0, [0, 1])


@pytest.mark.parametrize(
    "keys, forfeits, ranks",
    [
        ([5, 3, 9], [], [1, 0, 2]),
        ([1, 1, 2], [], [0, 0, 2]),  # tied seats share the better rank, next skips
        ([2, 1, 1, 0], [], [3, 1, 1, 0]),
        ([0, 5, 9], ["crashed", None, None], [2, 0, 1]),  # a forfeit ranks below every other seat
        (
            [0, 5, 9],
            ["crashed", None, "timeout"],
            [1, 0, 1],
        ),  # forfeited seats tie among themselves
        ([(3, -1), (3, -2)], [], [1, 0]),  # tuple keys: tie-break on the second element
    ],
)
def test_competition_ranks(keys, forfeits, ranks):
    assert competition_ranks(keys, forfeits) == ranks


def test_random_policy_calls_rarely_and_expands_get_rid():
    rng = random.Random(0)
    end = {
        "game": "arschmallows",
        "phase": "end",
        "legal_actions": [{"type": "call"}, {"type": "pass"}],
    }
    calls = sum(random_action(end, rng)["type"] == "call" for _ in range(4000))
    assert 100 < calls < 320  # about 1 in 20
    use = {
        "game": "arschmallows",
        "phase": "use",
        "legal_actions": [{"type": "get_rid", "choose_from": [0, 2, 5]}],
    }
    for _ in range(50):
        action = random_action(use, rng)
        assert action["type"] == "get_rid"
        assert 2 <= len(action["slots"]) == len(set(action["slots"])) <= 3
        assert set(action["slots"]) <= {0, 2, 5}


def test_limits_from_a_mapping_name_a_bad_key_or_value():
    from mallows.agents.protocol import Limits
    from mallows.errors import MallowsError

    assert Limits.from_dict({"decision_seconds": 2}).decision_seconds == 2.0
    with pytest.raises(MallowsError, match="unknown limit 'decison_seconds'"):
        Limits.from_dict({"decison_seconds": 2})
    with pytest.raises(MallowsError, match="from 0.01 to 3600: below the floor"):
        Limits.from_dict({"decision_seconds": -1})
    with pytest.raises(MallowsError, match="must be a number of seconds"):
        Limits.from_dict({"decision_seconds": "fast"})


def test_memory_limit_is_whole_mib_and_zero_means_none():
    from mallows.agents.protocol import Limits
    from mallows.errors import MallowsError

    assert Limits.from_dict({"memory_mb": 0}).memory_mb == 0
    assert Limits.from_dict({"memory_mb": 512}).memory_mb == 512
    with pytest.raises(MallowsError, match="whole number of MiB"):
        Limits.from_dict({"memory_mb": 1.5})
    assert Limits.from_dict({"memory_mb": 512.0}).memory_mb == 512  # TOML may write 512.0
    for bad in (float("inf"), float("nan"), True):
        with pytest.raises(MallowsError, match="must be a number of seconds"):
            Limits.from_dict({"match_seconds": bad})


def test_a_tournament_file_and_the_cli_share_the_limits_validator(tmp_path):
    from mallows.tournaments.roundrobin.spec import TournamentError, parse_tournament

    base = {
        "name": "l",
        "game": "take4",
        "players": 2,
        "deals": 1,
        "seed": 1,
        "bots": ["random", "greedy"],
    }
    t = parse_tournament({**base, "limits": {"memory_mb": 512.0, "decision_seconds": 2}})
    assert t.limits == {"memory_mb": 512, "decision_seconds": 2.0}
    with pytest.raises(TournamentError, match=r"\[limits\]: limit decision_seconds = inf must be"):
        parse_tournament({**base, "limits": {"decision_seconds": float("inf")}})


def _options_of_kind(kind):
    """(game, option) for every registered game's options whose default is of ``kind``."""
    from mallows.games import game_ids, get_game

    return [
        (g, key)
        for g in game_ids()
        for key, value in get_game(g).make_options().items()
        if type(value) is kind
    ]


@pytest.mark.parametrize("game, option", _options_of_kind(int))
@pytest.mark.parametrize("text", ["+-5", "1_000", "5.0", "", "five"])
def test_an_unreadable_whole_number_option_is_a_clear_error(game, option, text):
    from mallows.errors import GameConfigError
    from mallows.games import get_game

    with pytest.raises(GameConfigError, match=option):
        get_game(game).make_options(None, {option: text})


@pytest.mark.parametrize("game, option", _options_of_kind(int))
def test_whole_number_strings_read_the_same_in_every_game(game, option):
    from mallows.errors import GameConfigError
    from mallows.games import get_game

    module = get_game(game)
    default = module.make_options()[option]
    assert module.make_options(None, {option: f" +{default} "})[option] == default
    with pytest.raises(GameConfigError, match=option):  # every range has an end
        module.make_options(None, {option: "10000000000"})


@pytest.mark.parametrize("game, flag", _options_of_kind(bool))
def test_boolean_strings_read_the_same_in_every_game(game, flag):
    from mallows.games import get_game

    module = get_game(game)
    assert module.make_options(None, {flag: "Yes"})[flag] is True
    assert module.make_options(None, {flag: "off"})[flag] is False


def test_the_option_tests_reach_both_kinds():
    assert len(_options_of_kind(int)) >= 2 and len(_options_of_kind(bool)) >= 2


def test_bots_get_their_own_copies_of_the_options_and_the_result():
    """A bot that edits its match-start info or its match-end result changes neither the
    engine, nor the record, nor what the other seats got."""
    from mallows.agents.protocol import InProcessBot
    from mallows.games import get_game
    from mallows.runner.match import play_match

    seen = []

    class Vandal:
        def match_start(self, info):
            info["options"]["rounds"] = 1
            info["options"]["table_cards"] = 2

        def act(self, observation):
            return random_action(observation, random.Random(0))

        def match_end(self, info):
            seen.append(info["result"])
            info["result"]["ranks"][:] = [9] * len(info["result"]["ranks"])
            info["result"]["totals"].append(-1)

    options = get_game("arschmallows").make_options("standard", {})
    bots = [InProcessBot(Vandal(), f"v{i}") for i in range(3)]
    record = play_match("arschmallows", options, 5, bots)
    assert record["options"] == options
    assert len(record["result"]["round_scores"]) == options["rounds"]
    assert 9 not in record["result"]["ranks"] and -1 not in record["result"]["totals"]
    assert len(seen) == 3 and seen[0] is not seen[1]
    assert seen[1]["ranks"] == [9, 9, 9]  # each seat edited its own copy only
    assert seen[2]["totals"][:-1] == record["result"]["totals"]
