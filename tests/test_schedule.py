"""The schedule: counts, seat fairness, balanced seat orders (version 2), duplicate deals, seeds
that depend only on the place, and version 1 kept exactly as it was."""

from collections import Counter
from math import comb

from hypothesis import given, settings, strategies as st

from mallows import seeding
from mallows.tournaments.seating import (
    SCHEDULE_VERSION,
    adjacency_imbalance,
    balanced_orders,
    match_id,
    pair_seats,
)
from mallows.tournaments.roundrobin.schedule import make_schedule

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


def test_version_1_plays_every_deal_in_the_rotations_of_the_file_order():
    specs = make_schedule(BOTS, 4, 3, seed=5, version=1)
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
    from mallows.tournaments.seating import MatchSpec, deal_seed

    out = []
    for table, subset in enumerate(combinations(tuple(bots), players)):
        for deal in range(deals):
            s = deal_seed(seed, table, deal, deals)
            for rotation in range(players):
                seats = subset[rotation:] + subset[:rotation]
                out.append(MatchSpec(len(out), table, subset, rotation, deal, seats, s))
    return out


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 9), data=st.data(), deals=st.integers(1, 4), seed=st.integers(0, 2**63 - 1))
def test_lazy_schedule_is_the_old_list(n, data, deals, seed):
    k = data.draw(st.integers(1, n))
    bots = [f"bot{i}" for i in range(n)]
    old = _old_list(bots, k, deals, seed)
    lazy = make_schedule(bots, k, deals, seed, version=1)
    assert len(lazy) == len(old)
    assert list(lazy) == old  # iteration
    picks = data.draw(st.lists(st.integers(0, len(old) - 1), max_size=20))
    assert [lazy[i] for i in picks] == [old[i] for i in picks]  # random access (unranking)
    assert lazy[-1] == old[-1]
    # any increasing stream of indices (e.g. the ones a store is missing), with jumps
    chosen = sorted(set(picks))
    assert list(lazy.specs(chosen)) == [old[i] for i in chosen]
    a, b = sorted(data.draw(st.tuples(st.integers(0, len(old)), st.integers(0, len(old)))))
    assert lazy[a:b] == old[a:b]
    # version 2 differs from it only in the seats' order: same places, deals, seeds, subsets
    new = make_schedule(bots, k, deals, seed)
    assert [
        (s.index, s.table, s.subset, s.rotation, s.deal, s.seed, sorted(s.seats)) for s in new
    ] == [(s.index, s.table, s.subset, s.rotation, s.deal, s.seed, sorted(s.seats)) for s in old]


def test_lazy_schedule_of_a_huge_tournament_is_never_materialised():
    bots = [f"bot{i}" for i in range(200)]
    s = make_schedule(bots, 4, 10, seed=1)  # C(200, 4) * 4 * 10 = 2.6e9 matches
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


# -- balanced seat orders (schedule version 2, issue 21) -------------------------------------


def _adjacency(specs, players: int) -> dict:
    """Per table: (a, b) -> the number of deals in which bot a sits directly before bot b."""
    out: dict = {}
    for s in specs:
        if s.rotation == 0:  # one match a deal: every rotation has the same cyclic order
            counts = out.setdefault(
                s.table, Counter({(a, b): 0 for a in s.subset for b in s.subset if a != b})
            )
            for i in range(players):
                counts[(s.seats[i], s.seats[(i + 1) % players])] += 1
    return out


def _check_table_fairness(bots, k: int, deals: int, seed: int) -> None:
    specs = make_schedule(bots, k, deals, seed)
    assert specs.version == SCHEDULE_VERSION == 2
    size = len(balanced_orders(k))
    for table, counts in _adjacency(specs, k).items():
        spread = max(counts.values()) - min(counts.values())
        assert spread == adjacency_imbalance(k, deals), (table, counts)
        if deals % size == 0:
            assert spread == 0
    # every bot in every seat equally often
    seat_counts = Counter((bot, seat) for s in specs for seat, bot in enumerate(s.seats))
    assert set(seat_counts.values()) == {comb(len(bots) - 1, k - 1) * deals}
    # every deal in every rotation of its one cyclic order, all on the deal's seed
    by_deal: dict = {}
    for s in specs:
        by_deal.setdefault((s.table, s.deal), []).append(s)
    for (table, deal), group in by_deal.items():
        assert sorted(s.rotation for s in group) == list(range(k))
        assert len({s.seed for s in group}) == 1
        assert group[0].seed == seeding.child_seed(seed, table * deals + deal)
        ordered = group[0].seats
        assert {s.seats for s in group} == {ordered[r:] + ordered[:r] for r in range(k)}
        assert sorted(ordered) == sorted(group[0].subset) and len(set(ordered)) == k
        assert group[0].order == deal % size


# the smallest balanced set: k - 1 orders for odd k (each ordered pair adjacent once), and for
# k = 4 and 6, where no such set exists, 2(k - 1) (each pair twice; for 4: all six orders)
SIZES = {3: 2, 4: 6, 5: 4, 6: 10}


def test_balanced_orders_are_the_smallest_sets_and_balanced():
    from itertools import permutations

    for k, size in SIZES.items():
        orders = balanced_orders(k)
        assert len(orders) == size and len(set(orders)) == size
        assert orders[0] == tuple(range(k))  # deal 0 as in version 1
        assert all(o[0] == 0 and sorted(o) == list(range(k)) for o in orders)
        counts = Counter((o[i], o[(i + 1) % k]) for o in orders for i in range(k))
        assert len(counts) == k * (k - 1) and len(set(counts.values())) == 1
    every_cyclic_order_of_4 = {(0,) + p for p in permutations((1, 2, 3))}
    assert set(balanced_orders(4)) == every_cyclic_order_of_4
    assert balanced_orders(2) == ((0, 1),)


def test_imbalance_is_small_and_zero_on_multiples():
    for k, size in SIZES.items():
        worst = 1 if k % 2 else 2
        for deals in range(1, 3 * size + 1):
            assert adjacency_imbalance(k, deals) <= worst
            assert (adjacency_imbalance(k, deals) == 0) == (deals % size == 0)
    # even k: 2 only halfway through the set (a balanced half would be a decomposition that
    # k = 4 and 6 do not have)
    assert [d for d in range(1, 11) if adjacency_imbalance(6, d) == 2] == [5]
    assert [d for d in range(1, 7) if adjacency_imbalance(4, d) == 2] == [3]


def test_tables_of_3_to_6_seats_are_balanced():
    for k, size in SIZES.items():
        bots = [f"b{i}" for i in range(k + 1)]
        for deals in (size, 2 * size, size + 1, size // 2 + 1):
            _check_table_fairness(bots, k, deals, seed=7)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 8), data=st.data(), deals=st.integers(1, 25), seed=st.integers(0, 2**63 - 1)
)
def test_property_random_bot_counts_and_deals(n, data, deals, seed):
    k = data.draw(st.integers(2, min(n, 6)))
    bots = [f"bot{i}" for i in range(n)]
    if comb(n, k) * k * deals > 6000:
        deals = max(1, 6000 // (comb(n, k) * k))
    _check_table_fairness(bots, k, deals, seed)
    specs = make_schedule(bots, k, deals, seed)
    picks = data.draw(st.lists(st.integers(0, len(specs) - 1), max_size=10))
    listed = list(specs)
    assert [specs[i] for i in picks] == [listed[i] for i in picks]  # random access agrees
    assert list(specs.specs(sorted(set(picks)))) == [listed[i] for i in sorted(set(picks))]


def test_two_seat_tables_are_unchanged():
    assert list(make_schedule(BOTS, 2, 3, 9)) == list(make_schedule(BOTS, 2, 3, 9, version=1))


def test_file_order_no_longer_decides_who_sits_after_whom():
    """The issue's case: the same three bots in two file orders. Version 1 seats them in two
    different cyclic orders for every deal; version 2 gives both files both orders."""
    a, b = ["greedy", "heuristic", "random"], ["greedy", "random", "heuristic"]

    def orders(bots, version):
        return Counter(s.seats for s in make_schedule(bots, 3, 10, 1, version) if s.rotation == 0)

    assert set(orders(a, 1)) != set(orders(b, 1))
    assert orders(a, 2) == orders(b, 2)  # the same five deals in each order


def test_unknown_version_is_refused():
    import pytest

    with pytest.raises(ValueError, match="schedule version"):
        make_schedule(BOTS, 3, 1, 0, version=3)


def test_compare_pairs_cycle_through_balanced_orders_around_the_tested_seat():
    opponents = ("o1", "o2", "o3")
    for k in (3, 4):
        size = len(balanced_orders(k))
        span = k * size * len(opponents)
        before, after, seats = Counter(), Counter(), Counter()
        for p in range(span):
            seating = pair_seats("X", opponents, k, p, 2)
            s = seating.index("X")
            assert s == p % k and seating.count("X") == 1
            assert pair_seats("Y", opponents, k, p, 2) == tuple(
                "Y" if b == "X" else b for b in seating
            )  # B meets A's neighbours
            before[seating[(s - 1) % k]] += 1
            after[seating[(s + 1) % k]] += 1
            seats[s] += 1
        assert len(set(before.values())) == len(set(after.values())) == 1
        assert set(before) == set(after) == set(opponents)
        assert set(seats.values()) == {span // k}
    # version 1 as before: k - 1 consecutive opponents from position p, in list order
    assert pair_seats("X", opponents, 3, 4, 1) == ("o2", "X", "o3")


@settings(max_examples=30, deadline=None)
@given(k=st.integers(3, 6), extra=st.integers(0, 3), start=st.integers(0, 10**6))
def test_property_compare_pairs_are_balanced_around_the_tested_bot(k, extra, start):
    """Any seat count and opponent list long enough for a table without repeats: over one full
    cycle (k * L * m pairs, from any pair on) the tested bot sits in every seat equally often
    and has every opponent directly before and after it equally often; B always gets A's
    neighbours."""
    opponents = tuple(f"o{i}" for i in range(k - 1 + extra))
    span = k * len(balanced_orders(k)) * len(opponents)
    before, after, seats = Counter(), Counter(), Counter()
    for p in range(start, start + span):
        seating = pair_seats("A", opponents, k, p, 2)
        s = seating.index("A")
        assert s == p % k and len(set(seating)) == k
        assert pair_seats("B", opponents, k, p, 2) == tuple("B" if b == "A" else b for b in seating)
        before[seating[s - 1]] += 1
        after[seating[(s + 1) % k]] += 1
        seats[s] += 1
    assert set(before) == set(after) == set(opponents)
    assert len(set(before.values())) == len(set(after.values())) == 1
    assert set(seats.values()) == {span // k}
