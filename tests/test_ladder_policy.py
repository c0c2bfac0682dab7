"""A ladder's questions and policy (``mallows.tournaments.ladder``): parsing, when a question is
answered, where extra tables go, a newcomer's boosted rate, and a simulated ladder that stops at the
stated certainty."""

from __future__ import annotations

import random

import pytest

from mallows.tournaments.ladder.policy import (
    Policy,
    all_answered,
    entry_rate,
    extra_tables,
    place_question,
)
from mallows.tournaments.ladder.questions import (
    FullOrder,
    Place,
    TopK,
    answer,
    answered,
    check_question,
    label,
    parse_question,
)
from mallows.tournaments.ladder.simulate import Field, balanced_round, even_field
from mallows.results.plackett_luce import fit_history


def play(field: Field, tables, rng):
    return [(list(t), field.play(list(t), rng)) for t in tables]


def round_robin(field: Field, rounds: int, seed: int = 0, seats: int = 4):
    rng = random.Random(seed)
    out = []
    for _ in range(rounds):
        out += play(field, balanced_round(list(field.skills), seats, rng), rng)
    return out


CLEAR = Field(
    {"a": 9.0, "b": 6.0, "c": 3.0, "d": 0.0, "e": -3.0, "f": -6.0, "g": -9.0, "h": -12.0}, luck=2.0
)


# -- parsing ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "table, question",
    [
        ({"type": "order"}, FullOrder(0.95)),
        ({"type": "order", "certainty": 0.9}, FullOrder(0.9)),
        ({"type": "top", "k": 3}, TopK(3, 0.95, False)),
        ({"type": "top", "k": 1, "ordered": True, "certainty": 0.99}, TopK(1, 0.99, True)),
        ({"type": "place", "bot": "new"}, Place("new", 0.95, 1)),
        ({"type": "place", "bot": "new", "within": 0, "certainty": 0.8}, Place("new", 0.8, 0)),
    ],
)
def test_parse_question(table, question):
    assert parse_question(table) == question


@pytest.mark.parametrize(
    "table, words",
    [
        ({"type": "best"}, "questions.type"),
        ({}, "questions.type"),
        ({"type": "top"}, "questions.k"),
        ({"type": "top", "k": 0}, "questions.k"),
        ({"type": "top", "k": True}, "questions.k"),
        ({"type": "top", "k": 2, "ordered": "yes"}, "questions.ordered"),
        ({"type": "order", "certainty": 1.0}, "questions.certainty"),
        ({"type": "order", "certainty": 0.3}, "questions.certainty"),
        ({"type": "order", "certainty": "high"}, "questions.certainty"),
        ({"type": "order", "k": 3}, "unknown key `questions.k`"),
        ({"type": "place"}, "questions.bot"),
        ({"type": "place", "bot": "x", "within": -1}, "questions.within"),
        ("top 3", "must be a table"),
    ],
)
def test_parse_question_names_the_key_and_the_fix(table, words):
    with pytest.raises(ValueError, match=words.replace("`", ".").replace("(", r"\(")):
        parse_question(table)


def test_check_question_against_the_field():
    check_question(TopK(2), ["a", "b", "c"])
    with pytest.raises(ValueError, match="k below 3"):
        check_question(TopK(3), ["a", "b", "c"])
    with pytest.raises(ValueError, match="not an entrant"):
        check_question(Place("z"), ["a", "b"])


def test_labels():
    assert label(TopK(3)) == "top 3 at 95%"
    assert label(TopK(2, 0.9, True)) == "top 2 in order at 90%"
    assert label(Place("new", within=0)) == "exact place of new at 95%"
    assert label(FullOrder(0.99)) == "order at 99%"


# -- answering ------------------------------------------------------------------------------


def test_questions_open_on_few_matches_and_answered_on_many():
    few = fit_history(round_robin(CLEAR, 1))
    many = fit_history(round_robin(CLEAR, 80))
    for q in (FullOrder(0.9), TopK(3), TopK(2, ordered=True), Place("d", within=0)):
        a = answer(q, few)
        assert not a.answered and a.focus and "open" in a.explanation, q
        assert a.probability < q.certainty
        b = answer(q, many)
        assert b.answered and b.focus == () and "answered" in b.explanation, (q, b)
        assert b.probability >= q.certainty and answered(q, many)
    assert many.order() == CLEAR.truth()


def test_top_k_focus_is_the_cutoff_and_place_focus_the_neighbours():
    # a and b far ahead; c and d close at the cutoff of the top 3; the rest far behind
    field = Field(
        {"a": 12.0, "b": 10.0, "c": 5.1, "d": 5.0, "e": -4.0, "f": -6.0, "g": -8.0, "h": -10.0},
        luck=2.0,
    )
    fit = fit_history(round_robin(field, 12, seed=3))
    a = answer(TopK(3, 0.99), fit)
    assert not a.answered
    assert set(a.focus[:2]) == {"c", "d"}
    assert "a" not in a.focus and "h" not in a.focus
    p = answer(Place("c", 0.99, within=0), fit)
    assert not p.answered and p.anchor == "c" and p.focus[0] == "c" and "d" in p.focus
    assert "h" not in p.focus


def test_a_place_question_for_a_bot_without_a_result_is_open():
    fit = fit_history(round_robin(CLEAR, 5), bots=["late"])
    a = answer(Place("late"), fit)
    assert not a.answered and a.anchor == "late"
    assert not answer(Place("absent"), fit).answered


# -- policy ---------------------------------------------------------------------------------


def test_extra_tables_only_for_open_questions_and_seat_the_doubtful():
    fit = fit_history(round_robin(CLEAR, 2))
    answers = [answer(TopK(3), fit), answer(Place("e", 0.95, 0), fit)]
    assert not any(a.answered for a in answers)
    tables = extra_tables(answers, fit, seats=4, count=10, seed=1)
    assert len(tables) == 10
    assert {t.question for t in tables} == {"top 3 at 95%", "exact place of e at 95%"}
    for t in tables:
        assert len(t.bots) == 4 and len(set(t.bots)) == 4 and "open at P" in t.reason
        if t.question.startswith("place"):
            assert "e" in t.bots
    assert tables == extra_tables(answers, fit, seats=4, count=10, seed=1)  # deterministic
    done = fit_history(round_robin(CLEAR, 40))
    closed = [answer(TopK(3), done)]
    assert all_answered(closed) and extra_tables(closed, done, 4, 10) == []
    assert Policy().extra_count(4, closed) == 0 and Policy().extra_count(4, answers) == 12


def test_a_newcomer_is_boosted_until_its_place_is_known():
    policy = Policy(boost=5.0, place_certainty=0.9, place_within=1)
    field = Field(dict(CLEAR.skills, new=1.5), luck=2.0)
    old = round_robin(CLEAR, 30)
    assert entry_rate("new", fit_history(old, bots=["new"]), policy) == 5.0
    rng = random.Random(7)
    res = list(old)
    for _ in range(200):
        fit = fit_history(res, bots=["new"], draws=1000)
        if entry_rate("new", fit, policy) == 1.0:
            break
        q = answer(place_question("new", policy), fit)
        res += play(field, [t.bots for t in extra_tables([q], fit, 4, 4, seed=len(res))], rng)
    else:
        pytest.fail("the newcomer's place was never known")
    assert answered(place_question("new", policy), fit)
    assert abs(fit.rank_of("new") - field.truth().index("new") - 1) <= 1


def test_policy_checks_its_parameters():
    with pytest.raises(ValueError, match="boost"):
        Policy(boost=0.5)
    with pytest.raises(ValueError, match="place_certainty"):
        Policy(place_certainty=1.0)
    with pytest.raises(ValueError, match="seats"):
        extra_tables([], fit_history([]), seats=1, count=1)


def test_a_simulated_ladder_stops_at_the_stated_certainty():
    # balanced base rounds plus extra tables while the question is open; it stops once the
    # top 3 are known at 95%, and they are the true top 3
    field = even_field(10, spread=3.0, luck=3.0, tie=0.5)
    rng = random.Random(5)
    q, policy, res = TopK(3, 0.95), Policy(extra_per_base=2.0), []
    for step in range(60):
        fit = fit_history(res, bots=field.skills, draws=2000, seed=step)
        a = answer(q, fit)
        if a.answered:
            break
        base = balanced_round(list(field.skills), 4, rng)
        extra = extra_tables([a], fit, 4, policy.extra_count(len(base), [a]), seed=step)
        res += play(field, base + [list(t.bots) for t in extra], rng)
    else:
        pytest.fail("the ladder never answered its question")
    assert a.probability >= 0.95
    assert set(fit.order()[:3]) == set(field.truth()[:3])
    assert not answered(q, fit_history(res[: len(res) // 4], bots=field.skills))


def test_only_the_doubt_that_breaks_the_claim_counts():
    # new and d are equally strong, every other gap is wide: new's place to +-1 is known
    # however new and d fall, its exact place is not, and then d is all the doubt there is
    field = Field(
        {"a": 12.0, "b": 8.0, "c": 4.0, "d": 0.0, "new": 0.0, "e": -4.0, "f": -8.0, "g": -12.0},
        luck=1.5,
    )
    fit = fit_history(round_robin(field, 30, seed=2))
    assert 0.1 < fit.p_ahead("new", "d") < 0.9
    assert answered(Place("new", 0.95, within=1), fit)
    exact = answer(Place("new", 0.95, within=0), fit)
    assert not exact.answered and exact.focus[:2] == ("new", "d")
    assert all(w < 0.2 * exact.weights[1] for w in exact.weights[2:])
    # the same for a cutoff: between the tied pair the top 4 is open, the top 3 is not
    assert answered(TopK(3, 0.95), fit) and not answered(TopK(4, 0.95), fit)
    assert set(answer(TopK(4, 0.95), fit).focus) == {"d", "new"}
