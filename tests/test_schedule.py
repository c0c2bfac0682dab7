"""The schedule: counts, seat fairness, duplicate deals, seeds that depend only on the place."""

from collections import Counter
from math import comb

from hypothesis import given, settings, strategies as st

from mallows import seeding
from mallows.tournaments.schedule import make_schedule, match_id

BOTS = ["a", "b", "c", "d", "e"]


def test_count_is_subsets_times_rotations_times_deals():
    specs = make_schedule(BOTS, 3, 4, seed=11)
    assert len(specs) == comb(5, 3) * 3 * 4
    assert [s.index for s in specs] == list(range(len(specs)))
    assert len({(s.subset, s.deal, s.rotation) for s in specs}) == len(specs)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(2, 7), data=st.data(), deals=st.integers(1, 4), seed=st.integers(0, 2**40))
def test_every_bot_sits_in_every_seat_equally_often(n, data, deals, seed):
    k = data.draw(st.integers(2, min(n, 6)))
    bots = [f"bot{i}" for i in range(n)]
    specs = make_schedule(bots, k, deals, seed)
    seat_counts = Counter((bot, seat) for s in specs for seat, bot in enumerate(s.seats))
    expected = comb(n - 1, k - 1) * deals
    assert set(seat_counts.values()) == {expected}
    assert len(seat_counts) == n * k
    for s in specs:  # a bot never sits twice at a table
        assert len(set(s.seats)) == k


def test_every_rotation_of_a_table_plays_the_same_deals():
    specs = make_schedule(BOTS, 4, 3, seed=5)
    by_table_deal = {}
    for s in specs:
        by_table_deal.setdefault((s.table, s.deal), []).append(s)
    for (table, deal), group in by_table_deal.items():
        assert len({s.seed for s in group}) == 1
        assert sorted(s.rotation for s in group) == [0, 1, 2, 3]
        subset = group[0].subset
        assert {s.seats for s in group} == {subset[r:] + subset[:r] for r in range(4)}
    # different deals and tables get different seeds
    assert len({s.seed for s in specs}) == len(by_table_deal)


def test_seed_depends_only_on_tournament_seed_and_place():
    a = make_schedule(BOTS, 3, 2, seed=99)
    b = make_schedule(["v", "w", "x", "y", "z"], 3, 2, seed=99)
    assert [s.seed for s in a] == [s.seed for s in b]
    for s in a:
        assert s.seed == seeding.child_seed(99, s.table * 2 + s.deal)
    c = make_schedule(BOTS, 3, 2, seed=100)
    assert [s.seed for s in a] != [s.seed for s in c]
    assert make_schedule(BOTS, 3, 2, seed=99) == a  # pure: same input, same schedule


def test_match_ids_are_name_and_index():
    specs = make_schedule(BOTS, 2, 1, seed=0)
    assert specs[7].match_id("demo") == "demo/7" == match_id("demo", 7)
