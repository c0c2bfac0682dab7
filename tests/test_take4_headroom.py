"""The headroom benchmark's two-step search is as fair as the one-step search it is measured
against: the pick it makes inside a world depends on which cards are unseen, never on the order
that world gave them (else its lead over ``search`` would be part clairvoyance, like
``oracle``'s), and a world's first round is scored as ``jointpick``'s rollouts score it.
(``tests/test_benchmarks_smoke.py`` runs the script itself.)"""

from __future__ import annotations

import importlib
import random
import sys
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import REPO


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(REPO / "benchmarks"))  # the script imports ``smoke`` beside it
    try:
        return importlib.import_module("bench_take4_headroom")
    finally:
        sys.path.remove(str(REPO / "benchmarks"))


def _state(seed: int, taken: int) -> tuple[list[int], list[int], list[int]]:
    """A deck dealt from ``seed``, ``taken`` of its cards handed out round-robin to 3 seats
    (collections without a completed squad), the next table and the rest below it."""
    rng = random.Random(seed)
    deck = [c for c in range(16) for _ in range(4)]
    rng.shuffle(deck)
    masks = [0, 0, 0]
    for i, c in enumerate(deck[:taken]):
        seat = i % 3
        mask = masks[seat] | 1 << c
        if bin(mask >> (c & 12) & 15).count("1") < 4:
            masks[seat] = mask
    rest = deck[taken:]
    return masks, rest[:4], rest[4:]


@given(
    seed=st.integers(0, 2**32),
    taken=st.integers(0, 24),
    kind=st.sampled_from(["greedy", "random", "rules"]),
)
def test_a_pick_inside_a_world_never_depends_on_its_deck_order(
    bench: ModuleType, seed: int, taken: int, kind: str
) -> None:
    masks, table, rest = _state(seed, taken)
    unseen = len(rest) - 3  # the last 3 cards stand for the deck's known bottom
    model = ["rules", kind, "greedy"]
    picks = [2, 3, 3]  # seat 0 and a contest: whatever the first round gives, it goes on
    inner: list[int] = []
    search = bench._one_step

    def spy(*args: object, **kwargs: object) -> int:
        inner.append(search(*args, **kwargs))
        return inner[-1]

    def next_pick(world: list[int]) -> int:
        inner.clear()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(bench, "_one_step", spy)
            bench._nested(table, world, unseen, masks, picks, model, seed, 12)
        assert len(inner) <= 1
        return inner[0] if inner else 0  # 0: the first round ended the match

    # the same next table (the world's first 4 cards), the rest of the unseen part reordered
    reordered = rest[4:unseen]
    random.Random(seed + 1).shuffle(reordered)
    assert next_pick(rest) == next_pick(rest[:4] + reordered + rest[unseen:])


def test_a_world_whose_first_round_completes_a_squad_is_scored_by_who_completed_it(
    bench: ModuleType,
) -> None:
    # seat 0 holds three of Classic (0, 1, 2) and seat 1 three of Fantasy (4, 5, 6); the table
    # shows the last of each (3 and 7) and two cards nobody needs
    masks, table, world = [0b0111, 0b0111 << 4, 0], [3, 7, 8, 12], list(range(9, 16)) * 4
    model = ["rules", "greedy", "random"]
    assert bench._nested(table, world, 20, masks, [1, 2, 3], model, 5, 4) == 0.0  # both win
    assert bench._nested(table, world, 20, masks, [3, 2, 4], model, 5, 4) == -1.0  # seat 1 wins
    assert bench._nested(table, world, 20, masks, [1, 3, 4], model, 5, 4) == 0.0  # seat 0 wins
    # nobody completes this round: the world goes on, and the rollout's place is one of these
    assert bench._nested(table, world, 20, masks, [3, 4, 3], model, 5, 4) in (0.0, -1.0, -2.0)
