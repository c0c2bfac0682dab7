"""A table test for each ruling of the Arschmallows rules document (platform/mallows/games/
arschmallows/RULES.md), each citing its section. Scenarios are dealt from fixed decks
(``deck_for``), never found by hunting seeds."""

from __future__ import annotations

from collections import Counter

import pytest

from arschmallows_helpers import (
    CALL,
    DRAW,
    PASS,
    TAKE,
    FixedChance,
    deck_for,
    options,
    peek_all,
    play,
    refuse,
    scenario,
    swap,
    values_rows,
    GAME,
)
from mallows.errors import IllegalAction
from mallows.games.arschmallows import rules
from mallows.games.arschmallows.cards import VALUES


def round_ends(state):
    return [e for e in state.events if e["type"] == "round_end"]


def types(state, seat=None):
    seat = state.current if seat is None else seat
    return {a["type"] for a in state.legal_actions(seat)}


def neutral_turn(state):
    """Draw and refuse the first face-down slot: the row's sum does not change."""
    play(state, DRAW, refuse(state.face_down(state.current)[0]))
    if state.phase == "end":
        play(state, PASS)


# ------------------------------------------------------------------ 1.3 deal, 1.4 peek
def test_deal_in_blocks_discard_then_draw_pile():
    """RULES.md 1.3: seat s gets deck[s*T:(s+1)*T]; the next card starts the discard pile;
    the rest, in order, is the draw pile (top first)."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[11, 3])
    assert values_rows(st) == [[1, 2, 3, 4], [5, 6, 7, 8]]
    assert st.observation(0)["discard"] == [0]
    peek_all(st)
    play(st, DRAW)
    assert st.observation(0)["held"] == {"value": 11, "source": "draw"}


def test_peek_teaches_only_the_peeking_seat():
    """RULES.md 1.4 and 4: every seat, seat 0 first, learns two own slots."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0)
    assert st.to_move() == (0,)
    st.apply(0, {"type": "peek", "slots": [2, 0]})
    assert st.to_move() == (1,)
    st.apply(1, {"type": "peek", "slots": [1, 3]})
    assert [s["value"] for s in st.observation(0)["rows"][0]] == [1, None, 3, None]
    assert [s["value"] for s in st.observation(0)["rows"][1]] == [None] * 4
    assert [s["value"] for s in st.observation(1)["rows"][1]] == [None, 6, None, 8]
    assert st.phase == "take" and st.to_move() == (0,)


# ------------------------------------------------------------------ 1.5, 1.6 take and use
def test_draw_is_private_take_discard_is_public_swap_and_refuse():
    """RULES.md 1.5/1.6: a drawn card is seen by the taker only; swap puts the old card face
    up on the discard pile; refuse discards the held card and turns the slot face up, legal
    whatever the held card's source."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[6])
    peek_all(st)
    play(st, DRAW)
    assert st.observation(0)["held"]["value"] == 6
    assert st.observation(1)["held"] is None
    play(st, swap(3), PASS)  # the 4 goes up on the discard pile, the 6 face down in slot 3
    assert st.observation(1)["discard"] == [0, 4]
    assert st.observation(0)["rows"][0][3] == {"face_up": False, "value": 6}
    assert st.observation(1)["rows"][0][3] == {"face_up": False, "value": None}
    play(st, TAKE)  # seat 1 takes the 4: everyone saw it
    assert "refuse" in types(st)
    play(st, swap(2), PASS)
    assert st.observation(0)["rows"][1][2] == {"face_up": False, "value": 4}
    assert st.observation(0)["discard"] == [0, 7]
    play(st, TAKE, refuse(2))
    assert st.observation(1)["rows"][0][2] == {"face_up": True, "value": 3}
    assert st.observation(1)["discard"] == [0, 7]


def test_a_blocked_card_never_leaves_the_row():
    """RULES.md 1.6: a refused slot is face up for the rest of the round: no swap, no
    exchange, no get_rid."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[5, 10])
    peek_all(st)
    play(st, DRAW, refuse(1), PASS)
    play(st, DRAW)  # seat 1 holds the exchange card
    exchanges = [a for a in st.legal_actions(1) if a["type"] == "exchange"]
    assert exchanges and all(a["their_slot"] != 1 for a in exchanges)
    with pytest.raises(IllegalAction, match="seat 0's slot 1 is face up"):
        st.apply(1, {"type": "exchange", "slot": 0, "player": 0, "their_slot": 1})


# ------------------------------------------------------------------ 1.7 action cards
def test_action_only_from_the_draw_pile():
    """RULES.md 1.7: an action card taken from the discard pile is only a card."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=10, draw=[9])
    peek_all(st)
    play(st, TAKE)
    assert types(st) == {"swap", "refuse", "get_rid"}
    with pytest.raises(IllegalAction, match="exchange needs a 10"):
        st.apply(0, {"type": "exchange", "slot": 0, "player": 1, "their_slot": 0})


def test_spy_any_face_down_card_own_or_other():
    """RULES.md 1.7 spy: the spying seat, and only it, learns the card; the spy card goes to
    the discard pile face up."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[9, 9])
    peek_all(st)
    play(st, DRAW)
    spies = [a for a in st.legal_actions(0) if a["type"] == "spy"]
    assert len(spies) == 8  # every face-down card on the table, own included
    play(st, {"type": "spy", "player": 1, "slot": 3}, PASS)
    assert st.observation(0)["rows"][1][3] == {"face_up": False, "value": 8}
    assert st.observation(1)["rows"][1][3]["value"] is None  # seat 1 peeked 0 and 1 only
    assert st.observation(1)["discard"] == [0, 9]
    play(st, DRAW, {"type": "spy", "player": 1, "slot": 2}, PASS)  # seat 1 spies its own
    assert st.observation(1)["rows"][1][2]["value"] == 7
    assert st.observation(0)["rows"][1][2]["value"] is None


def test_exchange_moves_the_cards_and_knowledge_follows_them():
    """RULES.md 1.7 exchange and 4: seat 0 spied seat 2's slot 1; seat 1 exchanges its slot 0
    with that card: seat 0 now knows seat 1's slot 0, and seat 2's slot 1 no more."""
    st = scenario([[1, 2, 3], [4, 5, 6], [7, 8, 0]], discard=0, draw=[9, 10])
    peek_all(st)  # everyone knows own slots 0 and 1
    play(st, DRAW, {"type": "spy", "player": 2, "slot": 1}, PASS)
    play(st, DRAW, {"type": "exchange", "slot": 0, "player": 2, "their_slot": 1}, PASS)
    assert values_rows(st) == [[1, 2, 3], [8, 5, 6], [7, 4, 0]]
    o0, o1, o2 = (st.observation(s)["rows"] for s in range(3))
    assert o0[1][0]["value"] == 8 and o0[2][1]["value"] is None
    assert o1[1][0]["value"] is None and o1[2][1]["value"] == 4  # seat 1 peeked the 4
    assert o2[1][0]["value"] == 8 and o2[2][1]["value"] is None  # seat 2 peeked the 8
    st2 = scenario([[1, 2, 3], [4, 5, 6], [7, 8, 0]], discard=0, draw=[10])
    peek_all(st2)
    play(st2, DRAW)
    with pytest.raises(IllegalAction, match="exchange is with another seat"):
        st2.apply(0, {"type": "exchange", "slot": 0, "player": 0, "their_slot": 1})


def test_play_twice_gives_two_extra_turns_and_chains():
    """RULES.md 1.7 play twice: two extra turns after this one; they add up if chained."""
    st = scenario([[1, 2, 3, 4], [5, 6, 7, 8]], discard=0, draw=[11, 11, 1, 2, 3, 4])
    peek_all(st)
    play(st, DRAW, {"type": "play_twice"})
    assert st.observation(0)["extra_turns"] == 2
    play(st, PASS)
    assert st.current == 0  # first extra turn
    play(st, DRAW, {"type": "play_twice"})  # chained: 1 left + 2 = 3
    assert st.observation(0)["extra_turns"] == 3
    play(st, PASS)
    for _ in range(3):
        assert st.current == 0
        play(st, DRAW, swap(3), PASS)
    assert st.current == 1
    seats = [
        e["seat"] for e in st.events if e["type"] == "action" and e["action"]["type"] == "draw"
    ]
    assert seats == [0] * 5


# ------------------------------------------------------------------ 1.8 get_rid
def test_get_rid_success_closes_up_the_row():
    """RULES.md 1.8: three equal values: they go to the discard pile, the held card goes face
    down into the first listed slot, the other listed slots go and the row closes up."""
    st = scenario([[7, 3, 7, 4, 7, 2], [0, 1, 2, 3, 4, 5]], discard=0, draw=[1])
    peek_all(st)
    play(st, DRAW)
    choose = [a for a in st.legal_actions(0) if a["type"] == "get_rid"]
    assert choose == [{"type": "get_rid", "choose_from": [0, 1, 2, 3, 4, 5]}]
    play(st, {"type": "get_rid", "slots": [2, 0, 4]})
    assert values_rows(st)[0] == [3, 1, 4, 2]
    assert st.observation(1)["discard"] == [0, 7, 7, 7]
    assert st.observation(0)["rows"][0][1] == {"face_up": False, "value": 1}  # drawn: known
    assert st.observation(1)["rows"][0][1] == {"face_up": False, "value": None}
    assert st.phase == "end"


def test_get_rid_mistake_reveals_to_everyone_and_adds_the_held_card_at_the_end():
    """RULES.md 1.8: revealing stops at the first differing card (revealed too); every card
    stays, face down; the held card is added face down at the end of the row."""
    st = scenario([[5, 5, 6, 5, 1, 2], [0, 1, 2, 3, 4, 0]], discard=0, draw=[8])
    peek_all(st, slots=(4, 5))
    play(st, DRAW, {"type": "get_rid", "slots": [0, 1, 2, 3]}, PASS)
    assert values_rows(st)[0] == [5, 5, 6, 5, 1, 2, 8]
    for seat in (0, 1):
        row = st.observation(seat)["rows"][0]
        assert [s["face_up"] for s in row] == [False] * 7
        assert [s["value"] for s in row[:4]] == [5, 5, 6, None]  # slot 3 was not revealed
    assert st.observation(0)["rows"][0][6]["value"] == 8  # the penalty card: drawn by seat 0
    assert st.observation(1)["rows"][0][6]["value"] is None
    assert st.observation(1)["discard"] == [0]


@pytest.mark.parametrize(
    "row, slots, succeeds",
    [
        ([9, 1, 9, 2], [0, 2], True),  # two action cards are enough
        ([11, 1, 2, 11], [3, 0], True),
        ([4, 1, 4, 2], [0, 2], False),  # two number cards are not
        ([4, 4, 4, 2], [0, 1, 2], True),
        ([10, 10, 9, 2], [0, 1, 2], False),  # all listed must be equal
    ],
)
def test_get_rid_needs_three_or_two_for_action_values(row, slots, succeeds):
    """RULES.md 1.8: at least 3 equal cards, at least 2 if the value is an action value."""
    st = scenario([row, [0, 1, 2, 3]], discard=0, draw=[6])
    peek_all(st)
    play(st, DRAW, {"type": "get_rid", "slots": slots})
    assert len(st.rows[0]) == (len(row) - len(slots) + 1 if succeeds else len(row) + 1)


# ------------------------------------------------------------------ 1.9, 1.10 triggers, final turns
def test_final_turns_in_standard_nobody_can_call():
    """RULES.md 1.9/1.10: after a call every other seat, clockwise from the next one, takes
    one more turn, without an end decision; then the round ends."""
    st = scenario([[1, 2], [3, 4], [5, 6]], discard=0, draw=[7, 7, 7, 7], rounds=2)
    peek_all(st)
    play(st, DRAW, refuse(0), CALL)
    assert st.observation(1)["final_turns"] is True and st.observation(1)["caller"] == 0
    for seat in (1, 2):
        assert st.current == seat
        play(st, DRAW, swap(0))
        if seat == 1:
            assert st.phase == "take" and "call" not in types(st)  # no end decision
            with pytest.raises(IllegalAction, match="call is not legal now"):
                st.apply(2, CALL)
    (end,) = round_ends(st)
    assert end["reason"] == "call" and end["caller"] == 0


def test_no_final_turns_in_supermallows():
    """RULES.md 1.10: without final_turns the round ends at once (rule set supermallows)."""
    st = scenario([[1, 2], [3, 4], [5, 6]], discard=0, draw=[7], rules="supermallows")
    peek_all(st)
    play(st, DRAW, refuse(0), CALL)
    (end,) = round_ends(st)
    assert end == {
        "type": "round_end",
        "round": 0,
        "reason": "call",
        "caller": 0,
        "scores": [3, 7, 11],
    }


def test_all_face_up_is_a_trigger_without_end_decision():
    """RULES.md 1.9: a row with no face-down card left ends the round, no end decision."""
    st = scenario([[1, 2], [3, 4]], discard=0, draw=[5, 6, 7, 8], rounds=2)
    peek_all(st)
    play(st, DRAW, refuse(0), PASS)
    play(st, DRAW, swap(0), PASS)
    play(st, DRAW, refuse(1))
    assert st.current == 1 and st.phase == "take"  # seat 1's final turn
    neutral_turn(st)
    (end,) = round_ends(st)
    assert end["reason"] == "all_face_up" and end["caller"] is None


def test_a_trigger_forfeits_the_triggering_seats_extra_turns():
    """RULES.md 1.9: a call forfeits the caller's pending extra turns."""
    st = scenario([[1, 2, 3], [3, 4, 5]], discard=0, draw=[11, 1, 6], rounds=2)
    peek_all(st)
    play(st, DRAW, {"type": "play_twice"}, CALL)
    assert st.current == 1 and st.extra == 0
    neutral_turn(st)
    assert round_ends(st)[0]["reason"] == "call"


def test_row_all_face_up_in_final_turns_loses_extra_turns():
    """RULES.md 1.10: extra turns won in a final turn are taken, but a seat whose row goes all
    face up during the final turns loses its pending extra turns."""
    st = scenario([[1, 2], [3, 4]], discard=0, draw=[5, 6, 7, 11, 8, 9], rounds=2)
    peek_all(st)
    play(st, DRAW, swap(0), PASS)
    play(st, DRAW, refuse(0), PASS)
    play(st, DRAW, swap(0), CALL)
    play(st, DRAW, {"type": "play_twice"})  # seat 1's final turn: 2 extra turns
    assert st.current == 1 and st.extra == 1 and st.phase == "take"  # the first extra turn
    play(st, DRAW, refuse(1))  # all face up: the second extra turn is lost
    (end,) = round_ends(st)
    assert end["reason"] == "call" and end["caller"] == 0


# ------------------------------------------------------------------ 1.11 piles
def _crowded(**overrides):
    """6 seats x 10 table cards, dealt from the sorted deck: seat 0's row starts -4, -2, ...;
    seat 1's 2, 2, 2, 2, 3, ... (slots 0 and 4 differ); an 11 on the discard pile and one 11
    left to draw."""
    deck = list(VALUES)
    return GAME.new_state(
        options(table_cards=10, **overrides),
        6,
        FixedChance(deck, reshuffle=lambda cards: cards[::-1]),
    )


def test_reshuffle_at_the_end_of_the_turn_not_before():
    """RULES.md 1.11: at the end of a turn, an empty draw pile and 2+ discard cards: the
    discard pile is shuffled, its first card is the new discard pile, the rest the draw pile;
    nobody knows the new draw pile's cards."""
    st = _crowded()
    peek_all(st)
    play(st, DRAW)
    assert st.observation(0)["draw_pile"] == 0
    play(st, swap(0))  # the -4 goes on the discard pile: [9, -4]
    assert not [e for e in st.events if e["type"] == "reshuffle"]
    play(st, PASS)
    (event,) = [e for e in st.events if e["type"] == "reshuffle"]
    assert event == {"type": "reshuffle", "deck": [-4, 11]}  # the test chance reverses
    assert st.observation(1)["discard"] == [-4] and st.observation(1)["draw_pile"] == 1
    play(st, DRAW)
    assert st.observation(1)["held"] == {"value": 11, "source": "draw"}


def test_exhaustion_ends_the_round():
    """RULES.md 1.11: a seat that can neither draw nor take from the discard pile: the round
    ends at once, reason exhausted (no reshuffle of a 1-card discard pile)."""
    st = _crowded()
    peek_all(st)
    play(st, DRAW, {"type": "get_rid", "slots": [0, 1]}, PASS)  # mistake: discard keeps 1 card
    assert not [e for e in st.events if e["type"] == "reshuffle"]
    assert st.legal_actions(1) == [{"type": "take_discard"}]
    play(st, TAKE, {"type": "get_rid", "slots": [0, 4]}, PASS)  # piles now both empty
    (end,) = round_ends(st)
    assert end["reason"] == "exhausted" and end["caller"] is None


def test_round_end_reason_stays_the_trigger_when_exhaustion_cuts_final_turns():
    """RULES.md 1.13: the end reason is the trigger also when exhaustion cuts the final turns
    short; the seat that called is the caller."""
    st = _crowded()
    peek_all(st)
    play(st, TAKE, {"type": "get_rid", "slots": [0, 1]}, CALL)  # discard empty, 1 to draw
    play(st, DRAW, {"type": "get_rid", "slots": [0, 4]})  # seat 1's final turn: both empty
    (end,) = round_ends(st)
    assert end["reason"] == "call" and end["caller"] == 0


# ------------------------------------------------------------------ 1.12 turn limit
def test_turn_limit_ends_the_round_without_caller():
    """RULES.md 1.12: after max_turns_per_round turns (extra turns count) with no trigger the
    round ends at once, no caller, reason turn_limit."""
    st = scenario(
        [[1, 2, 3], [4, 5, 6]], discard=0, draw=[11, 1, 2, 3, 4], max_turns_per_round=3, rounds=2
    )
    peek_all(st)
    play(st, DRAW, {"type": "play_twice"}, PASS)  # turn 1
    play(st, DRAW, swap(0), PASS)  # turn 2, an extra turn
    assert not round_ends(st)
    play(st, DRAW, swap(0), PASS)  # turn 3, the other extra turn
    (end,) = round_ends(st)
    assert end["reason"] == "turn_limit" and end["caller"] is None


def test_turn_limit_does_not_cut_final_turns():
    """RULES.md 1.12: the limit applies only while no trigger has happened."""
    st = scenario([[1, 2, 3], [4, 5, 6]], discard=0, draw=[7, 8], max_turns_per_round=1, rounds=2)
    peek_all(st)
    play(st, DRAW, refuse(0), CALL)
    assert st.current == 1 and not round_ends(st)
    neutral_turn(st)
    assert round_ends(st)[0]["reason"] == "call"


def test_final_turns_have_a_turn_limit_of_their_own():
    """RULES.md 1.12 (project ruling): extra turns in the final turns count towards a cap of
    their own, ``max_turns_per_round``; at the cap the round ends with its trigger as reason.
    Without it, six seats of ten cards leave only the two Play twice cards in the piles, and a
    seat that plays each one it draws in its final turn plays for ever (the draw pile empties,
    the two cards are reshuffled, it draws one again: a match that once ran into millions of
    events until its time budget ran out)."""
    left = Counter(VALUES)
    left[11] -= 2
    cards = sorted(left.elements())
    rows = [cards[s * 10 : (s + 1) * 10] for s in range(6)]
    st = scenario(rows, discard=11, draw=[11], max_turns_per_round=7, rounds=2)
    peek_all(st)
    play(st, DRAW, {"type": "play_twice"}, CALL)  # seat 0 triggers; the piles hold two 11s
    assert st.current == 1
    extra = 0
    while not round_ends(st) and extra < 100:
        play(st, DRAW, {"type": "play_twice"})  # seat 1, in its final turn, and again
        extra += 1
    (end,) = round_ends(st)
    assert end["reason"] == "call" and end["caller"] == 0
    assert extra == 1 + 7  # its final turn, then the seven extra turns the cap allows


# ------------------------------------------------------------------ 1.14 scoring
def _call_scores(rows, **overrides):
    """Seat 0 draws, refuses (its sum unchanged) and calls; the others refuse in their final
    turns. Returns the round's scores."""
    st = scenario(rows, discard=0, draw=[8] * 4, rounds=2, **overrides)
    peek_all(st)
    play(st, DRAW, refuse(0), CALL)
    while not round_ends(st):
        neutral_turn(st)
    return round_ends(st)[0]["scores"]


@pytest.mark.parametrize("rules_name", ["standard", "supermallows"])
def test_caller_tied_for_lowest_is_doubled(rules_name):
    """RULES.md 1.14: a caller tied with the lowest score is not strictly lowest: doubled."""
    assert _call_scores([[3, 4], [5, 2], [6, 7]], rules=rules_name) == [14, 7, 13]


def test_caller_tie_counts_as_lowest_when_option_is_off():
    """RULES.md 1.14, option caller_strictly_lowest=false: a tie counts as lowest."""
    assert _call_scores([[3, 4], [5, 2], [6, 7]], caller_strictly_lowest=False) == [7, 7, 13]


def test_caller_strictly_lowest_is_not_doubled_and_higher_is():
    """RULES.md 1.14."""
    assert _call_scores([[1, 2], [5, 2], [6, 7]]) == [3, 7, 13]
    assert _call_scores([[6, 2], [5, 2], [1, 7]]) == [16, 7, 8]


def test_caller_at_minus_2_undercut_by_minus_3_is_not_doubled():
    """RULES.md 1.14 (German printed rules' example): a negative caller score is not doubled."""
    assert _call_scores([[-2, 0], [-4, 1]]) == [-2, -3]


def test_double_negative_doubles_a_negative_caller_score():
    """RULES.md 1.14, option double_negative=true: the -2 caller undercut by -3 gets -4."""
    assert _call_scores([[-2, 0], [-4, 1]], double_negative=True) == [-4, -3]


def test_zero_caller_is_never_changed_and_action_cards_score_their_value():
    """RULES.md 1.14 and 1.1: every card scores its value; doubling zero changes nothing."""
    assert _call_scores([[0, 0], [-4, 1], [9, 11]]) == [0, -3, 20]


@pytest.mark.parametrize(
    "raw, caller, opts, expected, doubled",
    [
        ([5, 5, 9], 0, {}, [10, 5, 9], True),
        ([4, 5, 9], 0, {}, [4, 5, 9], False),
        ([5, 5, 9], 0, {"caller_strictly_lowest": False}, [5, 5, 9], False),
        ([-2, -3], 0, {}, [-2, -3], False),
        ([-2, -3], 0, {"double_negative": True}, [-4, -3], True),
        ([0, -1], 0, {"double_negative": True}, [0, -1], True),
        ([7, 3], None, {}, [7, 3], False),
    ],
)
def test_score_round_table(raw, caller, opts, expected, doubled):
    """RULES.md 1.14, the caller rule as a table."""
    o = {**options(), **opts}
    assert rules.score_round(raw, caller, o) == (expected, doubled)


# ------------------------------------------------------------------ 1.15 next starting seat
@pytest.mark.parametrize(
    "by, start, expected",
    [
        ([5, 9, 9], 0, 1),  # tie between 1 and 2: first clockwise from 0
        ([5, 9, 9], 2, 2),  # this round's starting seat included
        ([9, 5, 9], 1, 2),
        ([9, 5, 9], 2, 2),
        ([9, 5, 9], 0, 0),
        ([1, 2, 3, 4], 3, 3),
    ],
)
def test_next_starter_ties_go_clockwise_from_this_rounds_starter(by, start, expected):
    """RULES.md 1.15: a tie goes to the first tied seat clockwise from this round's starting
    seat, that seat included (both criteria)."""
    assert rules.next_starter(by, by, start, {"next_starter": "highest_round"}) == expected
    assert rules.next_starter(by, by, start, {"next_starter": "highest_total"}) == expected


@pytest.mark.parametrize(
    "rules_name, third_round_starter",
    [
        ("standard", 2),  # highest total after round 2: [17, 11, 19]
        ("supermallows", 0),  # highest round score in round 2: [16, 0, 8]
    ],
)
def test_next_starting_seat_in_both_rule_sets(rules_name, third_round_starter):
    """RULES.md 1.15: standard starts the next round with the highest total, supermallows
    with the highest round score; round 0 ties (11, 11) go clockwise from seat 0."""
    first = deck_for([[0, 1], [5, 6], [7, 4]], discard=0, draw=[8] * 4)
    second = deck_for([[8, 8], [0, 0], [5, 3]], discard=1, draw=[9] * 4)
    st = GAME.new_state(
        options(rules_name, table_cards=2, rounds=3), 3, FixedChance(first, second, first)
    )
    for _ in range(2):
        peek_all(st)
        starter = st.current
        play(st, DRAW, refuse(0), CALL)
        while len(round_ends(st)) < _ + 1:
            neutral_turn(st)
        if _ == 0:
            assert starter == 0 and st.starting_seat == 1
    assert [e["scores"] for e in round_ends(st)] == [[1, 11, 11], [16, 0, 8]]
    assert st.starting_seat == third_round_starter
    assert st.observation(0)["starting_seat"] == third_round_starter


# ------------------------------------------------------------------ 1.16 the result
def test_result_lowest_total_then_round_wins_then_shared_place():
    """RULES.md 1.16: lowest total first; ties broken by more round wins; still tied: shared."""
    assert rules.final_ranks([10, 10, 12, 10], [2, 1, 0, 2], [None] * 4) == [0, 2, 3, 0]
    assert rules.final_ranks([10, 10, 12, 10], [2, 1, 0, 2], [None, None, None, "x"]) == [
        0,
        1,
        2,
        3,
    ]


def test_round_wins_count_every_lowest_seat_and_result_uses_them():
    """RULES.md 1.14/1.16: all seats with the lowest round score win the round."""
    st = scenario([[1, 2], [2, 1], [5, 5]], discard=0, draw=[8] * 8, rounds=1, rules="supermallows")
    peek_all(st)
    play(st, DRAW, refuse(0), PASS)
    play(st, DRAW, refuse(0), PASS)
    play(st, DRAW, refuse(0), PASS)
    play(st, DRAW, refuse(1))  # seat 0 all face up: ends at once
    result = st.result([None] * 3)
    assert result["round_scores"] == [[3, 3, 10]]
    assert result["round_wins"] == [1, 1, 0] and result["ranks"] == [0, 0, 2]
    assert st.is_terminal() and st.to_move() == ()
