"""How the Arschmallows search bots weigh their candidates (``botkit.search``):
``PairedComparison`` (every candidate on every world, ``ismcts``) and ``RacingComparison``
(candidates that cannot beat the prior leave the race, ``belief``), on made-up utilities
whose answer is known."""

from __future__ import annotations

import random

import pytest

from mallows.games.arschmallows.botkit import PairedComparison, RacingComparison


def _worlds(means: list[float], n: int, seed: int, noise: float = 1.0) -> list[list[float]]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        shared = rng.gauss(0.0, 3.0)  # the world's luck, common to every candidate
        out.append([shared + m + rng.gauss(0.0, noise) for m in means])
    return out


def _race(comparison: RacingComparison, worlds: list[list[float]]) -> list[int]:
    """Feed each world's utilities for the candidates still racing; how many worlds each saw."""
    seen = [0] * len(worlds[0])
    for utils in worlds:
        active = comparison.active
        for i in active:
            seen[i] += 1
        comparison.add([utils[i] for i in active])
        if comparison.decided:
            break
    return seen


def test_a_candidate_clearly_worse_than_the_prior_leaves_the_race():
    race = RacingComparison(3, z_drop=1.5, min_worlds=6)
    seen = _race(race, _worlds([0.0, -5.0, 1.0], 200, seed=1))
    assert 6 <= seen[1] < 20  # out soon after the first six worlds
    assert seen[2] == seen[0] == 200  # the better one races to the end


def test_when_every_rival_is_out_the_race_is_decided_and_the_prior_stands():
    race = RacingComparison(4, z_drop=1.5, min_worlds=6)
    seen = _race(race, _worlds([0.0, -4.0, -6.0, -3.0], 500, seed=2))
    assert race.decided and race.count < 30 and seen[0] == race.count
    assert race.best(0.0) == 0


def test_a_better_candidate_wins_the_race():
    race = RacingComparison(3, z_drop=1.5, min_worlds=6)
    _race(race, _worlds([0.0, -3.0, 1.0], 300, seed=3))
    assert race.best(2.5) == 2 and race.active == [0, 2]


@pytest.mark.parametrize("seed", range(5))
def test_nobody_dropped_it_chooses_exactly_as_the_paired_comparison(seed):
    """A drop margin no candidate reaches: the same worlds, the same choice, at every z."""
    worlds = _worlds([0.0, 0.3, -0.2, 0.5], 80, seed=seed, noise=2.0)
    race, paired = RacingComparison(4, z_drop=1e9), PairedComparison(4)
    for utils in worlds:
        race.add(utils)
        paired.add(utils)
    assert race.active == [0, 1, 2, 3]
    for z in (0.0, 0.5, 1.5, 2.5):
        assert race.best(z) == paired.best(z)


def test_fewer_than_two_worlds_keep_the_prior():
    race = RacingComparison(2)
    race.add([0.0, 9.0])
    assert race.best(0.0) == 0 and race.active == [0, 1]
