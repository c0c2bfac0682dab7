"""The PettingZoo environments pass PettingZoo's own conformance tests (``api_test``,
``seed_test``, ``parallel_api_test``: the real functions of the installed package), play
whole matches the engine agrees with, and encode what the bot kit encodes. Skipped, with the
reason, where the ``[pettingzoo]`` extra is not installed."""

from __future__ import annotations

import numpy as np
import pytest

pettingzoo = pytest.importorskip(
    "pettingzoo", reason="the [pettingzoo] extra is not installed: pip install -e '.[pettingzoo]'"
)
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from mallows.games import get_game  # noqa: E402
from mallows.games.base import SeededChance  # noqa: E402
from mallows.games.take4 import encoding as take4_encoding  # noqa: E402
from mallows.interop import pettingzoo as mpz  # noqa: E402

CASES = [("take4", 2), ("take4", 4), ("arschmallows", 2), ("arschmallows", 5)]


@pytest.mark.parametrize("game, players", CASES)
def test_pettingzoos_api_test(game, players):
    api_test(mpz.env(game, players), num_cycles=400)


@pytest.mark.parametrize("game, players", CASES)
def test_pettingzoos_seed_test(game, players):
    seed_test(lambda: mpz.env(game, players), num_cycles=400)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_pettingzoos_parallel_tests_on_take4(players):
    parallel_api_test(mpz.take4_parallel_env(players), num_cycles=400)
    parallel_seed_test(lambda: mpz.take4_parallel_env(players))


def masked_random_match(env, seed: int) -> tuple[list[float], int]:
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        assert env.observation_space(agent)["observation"].contains(obs["observation"])
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size, f"{agent} has no legal action"
        env.step(int(rng.choice(legal)))
        steps += 1
    return [totals[a] for a in env.possible_agents], steps


@pytest.mark.parametrize("game, players", CASES)
def test_a_whole_match_ends_with_rewards_from_the_engines_places(game, players):
    env = mpz.env(game, players)
    rewards, steps = masked_random_match(env, seed=11)
    state = env.table.state
    assert state.is_terminal() and steps > players
    ranks = state.result([None] * players)["ranks"]
    assert rewards == [1 - 2 * r / (players - 1) for r in ranks]
    # the engine replays the events the environment produced to the same result
    module = get_game(game)
    record = {
        "game": game,
        "options": state.options,
        "players": ["p"] * players,
        "events": state.events,
    }
    assert module.replay(record).result([None] * players)["ranks"] == ranks


def test_reset_with_a_seed_is_the_match_of_that_seed_and_later_resets_continue():
    a, b = mpz.env("arschmallows", 3), mpz.env("arschmallows", 3)
    a.reset(seed=5)
    b.reset(seed=5)
    assert a.match_seed == b.match_seed
    first = a.match_seed
    a.reset()
    b.reset()
    assert a.match_seed == b.match_seed != first
    a.reset(seed=5)
    assert a.match_seed == first
    # the match seed deals what `mallows play --seed` deals
    module = get_game("arschmallows")
    state = module.new_state(module.make_options(None, None), 3, SeededChance(first))
    assert state.events[0] == a.table.state.events[0]


def test_match_seeds_are_numpys_integers_of_the_reset_seed():
    """The match seeds a seeded reset starts are ``default_rng(SeedSequence(seed))``'s
    ``integers(0, 2**63 - 1)``, one after the other (drawn without numpy's per-call set-up)."""
    env = mpz.env("take4", 2)
    for seed in (0, 1, 5, 2**40 + 7, 2**64 - 1):
        rng = np.random.default_rng(np.random.SeedSequence(seed))
        env.reset(seed=seed)
        seeds = [env.match_seed]
        for _ in range(40):
            env.reset()
            seeds.append(env.match_seed)
        assert seeds == [int(rng.integers(0, 2**63 - 1)) for _ in range(41)]


def test_take4_observation_is_the_bot_kits_encoding():
    env = mpz.take4_env(3)
    env.reset(seed=2)
    for _ in range(9):
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        obs = env.observe(agent)
        mallows_obs = env.table.state.observation(seat)
        assert np.array_equal(obs["observation"], take4_encoding.encode(mallows_obs))
        assert obs["observation"].shape == (take4_encoding.SIZE,)
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


def test_arschmallows_get_rid_is_taken_slot_by_slot():
    env = mpz.arschmallows_env(2, options={"table_cards": 4})
    env.reset(seed=1)
    enc = env.table.codec.encoding
    seen_reveal = False
    for _ in range(4000):
        if env.table.terminal():
            break
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        obs = env.observe(agent)
        mask = obs["action_mask"]
        steps = env.table.codec.steps[seat]
        if steps.kind == "get_rid" and len(steps.chosen) >= 2 and mask[5]:
            before = len(env.table.state.events)
            env.step(5)  # REVEAL
            action = env.table.state.events[before]["action"]
            assert action["type"] == "get_rid" and len(action["slots"]) >= 2
            seen_reveal = True
            continue
        choices = np.flatnonzero(mask)
        slot_choices = [c for c in choices if enc.SLOT <= c < enc.SWAP]
        pick = (
            slot_choices[0]
            if slot_choices and env.table.observation(seat)["phase"] == "use"
            else choices[-1]
        )
        env.step(int(pick))
    assert seen_reveal
    assert env.action_space("player_0").n == 246 and enc.actions == 246


def test_a_wrong_action_number_says_what_is_legal():
    env = mpz.take4_env(2, options={"max_rounds": 3})
    env.reset(seed=0)
    with pytest.raises(ValueError, match="must act"):
        env.step(None)
    enc_env = mpz.arschmallows_env(2)
    enc_env.reset(seed=0)
    with pytest.raises(ValueError, match="is not legal now: the legal ones are"):
        enc_env.step(0)  # draw, during the peek
