"""The games' narration (issue 34 item 1): every match event a seat gets is told in words,
without a value the seat did not see; each round's end sums every revealed row into its score
and the running totals; and the report's replay speaks the same words (one phrasing, in
``mallows.games.<id>.narration``)."""

from __future__ import annotations

import random
import re

from hypothesis import HealthCheck, given, settings, strategies as st

from mallows.agents.policy import random_action
from mallows.games import get_game
from mallows.games.arschmallows import narration as arsch_narration
from mallows.games.base import SeededChance
from mallows.games.take4 import narration as take4_narration
from mallows.report.frames import frames, seen
from mallows.runner.match import play_match
from mallows.agents.protocol import InProcessBot
from arschmallows_helpers import RandomBot

SETTINGS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(game: str, players: int, seed: int, options: dict):
    """A random match, its event log fed after every transition."""
    module = get_game(game)
    opts = module.make_options(None, options)
    state = module.new_state(opts, players, SeededChance(seed))
    log = module.events.match_events(players, state.options)
    rng = random.Random(seed)
    while not state.is_terminal():
        for s in state.to_move():
            state.apply(s, random_action(state.observation(s), rng))
        log.feed(state)
    log.feed(state)
    return state, log


@SETTINGS
@given(players=st.integers(2, 5), seed=st.integers(0, 10**6), seat=st.integers(0, 4))
def test_every_arschmallows_event_is_told_and_the_scores_add_up(players, seed, seat):
    seat %= players
    state, log = play("arschmallows", players, seed, {"rounds": 2, "table_cards": 4})
    names = [f"bot{s}" for s in range(players)]
    teller = arsch_narration.Narrator(seat, players, state.options, names)
    events = log.for_seat(seat)
    for event in events:
        lines = teller.lines(event)
        assert lines and all(line.strip() for line in lines), event
        if event["type"] == "draw" and event["seat"] != seat:
            assert not re.search(r"\d", lines[0].split(")", 1)[1]), lines  # a hidden value
        if event["type"] == "draw" and event["seat"] == seat:
            value = event["private"]["value"]
            assert lines[0].startswith(f"you draw {value}"), lines
        if event["type"] == "round_end":
            assert len(lines) == players + 2
            for s, line in enumerate(lines[1 : players + 1]):
                row = event["rows"][s]
                assert f"= {sum(row)}" in line and f"round score {event['scores'][s]}," in line
    assert teller.totals == state.totals
    assert teller.final_lines()[0].endswith(f"{teller.who(players - 1)} {state.totals[-1]}")


@SETTINGS
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_every_take4_round_is_told(players, seed):
    state, log = play("take4", players, seed, {})
    teller = take4_narration.Narrator(0, players, state.options, None)
    lines = teller.add(log.for_seat(0))
    rounds = len(state.history)
    for r in range(rounds):
        assert sum(1 for line in lines if line.startswith(f"round {r + 1}: you pick ")) == 1
    races = sum(len(h["races"]) for h in state.history)
    assert sum(1 for line in lines if line.strip().startswith("race for ")) == races
    assert lines[-1].startswith("the game ends: ")


def test_the_replay_tells_each_round_end_as_the_table_does():
    """The report's replay (and ``mallows replay``) words a round's end with the narration:
    every row revealed and summed, the caller's doubling, the totals after the round."""
    bots = [InProcessBot(RandomBot(0.05), f"random{s}") for s in range(3)]
    options = get_game("arschmallows").make_options(None, {"rounds": 3})
    record = play_match("arschmallows", options, 12, bots)
    ends = [f for f in frames(record) if f["event"]["type"] == "round_end"]
    assert len(ends) == 3
    totals = [0, 0, 0]
    for frame in ends:
        event = frame["event"]
        text = seen(frame["text"]).splitlines()
        assert text[0].startswith(f"round {event['round'] + 1} ends on")
        for s, score in enumerate(event["scores"]):
            row = [c[0] for c in frame["rows"][s]]
            before, totals[s] = totals[s], totals[s] + score
            assert text[1 + s].strip().startswith(f"seat {s} (random{s}): ")
            assert " + ".join(map(str, row)) + f" = {sum(row)}" in text[1 + s]
            assert text[1 + s].endswith(f"total {before} + {score} = {totals[s]}")
    assert totals == [sum(e["event"]["scores"][s] for e in ends) for s in range(3)]


def test_the_table_counts_one_card_as_one_card():
    """Issue 34 item 10: ``discard pile: 0 (1 card)``, not ``(1 cards)``."""
    from mallows.games.views import table_lines

    module = get_game("arschmallows")
    state = module.new_state(module.make_options(None, {}), 2, SeededChance(1))
    lines = table_lines(state.observation(0))
    pile = next(line for line in lines if line.startswith("discard pile:"))
    assert re.match(r"discard pile: .* \(1 card\) · draw pile: \d+ cards$", pile), pile


def test_mallows_replay_prints_each_round_end_line_by_line():
    """``mallows replay`` prints a round's end as the narration's lines (no ``\\n`` in a line)."""
    from mallows.report.text import replay_text

    bots = [InProcessBot(RandomBot(0.05), f"random{s}") for s in range(2)]
    options = get_game("arschmallows").make_options(None, {"rounds": 2})
    record = play_match("arschmallows", options, 5, bots)
    lines = replay_text("m/0", record)
    assert not any("\n" in line for line in lines)
    for r, e in enumerate(e for e in record["events"] if e["type"] == "round_end"):
        at = next(i for i, x in enumerate(lines) if x.strip().startswith(f"round {r + 1} ends on"))
        for s, score in enumerate(e["scores"]):
            assert f"-> round score {score}, total" in lines[at + 1 + s]
