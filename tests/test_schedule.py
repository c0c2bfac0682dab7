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
    for (_table, _deal), group in by_table_deal.items():
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


# -- the lazy schedule against the list the platform used to build ---------------------------

def _old_list(bots, players, deals, seed):
    """The schedule as it was built before it became lazy (a list of every match)."""
    from itertools import combinations
    from mallows.tournaments.schedule import MatchSpec, deal_seed
    out = []
    for table, subset in enumerate(combinations(tuple(bots), players)):
        for deal in range(deals):
            s = deal_seed(seed, table, deal, deals)
            for rotation in range(players):
                seats = subset[rotation:] + subset[:rotation]
                out.append(MatchSpec(len(out), table, subset, rotation, deal, seats, s))
    return out


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 9), data=st.data(), deals=st.integers(1, 4),
       seed=st.integers(0, 2**63 - 1))
def test_lazy_schedule_is_the_old_list(n, data, deals, seed):
    k = data.draw(st.integers(1, n))
    bots = [f"bot{i}" for i in range(n)]
    old = _old_list(bots, k, deals, seed)
    lazy = make_schedule(bots, k, deals, seed)
    assert len(lazy) == len(old)
    assert list(lazy) == old                                  # iteration
    picks = data.draw(st.lists(st.integers(0, len(old) - 1), max_size=20))
    assert [lazy[i] for i in picks] == [old[i] for i in picks]  # random access (unranking)
    assert lazy[-1] == old[-1]
    # any increasing stream of indices (e.g. the ones a store is missing), with jumps
    chosen = sorted(set(picks))
    assert list(lazy.specs(chosen)) == [old[i] for i in chosen]
    a, b = sorted(data.draw(st.tuples(st.integers(0, len(old)), st.integers(0, len(old)))))
    assert lazy[a:b] == old[a:b]


def test_lazy_schedule_of_a_huge_tournament_is_never_materialised():
    bots = [f"bot{i}" for i in range(200)]
    s = make_schedule(bots, 4, 10, seed=1)          # C(200, 4) * 4 * 10 = 2.6e9 matches
    assert len(s) == comb(200, 4) * 40
    last = s[len(s) - 1]
    assert last.subset == tuple(bots[-4:]) and last.rotation == 3 and last.deal == 9
    mid = s[len(s) // 2]
    assert list(s.specs([mid.index, mid.index + 1]))[0] == mid
    assert mid.subset == tuple(sorted(mid.subset, key=bots.index))


def test_index_out_of_range_is_refused():
    import pytest
    s = make_schedule(BOTS, 3, 1, seed=0)
    with pytest.raises(IndexError):
        s[len(s)]
    with pytest.raises(IndexError):
        list(s.specs([len(s)]))
