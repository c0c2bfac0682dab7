"""A ladder's pieces that need no match: its file format, its epoch schedule (pure), and schema 5
(the ladder tables; a schema-4 file keeps every row)."""

from __future__ import annotations

from collections import Counter

import pytest

from mallows import seeding
from mallows.errors import LadderError
from mallows.tournaments.ladder.schedule import LadderSchedule, plan_epoch
from mallows.tournaments.ladder.spec import from_definition, parse_ladder
from mallows.tournaments.seating import balanced_orders

FIELD = [f"b{i}" for i in range(7)]


def test_an_epoch_seats_everyone_and_every_seat_once_a_deal():
    tables = plan_epoch(11, 0, 0, 0, FIELD, 3, 2)
    assert all(t.reason == "base" for t in tables)
    assert {b for t in tables for b in t.bots} == set(FIELD)  # everyone at least once
    assert all(len(set(t.bots)) == 3 for t in tables)
    s = LadderSchedule(tables, 3, 2, 11)
    assert len(s) == sum(t.count for t in tables) == len(tables) * 2 * 3
    for t in tables:
        for deal in range(2):
            specs = [s.spec(t.first + deal * 3 + r) for r in range(3)]
            assert len({sp.seed for sp in specs}) == 1  # duplicate: one deal ...
            for seat in range(3):  # ... every bot in every seat
                assert {sp.seats[seat] for sp in specs} == set(t.bots)
    # the two deals of a table sit in different cyclic orders (neighbours balanced)
    t = tables[0]
    assert s.spec(t.first).seats != s.spec(t.first + 3).seats or len(balanced_orders(3)) == 1


def test_neighbour_order_is_balanced_over_a_tables_deals():
    k = 4
    deals = len(balanced_orders(k))  # a multiple of the balanced set: exactly balanced
    tables = plan_epoch(5, 0, 0, 0, FIELD[:4], k, deals)
    s = LadderSchedule(tables, k, deals, 5)
    after = Counter()
    for sp in s:
        if sp.rotation == 0:
            for i in range(k):
                after[(sp.seats[i], sp.seats[(i + 1) % k])] += 1
    assert len(set(after.values())) == 1 and len(after) == k * (k - 1)


def test_epochs_are_deterministic_and_differ_from_each_other():
    a = plan_epoch(7, 3, 100, 10, FIELD, 4, 1, boosted=[("b6", 2)])
    b = plan_epoch(7, 3, 100, 10, FIELD, 4, 1, boosted=[("b6", 2)])
    assert a == b
    assert a != plan_epoch(7, 4, 100, 10, FIELD, 4, 1, boosted=[("b6", 2)])
    assert a[0].first == 100 and a[0].tbl == 10
    assert [t.first for t in a] == [100 + 4 * n for n in range(len(a))]


def test_a_newcomer_gets_its_boosted_tables_and_extra_tables_carry_their_question():
    tables = plan_epoch(
        1,
        0,
        0,
        0,
        FIELD,
        3,
        1,
        boosted=[("b6", 2)],
        extra=[(("b0", "b1", "b2"), "extra:top 3 at 95%"), (("b0", "b0", "b1"), "extra:bad")],
    )
    newcomer = [t for t in tables if t.reason == "newcomer:b6"]
    assert len(newcomer) == 2 and all("b6" in t.bots for t in newcomer)
    extra = [t for t in tables if t.reason.startswith("extra:")]
    assert [t.reason for t in extra] == ["extra:top 3 at 95%"]  # a table of k distinct only
    assert set(extra[0].bots) == {"b0", "b1", "b2"}
    plays = Counter(b for t in tables for b in t.bots)
    assert plays["b6"] >= 3 > plays["b5"] - 0  # the newcomer plays at its boosted rate


def test_a_gauntlet_seats_a_challenger_at_every_table_and_meets_the_whole_field():
    tables = plan_epoch(3, 0, 0, 0, FIELD[1:], 3, 1, challengers=["b0"])
    assert all("b0" in t.bots for t in tables)
    assert {b for t in tables for b in t.bots} == set(FIELD)
    assert len(tables) == 3  # 6 field bots, two a table


def test_epochs_grow_with_the_ladder():
    from mallows.tournaments.ladder.run import EPOCH_SHARE, MIN_EPOCH_MATCHES, epoch_passes

    ladder = parse_ladder(BASE)  # 3 bots, 3 seats: one table, 3 matches a pass
    assert epoch_passes(ladder, 0, 1) * 3 >= MIN_EPOCH_MATCHES
    assert epoch_passes(ladder, 60_000, 1) * 3 >= 60_000 // EPOCH_SHARE
    assert epoch_passes(parse_ladder({**BASE, "passes": 50}), 0, 1) == 50


def test_match_seeds_are_keyed_with_the_ladders_key():
    tables = plan_epoch(3, 0, 0, 0, FIELD, 3, 1)
    key = seeding.Chance(seeding.KEYED, b"k" * 32, secret_deals=True)
    plain, keyed = LadderSchedule(tables, 3, 1, 3), LadderSchedule(tables, 3, 1, 3, key)
    assert plain.spec(0).seats == keyed.spec(0).seats
    assert plain.spec(0).seed != keyed.spec(0).seed
    with pytest.raises(IndexError):
        plain.spec(len(plain))


BASE = {
    "name": "l",
    "game": "take4",
    "players": 3,
    "bots": ["random", "greedy", "denial"],
    "seed": 4,
}


@pytest.mark.parametrize(
    "change, words",
    [
        ({"kind": "league"}, "`kind` must be"),
        ({"players": 1}, "`players` must be"),
        ({"bots": ["random"]}, "a table needs 3"),
        ({"challengers": ["x"]}, 'is for kind = "gauntlet"'),
        ({"kind": "gauntlet"}, "needs `challengers`"),
        ({"kind": "gauntlet", "challengers": ["random"]}, "both a challenger"),
        ({"submitted": "all"}, "`submitted` must be"),
        ({"finals": {"cutoffs": [2]}}, "cutoffs"),
        ({"finals": {"cutoffs": [4, 8]}}, "decreasing"),
        ({"questions": [{"type": "newcomers", "k": 3}]}, "takes certainty and within"),
        ({"extra": 1}, "unknown key `extra`"),
    ],
)
def test_a_bad_ladder_file_names_the_key(change, words):
    with pytest.raises(LadderError, match=words.replace("(", r"\(")):
        parse_ladder({**BASE, **change}, "l.toml")


def test_a_definition_reads_back_as_the_same_ladder():
    ladder = parse_ladder(
        {
            **BASE,
            "questions": [
                {"type": "top", "k": 1, "certainty": 0.9},
                {"type": "newcomers", "certainty": 0.8},
            ],
            "finals": {"cutoffs": [3], "epochs": 2},
            "submitted": "newest",
        }
    )
    again = from_definition(ladder.definition())
    assert again.definition() == ladder.definition() and again.digest() == ladder.digest()
    gauntlet = parse_ladder({**BASE, "kind": "gauntlet", "challengers": ["heuristic"]})
    assert [q["bot"] for q in gauntlet.questions] == ["heuristic"]  # where it stands: asked


def test_a_schema_4_file_gains_the_ladder_tables_and_keeps_its_rows(tmp_path, monkeypatch):
    from mallows.results.store import MatchRow, Store, schema

    path = tmp_path / "old.db"
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 4)
    with Store(path) as old:
        old.add_tournament("t", "take4", "{}", "d", "f", 1, {})
        old.add_matches(
            [MatchRow("t/0", "t", 0, "take4", 0, 0, 0, 1, ["a", "b"], [0, 1], 0, '{"x": 1}')]
        )
        assert old.schema_version() == 4
        assert "ladder_tables" not in old.db.table_names()
    monkeypatch.undo()
    with Store(path) as new:
        assert new.schema_version() == schema.SCHEMA_VERSION == 5
        assert new.count_matches("t") == 1 and new.record("t/0") == '{"x": 1}'
        assert new.ladders.epochs("t") == [] and new.ladders.events("t") == []
        seq = new.ladders.add_event("t", "join", "x")
        assert [e["bot"] for e in new.ladders.events("t")] == ["x"] and seq >= 1


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 10**7),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.lists(st.text(max_size=6), max_size=3),
    st.dictionaries(
        st.sampled_from(["type", "k", "certainty", "cutoffs", "epochs", "x"]),
        st.one_of(st.integers(-1, 9), st.text(max_size=4), st.floats(0, 1)),
        max_size=3,
    ),
    st.lists(
        st.dictionaries(
            st.sampled_from(["type", "k", "certainty", "bot"]),
            st.one_of(
                st.integers(0, 5),
                st.sampled_from(["top", "order", "place", "newcomers", "x"]),
                st.floats(0.4, 1),
            ),
            max_size=3,
        ),
        max_size=2,
    ),
)


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "kind",
                "players",
                "seed",
                "deals",
                "passes",
                "boost",
                "max_matches",
                "bots",
                "challengers",
                "submitted",
                "options",
                "limits",
                "questions",
                "finals",
                "rules",
            ]
        ),
        VALUES,
        max_size=4,
    )
)
def test_any_ladder_file_is_read_or_refused_with_a_ladder_error(change):
    """Fuzzed values in every key: a ``Ladder`` or a ``LadderError``, never another
    exception (the CLI turns a LadderError into a message and exit 2)."""
    try:
        ladder = parse_ladder({**BASE, **change}, "fuzz.toml")
    except LadderError:
        return
    assert from_definition(ladder.definition()).digest() == ladder.digest()
