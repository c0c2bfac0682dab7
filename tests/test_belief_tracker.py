"""The Arschmallows belief tracker (``botkit.Belief``), held against the engine's hidden truth
in real matches fed by the platform's own protocol-2 events: it never excludes where a card
really is, it conserves the 62 cards, its determinizations deal exactly its groups, and the soft
knowledge points the right way (table tests for the events' rulings below)."""

from __future__ import annotations

import copy
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from belief_helpers import play
from mallows.games.arschmallows.botkit import (
    Belief,
    BeliefError,
    BeliefWorlds,
    belief_decide,
    heuristic_decide,
)
from mallows.games.arschmallows.cards import COUNTS

SETTINGS = settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])

matches = st.fixed_dictionaries(
    {
        "seed": st.integers(0, 2**32 - 1),
        "players": st.integers(2, 6),
        "policy": st.sampled_from(["random", "heuristic"]),
        "table_cards": st.sampled_from([4, 6]),
    }
)


def _choose(policy: str):
    if policy == "heuristic":
        return lambda obs, rng: heuristic_decide(obs, 0.85, 5)
    return None  # the random policy


def _true_values(state) -> tuple[list[list[int]], list[int]]:
    return (
        [[state.values[c] for c in row] for row in state.rows],
        [state.values[c] for c in state.draw],
    )


def _tracked(cfg: dict):
    """Play one match, every seat tracking; yield (state, the seats' beliefs) after each step."""
    n = cfg["players"]
    beliefs = [Belief(seat=s, players=n, table_cards=cfg["table_cards"]) for s in range(n)]
    for state, batches in play(
        n,
        cfg["seed"],
        _choose(cfg["policy"]),
        options={"table_cards": cfg["table_cards"], "rounds": 2},
    ):
        for belief, batch in zip(beliefs, batches):
            belief.feed_all(batch)
        yield state, beliefs


@SETTINGS
@given(matches)
def test_the_tracker_never_excludes_the_true_card_and_conserves_the_cards(cfg):
    steps = 0
    for state, beliefs in _tracked(cfg):
        if state.is_terminal():
            break
        steps += 1
        rows, draw = _true_values(state)
        for seat, belief in enumerate(beliefs):
            # what the observation shows, the tracker already knew (sync adopts nothing)
            assert belief.sync(state.observation(seat)) == [], (cfg, steps, seat)
            known = 0
            for p, row in enumerate(belief.rows):
                assert len(row) == len(rows[p])
                for i, card in enumerate(row):
                    if card.value is None:
                        # the true value is one its group can hold
                        assert belief.groups[card.group][rows[p][i]] > 0, (cfg, steps, seat, p, i)
                    else:
                        assert card.value == rows[p][i]
                        known += 1
            assert belief.draw == len(draw)
            draw_group = belief.groups[belief.draw_group]
            assert not Counter(draw) - draw_group  # every true draw card is in its group
            # counts conserved: each group holds as many values as it has cards, and known
            # cards + hidden cards + the discard pile + the hand are the 62 cards
            assert belief.consistent()
            sizes = belief.group_sizes()
            in_hand = 1 if belief.held is not None and belief.held.value is not None else 0
            assert known + sum(sizes.values()) + len(belief.discard) + in_hand == sum(
                COUNTS.values()
            )
            assert belief.discard == [state.values[c] for c in state.discard]
    assert steps > 0


@SETTINGS
@given(matches, st.integers(0, 2**32 - 1))
def test_a_determinization_deals_exactly_the_groups(cfg, draw_seed):
    rng = random.Random(draw_seed)
    checked = 0
    for state, beliefs in _tracked(cfg):
        if state.is_terminal():
            break
        (seat,) = state.to_move()
        if state.phase == "peek" or rng.random() > 0.2:
            continue
        belief = beliefs[seat]
        obs = state.observation(seat)
        rows, draw, held = belief.sample_values(rng)
        dealt: Counter = Counter(draw)
        for p, row in enumerate(belief.rows):
            assert len(rows[p]) == len(row)
            for i, card in enumerate(row):
                if card.value is None:
                    dealt[rows[p][i]] += 1
                else:
                    assert rows[p][i] == card.value
        assert dealt == sum(belief.groups.values(), Counter())
        world = BeliefWorlds(obs, belief).sample(rng)
        # the world is the observation's: known cards where they lie, the draw pile's size
        assert len(world.draw) == obs["draw_pile"]
        for p, row in enumerate(obs["rows"]):
            for i, slot in enumerate(row):
                if slot["value"] is not None:
                    assert world.values[world.rows[p][i]] == slot["value"]
        scores = world.rollout(random.Random(1), 200)
        assert len(scores) == cfg["players"]
        copy.deepcopy(state).apply(seat, belief_decide(obs, belief))  # legal: no error
        checked += 1
        if checked >= 6:
            break


def test_kept_cards_are_believed_lower_than_the_pool():
    """An opponent that keeps the cards it draws keeps low ones: over real heuristic matches
    the tracker's belief about its kept cards is closer to the truth than the pool's mean."""
    err_belief = err_pool = 0.0
    count = 0
    for seed in range(3):
        cfg = {"seed": seed, "players": 3, "policy": "heuristic", "table_cards": 6}
        for k, (state, beliefs) in enumerate(_tracked(cfg)):
            if state.is_terminal() or k % 7:
                continue
            belief = beliefs[0]
            for p in (1, 2):
                for i, card in enumerate(belief.rows[p]):
                    if card.value is None and card.kept:
                        truth = state.values[state.rows[p][i]]
                        err_belief += (truth - belief.expected(p, i)) ** 2
                        err_pool += (truth - belief._mean(card.group)) ** 2
                        count += 1
    assert count > 50
    assert err_belief < 0.8 * err_pool


# --- table tests: each event's ruling (RULES.md section cited) as the tracker folds it


def _dealt(players: int = 3, seat: int = 0) -> Belief:
    b = Belief(seat=seat, players=players)
    b.feed(
        {
            "n": 0,
            "type": "deal",
            "round": 0,
            "starting_seat": 0,
            "discard": 5,
            "draw_pile": 62 - players * 6 - 1,
        }
    )
    return b


def test_a_reshuffle_makes_the_draw_pile_exactly_the_old_discards():
    """RULES.md 1.11: the discard pile, less its new top, becomes the draw pile."""
    b = _dealt()
    b.draw = 0  # as if the draw pile ran out
    b.discard = [5, 8, 8, 11]
    b.groups[0][8] -= 2
    b.groups[0][11] -= 1
    b.groups[0][3] += 3  # keep group 0's size the size of its cards (the 18 row cards)
    b.feed({"n": 1, "type": "reshuffle", "discard": 8, "draw_pile": 3})
    assert b.draw == 3 and b.discard == [8]
    assert b.groups[b.draw_group] == Counter({5: 1, 8: 1, 11: 1})
    with pytest.raises(BeliefError, match="not in the discard pile"):
        b.feed({"n": 2, "type": "reshuffle", "discard": -4, "draw_pile": 0})


def test_a_drawn_card_kept_is_believed_low():
    """RULES.md 1.6 swap: the card that leaves the slot is shown; the drawn card stays hidden."""
    b = _dealt()
    b.feed({"n": 1, "type": "draw", "seat": 1})
    b.feed({"n": 2, "type": "swap", "seat": 1, "slot": 2, "discarded": 3})
    card = b.rows[1][2]
    assert card.value is None and card.kept and card.known_by == 1 << 1
    assert b.discard == [5, 3]
    # it swapped a 3 out (a card it did not know, or it would have kept it) for the drawn
    # card: that card is believed below the unseen cards' mean
    assert b.expected(1, 2) < b._mean(0) - 1.5
    assert b.expected(1, 3) == pytest.approx(b._mean(0))  # untouched: the pool's mean


def test_a_refusal_caps_what_the_refuser_knows():
    """RULES.md 1.6 refuse: it had no known card worth replacing by the refused one."""
    b = _dealt()
    b.feed({"n": 1, "type": "peek", "seat": 1, "slots": [0, 1]})
    b.feed({"n": 2, "type": "draw", "seat": 1})
    b.feed({"n": 3, "type": "refuse", "seat": 1, "slot": 4, "discarded": 1, "face_up": 7})
    assert b.rows[1][4].value == 7 and b.rows[1][4].up
    assert b.rows[1][0].ceiling == pytest.approx(1.5)
    assert b.expected(1, 0) < 3 and b.expected(1, 3) > 4  # peeked and kept vs never seen


def test_own_events_teach_values_and_exchanges_move_knowledge():
    """RULES.md 1.4 peek, 1.7 spy and exchange (knowledge follows the card)."""
    b = _dealt(seat=0)
    b.feed({"n": 1, "type": "peek", "seat": 0, "slots": [0, 1], "private": {"values": [3, 8]}})
    assert [b.rows[0][0].value, b.rows[0][1].value] == [3, 8]
    b.feed({"n": 2, "type": "draw", "seat": 0, "private": {"value": 10}})
    b.feed(
        {
            "n": 3,
            "type": "exchange",
            "seat": 0,
            "slot": 1,
            "player": 2,
            "their_slot": 4,
            "discarded": 10,
        }
    )
    assert b.rows[2][4].value == 8 and b.rows[0][1].value is None
    assert b.consistent()


def test_impossible_events_are_refused_with_a_reason():
    b = _dealt()
    with pytest.raises(BeliefError, match="event type"):
        b.feed({"n": 1, "type": "teleport"})
    with pytest.raises(BeliefError, match="does not hold"):
        b.feed({"n": 1, "type": "swap", "seat": 1, "slot": 0, "discarded": 3})
    with pytest.raises(BeliefError, match="malformed"):
        b.feed({"n": 1, "type": "draw"})
