"""The Take4 reference bots of issue 36: ``rules4`` (a player written from the rules) and
``jointpick`` (a search over the opponents' simultaneous picks, protocol 2): their rules on
made-up tables, the search's tracking of the deck and of each opponent against real matches,
its determinism by iterations, and the bot check through isolation."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings, strategies as st

from mallows import seeding
from mallows.agents.protocol import Limits
from mallows.agents.registry import SHIPPED, load_bot
from mallows.games import get_game
from mallows.runner.match import play_match
from mallows.testing.bots import check_bot

LIMITS = Limits(decision_seconds=30.0, match_seconds=600.0)
SQUADS = {
    "Classic": ["Cam", "Winston", "Malcolm", "Lola"],
    "Fantasy": ["Tatiana", "Michaela", "Leonard", "Patty"],
    "Sealife": ["Archie", "Sheldon", "Stacy", "Gordon"],
    "Food": ["Maui", "Carl", "Chanel", "Floyd"],
}


def _obs(positions: list, collections: list[list[str]], seat: int = 0) -> dict:
    return {
        "game": "take4",
        "seat": seat,
        "players": len(collections),
        "positions": positions,
        "collections": collections,
        "squads": SQUADS,
        "legal_actions": [
            {"type": "pick", "position": k} for k, c in enumerate(positions, 1) if c is not None
        ],
    }


def _rules4(obs: dict) -> int:
    bot = load_bot("rules4").handle().bot
    bot.match_start({"seed": 1})
    return bot.act(obs)["position"]


def test_rules4_completes_then_denies_then_advances_its_live_squad():
    table = ["Sheldon", "Lola", "Carl", "Patty"]
    # its own fourth Classic beats everything
    assert _rules4(_obs(table, [["Cam", "Winston", "Malcolm"], ["Maui", "Chanel", "Floyd"]])) == 2
    # nothing completes its squad: take the card that completes the opponent's (Carl)
    assert _rules4(_obs(table, [["Cam", "Winston"], ["Maui", "Chanel", "Floyd"]])) == 3
    # advance the squad where it holds most (Lola: Classic 3), not a new one
    assert _rules4(_obs(table, [["Cam", "Winston"], ["Archie"]])) == 2
    # a squad whose missing character is all gone is dead: Sheldon's 4 copies are collected
    gone = [["Archie", "Stacy", "Gordon"], ["Sheldon"] * 2, ["Sheldon"] * 2]
    assert _rules4(_obs(["Gordon", "Cam", None, None], gone)) == 2


def test_the_new_take4_bots_are_shipped_and_documented():
    for name in ("rules4", "jointpick"):
        spec = load_bot(name)
        assert spec.base in SHIPPED and spec.trusted and not spec.isolated
    assert load_bot("jointpick").handle().bot.protocol == 2


def _tracked_match(seed: int, names: list[str]) -> int:
    """Play one match, checking at every decision of seat 0 (jointpick) that its table agrees
    with the observation: every seat's distinct characters and the deck's size. Returns the
    decisions checked."""
    handles = [load_bot(n).handle(LIMITS) for n in names]
    bot = handles[0].bot
    act = bot.act
    checked = 0

    def checking_act(obs, events):
        nonlocal checked
        out = act(obs, events)
        t = bot.table
        masks = [sum(1 << i for i in {t.index[c] for c in col}) for col in obs["collections"]]
        assert masks == t.masks
        assert t.unseen_count() + len(t.bottom) == obs["deck"] and min(t.unseen) >= 0
        checked += 1
        return out

    bot.act = checking_act
    options = get_game("take4").make_options(None, {})
    play_match("take4", options, seed, handles, names)
    return checked


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**40), players=st.integers(2, 4))
def test_jointpick_tracks_the_deck_and_collections_from_the_events(seed, players):
    names = ["jointpick:iterations=2"] + ["greedy", "random", "denial"][: players - 1]
    assert _tracked_match(seed, names) > 0


def test_jointpick_learns_which_kind_each_opponent_is():
    """After a match, the posterior puts greedy's seat on the kinds that play its card (greedy,
    or rules, which agrees with it but for completions and denials) and the random seat on
    random."""
    greedy_weight, random_weight = [], []
    for m in range(4):
        names = ["jointpick:iterations=2", "greedy", "random"]
        handles = [load_bot(n).handle(LIMITS) for n in names]
        options = get_game("take4").make_options(None, {"max_rounds": 30})
        play_match("take4", options, seeding.child_seed(5, m), handles, names)
        table = handles[0].bot.table
        greedy_weight.append(sum(table.posterior(1)[:2]))
        random_weight.append(table.posterior(2)[2])
    assert sum(greedy_weight) / 4 > 0.9 and sum(random_weight) / 4 > 0.6


def _record(name: str, seed: int) -> dict:
    names = [name, "denial", "greedy"]
    handles = [load_bot(n).handle(LIMITS) for n in names]
    options = get_game("take4").make_options(None, {})
    return play_match("take4", options, seed, handles, names)


def test_jointpick_plays_the_same_match_for_the_same_seed_and_count():
    a, b = _record("jointpick:iterations=30", 9), _record("jointpick:iterations=30", 9)
    assert a["events"] == b["events"] and a["result"] == b["result"]


def test_jointpick_parameters_are_checked():
    for bad in ("iterations=0", "z=-1", "noise=2", "iterations=x", "race=-1", "race=11"):
        with pytest.raises(Exception, match="jointpick"):
            load_bot(f"jointpick:{bad}").handle()


def test_jointpick_search_can_overrule_its_prior():
    """Holding three Classics with the fourth (Lola) on the table, an opponent one card from
    its own squad: the prior (rules4) completes; so does the search."""
    from importlib import import_module

    jp = import_module(load_bot("jointpick").cls.__module__)
    assert _lola_table(jp).decide([1, 2, 3, 4], random.Random(3), 50, 0.0) == 2


def _lola_table(jp):
    """Three Classics held, the fourth (Lola) on the table, an opponent one card from its own
    squad."""
    table = jp.Table(SQUADS, 3, 0, 0.1)
    table.feed({"type": "round", "positions": ["Sheldon", "Lola", "Carl", "Patty"], "deck": 60})
    names = table.index
    table.masks = [
        sum(1 << names[c] for c in ("Cam", "Winston", "Malcolm")),
        sum(1 << names[c] for c in ("Maui", "Chanel", "Floyd")),
        0,
    ]
    return table


@pytest.mark.parametrize("race", [0.0, 2.0])
def test_jointpick_racing_spends_at_most_the_rollouts_of_every_candidate_on_every_world(
    race, monkeypatch
):
    """Without racing every candidate is rolled out on each of ``iterations`` worlds; with it
    the rivals that cannot win are dropped, a clear decision settles early, and no decision
    rolls out more than the same count would without racing."""
    from importlib import import_module

    jp = import_module(load_bot("jointpick").cls.__module__)
    calls = []
    real = jp.playout
    monkeypatch.setattr(jp, "playout", lambda *a: calls.append(a[3][0]) or real(*a))
    choice = _lola_table(jp).decide([1, 2, 3, 4], random.Random(3), 400, 0.0, race)
    assert choice == 2
    if race:
        assert len(calls) < 400 * 4 / 2  # settled long before the budget
        assert calls.count(2) >= jp.RACE_AFTER
    else:
        assert len(calls) == 400 * 4 and all(calls.count(k) == 400 for k in (1, 2, 3, 4))


def test_racing_keeps_the_close_rivals_and_drops_the_hopeless():
    """``_race`` on made-up paired sums: a rival far below the prior goes, one surely above
    every other settles the decision, close ones stay."""
    from importlib import import_module

    jp = import_module(load_bot("jointpick").cls.__module__)
    n = 200
    # rival 1: mean -0.2 (sd ~0.4): hopeless; rivals 2 and 3: means +0.02 and +0.03, close
    sums = [0.0, -0.2 * n, 0.02 * n, 0.03 * n]
    sq = [0.0, 0.2 * n, 0.1 * n, 0.1 * n]
    assert jp._race([0, 1, 2, 3], sums, sq, [n] * 4, 2.0) == [0, 2, 3]
    # rival 3 alone and surely above the prior: settled, the prior alone left in the loop
    sums2 = [0.0, -0.2 * n, -0.2 * n, 0.3 * n]
    sq2 = [0.0, 0.2 * n, 0.2 * n, 0.2 * n]
    assert jp._race([0, 1, 2, 3], sums2, sq2, [n] * 4, 2.0) == [0]


def test_jointpick_with_racing_plays_the_same_match_for_the_same_seed():
    a = _record("jointpick:iterations=60,race=2", 9)
    b = _record("jointpick:iterations=60,race=2", 9)
    assert a["events"] == b["events"] and a["result"] == b["result"]


@pytest.mark.parametrize("name", ["rules4", "jointpick:iterations=20"])
def test_the_take4_bots_pass_the_bot_check_isolated(name):
    check = check_bot(name, game="take4", matches=3, seed=36, limits=Limits(decision_seconds=30))
    assert check.passed, check.problems[0].reason if check.problems else ""


@settings(max_examples=60, deadline=None)
@given(
    masks=st.lists(st.integers(0, 2**16 - 1), min_size=2, max_size=4),
    table=st.lists(st.integers(0, 15), min_size=1, max_size=4),
    data=st.data(),
)
def test_the_rollouts_inlined_rules_choose_as_the_kinds_do(masks, table, data):
    """``playout`` inlines the kinds' scoring for speed: for every seat and kind its choices
    are the ones ``_choices`` gives with the kind's scoring rule."""
    from importlib import import_module

    jp = import_module(load_bot("jointpick").cls.__module__)
    seat = data.draw(st.integers(0, len(masks) - 1))
    needs = [jp._needs(m) for m in masks]
    deny = 0
    for other, need in enumerate(needs):
        if other != seat:
            deny |= need
    greedy = jp._best(table, masks[seat], 0, 0)
    rules = jp._best(table, masks[seat], needs[seat], deny)
    assert greedy == jp._choices(jp.POLICIES["greedy"], seat, table, masks)
    assert rules == jp._choices(jp.POLICIES["rules"], seat, table, masks)
