"""Arschmallows: the module API, options and their errors, observations' shape, action
validation, a full match through the runner, replay and the summary."""

from __future__ import annotations

import json

import pytest

from arschmallows_helpers import (
    CALL,
    DRAW,
    GAME,
    PASS,
    TAKE,
    FixedChance,
    RandomBot,
    deck_for,
    options,
    peek_all,
    scenario,
    swap,
)
from mallows.agents.protocol import InProcessBot
from mallows.errors import GameConfigError, IllegalAction
from mallows.games.arschmallows import cards
from mallows.runner.match import play_match


def test_deck_is_62_cards_with_the_ruled_counts():
    """RULES.md 1.1: -4 x1, -2 x1, 0..7 x4, 8/9/10 x8, 11 x4."""
    assert len(cards.VALUES) == 62
    assert cards.VALUES.count(-4) == 1 and cards.VALUES.count(-2) == 1
    assert all(cards.VALUES.count(v) == 4 for v in range(8))
    assert all(cards.VALUES.count(v) == 8 for v in (8, 9, 10))
    assert cards.VALUES.count(11) == 4


def test_module_constants():
    assert GAME.NAME == "arschmallows"
    assert (GAME.MIN_PLAYERS, GAME.MAX_PLAYERS, GAME.SIMULTANEOUS) == (2, 6, False)
    assert set(GAME.RULE_SETS) == {"standard", "supermallows"}
    assert GAME.DEFAULT_RULES == "standard"


def test_rule_set_defaults():
    """RULES.md 2: the options table, both rule sets."""
    std, sup = GAME.make_options("standard"), GAME.make_options("supermallows")
    assert std == {
        "rules": "standard",
        "rounds": 6,
        "table_cards": 6,
        "final_turns": True,
        "next_starter": "highest_total",
        "caller_strictly_lowest": True,
        "double_negative": False,
        "max_turns_per_round": 500,
    }
    assert sup == {
        **std,
        "rules": "supermallows",
        "rounds": 3,
        "final_turns": False,
        "next_starter": "highest_round",
    }
    assert GAME.make_options() == std


def test_cli_strings_are_coerced():
    o = GAME.make_options(
        "standard",
        {
            "table_cards": "4",
            "final_turns": "false",
            "double_negative": "yes",
            "next_starter": "highest_round",
        },
    )
    assert (o["table_cards"], o["final_turns"], o["double_negative"]) == (4, False, True)


def test_record_options_rebuild_the_same_options():
    o = GAME.make_options("supermallows", {"table_cards": 4})
    assert GAME.make_options(None, o) == o
    with pytest.raises(GameConfigError, match="rule set given twice"):
        GAME.make_options("standard", o)


@pytest.mark.parametrize(
    "rules, overrides, words",
    [
        ("nope", {}, ["unknown arschmallows rule set 'nope'", "standard, supermallows"]),
        (None, {"colour": 1}, ["unknown arschmallows option 'colour'", "table_cards"]),
        (None, {"table_cards": 1}, ["table_cards=1 is out of range", "from 2 to 10"]),
        (None, {"table_cards": "six"}, ["table_cards='six' is not a whole number"]),
        (None, {"rounds": 0}, ["rounds=0 is out of range"]),
        (
            None,
            {"final_turns": "maybe"},
            ["final_turns='maybe' is not a boolean", "final_turns=true"],
        ),
        (
            None,
            {"next_starter": "lowest"},
            ["next_starter='lowest' is not allowed", "highest_total"],
        ),
        (None, {"max_turns_per_round": 0}, ["max_turns_per_round=0 is out of range"]),
        (None, {"table_cards": True}, ["table_cards=True is not a whole number"]),
    ],
)
def test_bad_options_are_clear_errors(rules, overrides, words):
    with pytest.raises(GameConfigError) as info:
        GAME.make_options(rules, overrides)
    for w in words:
        assert w in str(info.value)


@pytest.mark.parametrize("players", [0, 1, 7, "4"])
def test_player_count_outside_2_to_6_is_an_error(players):
    with pytest.raises(GameConfigError, match="2 to 6 players"):
        GAME.new_state(options(), players, FixedChance(list(cards.VALUES)))


def test_largest_table_fits_the_deck():
    st = GAME.new_state(options(table_cards=10), 6, FixedChance(list(cards.VALUES)))
    assert st.observation(0)["draw_pile"] == 1


def test_first_observation_keys_and_json():
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9])
    obs = st.observation(0)
    for key in (
        "protocol",
        "game",
        "options",
        "seat",
        "players",
        "phase",
        "legal_actions",
        "rules",
        "round",
        "starting_seat",
        "scores",
        "rows",
        "discard",
        "draw_pile",
        "held",
        "extra_turns",
        "caller",
        "final_turns",
    ):
        assert key in obs, key
    assert obs["protocol"] == 1 and obs["game"] == "arschmallows" and obs["phase"] == "peek"
    assert obs["rows"] == [[{"face_up": False, "value": None}] * 4] * 2
    assert obs["discard"] == [0] and obs["draw_pile"] == 62 - 9
    assert obs["legal_actions"][0] == {"type": "peek", "slots": [0, 1]}
    assert len(obs["legal_actions"]) == 6  # pairs of 4 slots
    assert json.loads(json.dumps(obs)) == obs
    assert st.observation(1)["legal_actions"] == []  # not seat 1's decision


def test_observation_is_not_changed_by_later_play():
    """An observation handed out stays a snapshot (shared parts are never changed)."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9])
    peek_all(st)
    before = json.dumps(st.observation(0))
    kept = st.observation(0)
    st.apply(0, DRAW)
    st.apply(0, swap(0))
    st.apply(0, PASS)
    assert json.dumps(kept) == before


@pytest.mark.parametrize(
    "action, message",
    [
        ("draw", "an action is a JSON object"),
        ({}, "'type' missing"),
        ({"type": "fly"}, "unknown action type 'fly'"),
        ({"type": ["draw"]}, "unknown action type"),
        ({"type": "swap", "slot": 0}, "swap is not legal now: this is the take decision"),
        ({"type": "draw", "x": 1}, "unexpected key 'x' in a draw action"),
    ],
)
def test_malformed_actions_are_refused_precisely(action, message):
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9])
    peek_all(st)
    events = len(st.events)
    with pytest.raises(IllegalAction, match=message):
        st.apply(0, action)
    assert len(st.events) == events and st.phase == "take"


def test_use_decision_errors_name_the_slot():
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9, 5])
    peek_all(st)
    st.apply(0, DRAW)
    for action, message in [
        ({"type": "swap"}, "'slot' missing"),
        ({"type": "swap", "slot": "1"}, "'slot' must be a whole number"),
        ({"type": "swap", "slot": 9}, r"no such slot 9: your row has 4 slots"),
        ({"type": "spy", "player": 7, "slot": 0}, "no such player 7"),
        ({"type": "spy", "player": 1, "slot": 4}, "no such slot 4: seat 1's row has 4 slots"),
        ({"type": "exchange", "slot": 0, "player": 1, "their_slot": 0}, "exchange needs a 10"),
        ({"type": "play_twice"}, "play_twice needs a 11"),
        ({"type": "get_rid", "slots": [0]}, "two or more"),
        ({"type": "get_rid", "slots": [0, 0]}, "slot 0 is listed twice"),
        ({"type": "get_rid", "slots": "01"}, "must be a list"),
    ]:
        with pytest.raises(IllegalAction, match=message):
            st.apply(0, action)
    with pytest.raises(IllegalAction, match="it is seat 0's turn, not seat 1's"):
        st.apply(1, {"type": "swap", "slot": 0})
    st.apply(0, {"type": "refuse", "slot": 2})
    st.apply(0, PASS)
    st.apply(1, TAKE)  # the 9 on the discard pile is no spy card any more
    with pytest.raises(IllegalAction, match="spy needs a 9"):
        st.apply(1, {"type": "spy", "player": 0, "slot": 0})
    st.apply(1, swap(0))
    st.apply(1, PASS)
    st.apply(0, DRAW)
    with pytest.raises(IllegalAction, match="slot 2 is face up"):
        st.apply(0, swap(2))


def test_numpy_integers_are_accepted_and_recorded_as_ints():
    np = pytest.importorskip("numpy")
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9])
    st.apply(0, {"type": "peek", "slots": [np.int64(2), np.int32(0)]})
    assert st.events[-1]["action"] == {"type": "peek", "slots": [0, 2]}
    assert all(type(i) is int for i in st.events[-1]["action"]["slots"])
    with pytest.raises(IllegalAction, match="must be a whole number, got 1.0"):
        st.apply(1, {"type": "peek", "slots": [1.0, 2]})
    with pytest.raises(IllegalAction, match="must be a whole number, got True"):
        st.apply(1, {"type": "peek", "slots": [True, 2]})


def test_peek_answer_in_either_order_is_recorded_ascending():
    """Peeks: either order is accepted; the record keeps [i, j] with i < j (RULES.md)."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0)
    st.apply(0, {"type": "peek", "slots": [3, 1]})
    assert st.events[-1] == {
        "type": "action",
        "seat": 0,
        "action": {"type": "peek", "slots": [1, 3]},
    }
    with pytest.raises(IllegalAction, match="exactly two"):
        st.apply(1, {"type": "peek", "slots": [0, 1, 2]})


def _match(seed, n=4, rules="standard", bots=None, **overrides):
    o = options(rules, **overrides)
    bots = bots or [RandomBot(0.05) for _ in range(n)]
    return play_match(
        "arschmallows", o, seed, [InProcessBot(b, f"b{i}") for i, b in enumerate(bots)]
    )


def test_full_match_through_the_runner_and_replay():
    record = _match(7)
    assert record["rules"] == "standard" and record["options"]["rules"] == "standard"
    result = record["result"]
    assert len(result["round_scores"]) == 6
    assert result["totals"] == [sum(r[s] for r in result["round_scores"]) for s in range(4)]
    ends = [e for e in record["events"] if e["type"] == "round_end"]
    assert [e["scores"] for e in ends] == result["round_scores"]
    json.dumps(record)
    state = GAME.replay(json.loads(json.dumps(record)))
    assert state.is_terminal()
    assert state.result(result["forfeits"]) == result
    assert state.events == record["events"]


def test_summary_lists_places_and_notes():
    record = _match(3, n=3)
    headers, rows, notes = GAME.summary(record)
    assert headers[:4] == ["place", "seat", "bot", "total"] and headers[-1] == "round wins"
    assert len(rows) == 3 and len(notes) >= 6
    ranks = record["result"]["ranks"]
    assert [int(r[0].split()[0]) for r in rows] == sorted(x + 1 for x in ranks)
    for r, note in enumerate(notes[:6]):
        assert note.startswith(f"round {r + 1}: ")
    end = [e for e in record["events"] if e["type"] == "round_end"]
    for note, e in zip(notes, end):
        if e["caller"] is not None:
            assert f"seat {e['caller']}" in note and "doubled" in note


def test_deck_for_helper_builds_a_full_deck():
    d = deck_for([[1, 2], [3, 4]], 5, [6])
    assert sorted(d) == sorted(cards.VALUES) and d[:6] == [1, 2, 3, 4, 5, 6]


def test_call_ends_round_at_once_without_final_turns():
    """RULES.md 1.10: without final_turns the round ends at once."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[3], rules="supermallows")
    peek_all(st)
    st.apply(0, DRAW)
    st.apply(0, swap(0))
    st.apply(0, CALL)
    assert st.events[-2]["type"] == "round_end" and st.round == 1
