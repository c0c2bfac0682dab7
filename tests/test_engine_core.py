"""The compiled engine core (platform/engine-core, ``mallows.core``): numpy's chance bit for
bit, both games' state machines side by side with the Python engine (the reference), and the
fallback to the Python engine where the core is absent or disabled (``MALLOWS_NO_CORE``)."""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import MALLOWS
from mallows import core
from mallows.testing import ConformanceError
from mallows.testing.core import core_played, side_by_side

needs_core = pytest.mark.skipif(
    not core.available(), reason="no compiled core in this install (no Rust toolchain?)"
)


def test_the_install_builds_the_core_where_there_is_cargo():
    """The README's install builds the core wherever a Rust toolchain is on PATH (CI has one),
    so CI runs every test below against it rather than skipping them."""
    if core.disabled():
        pytest.skip("MALLOWS_NO_CORE is set")
    if shutil.which("cargo") is None:
        pytest.skip("no cargo on PATH: the install falls back to the Python engine")
    assert core.available(), "cargo is on PATH but the install built no core: pip install -e ."


@needs_core
def test_core_streams_draw_numpys_numbers():
    """Every permutation and bounded integer equals numpy's Generator(PCG64(SeedSequence(
    seed, spawn_key=key))), over seeds of every width, keys of 0 to 5 words and bounds up to
    2**32 (the rejection paths included), several draws in a row from one stream."""
    rng = random.Random(35)
    for _ in range(600):
        seed = rng.choice([0, 1, rng.randrange(2**32), rng.randrange(2**53), rng.randrange(2**63)])
        key = tuple(rng.randrange(300) for _ in range(rng.randrange(6)))
        ours = core.CoreRng(seed, key)
        theirs = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
        for _ in range(4):
            if rng.random() < 0.5:
                n = rng.randrange(100)
                assert ours.permutation(n) == theirs.permutation(n).tolist(), (seed, key, n)
            else:
                n = rng.choice([1, 2, 3, 5, 7, 64, 1000, 2**31 + 5, 2**32 - 1, 2**32])
                assert ours.integers(n) == int(theirs.integers(n)), (seed, key, n)


@needs_core
def test_a_copied_stream_draws_what_the_original_draws_next():
    """pickle and deepcopy (how OpenSpiel clones a state, and the conformance checks copy one)
    carry a core stream's whole state, the buffered half of a 64-bit draw included."""
    import copy
    import pickle

    for skip in range(4):
        stream = core.CoreRng(99, (2, 5))
        for _ in range(skip):
            stream.integers(7)  # each draw uses one 32-bit half
        copies = [pickle.loads(pickle.dumps(stream)), copy.deepcopy(stream)]
        expected = [stream.integers(1000) for _ in range(6)] + [stream.permutation(20)]
        for other in copies:
            assert [other.integers(1000) for _ in range(6)] + [other.permutation(20)] == expected


@needs_core
@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_both_engines_play_the_same_matches(game):
    """200 seeds per game (player counts, rule sets and options varied by the seed, see
    ``mallows.testing.core``): the same seats to move, legal actions and table at every
    decision, the same record events and result at the end. 10^5 seeds:
    ``benchmarks/bench_engines.py --side-by-side 100000``."""
    decisions = sum(side_by_side(game, seed) for seed in range(200))
    assert decisions > 200 * 20


@needs_core
@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_the_python_engine_accepts_and_records_the_cores_own_matches(game):
    """The 10^5-seed check's unit (``core_played``), on 300 seeds: the core's random matches
    replayed on the Python engine give the same events and result."""
    assert sum(core_played(game, seed) for seed in range(300)) > 300 * 20


@needs_core
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**63 - 1), game=st.sampled_from(["arschmallows", "take4"]))
def test_any_seed_plays_the_same_on_both_engines(seed, game):
    """Seeds of every width (one or two 32-bit words of SeedSequence entropy), each a player
    count and options of its own: the core's match replays on the Python engine."""
    assert core_played(game, seed) > 0


#: seeds (of ``_capped``'s options) whose final turns meet the final turns' own cap
CAPPED_SEEDS = (732, 842, 1130, 1990, 2958, 3734)


def _capped(seed: int) -> tuple[int, dict]:
    from mallows.games import get_game

    options = {"max_turns_per_round": 1 + seed % 2, "table_cards": 4}
    return 2 + seed % 3, get_game("arschmallows").make_options("standard", options)


@needs_core
@pytest.mark.parametrize("seed", CAPPED_SEEDS)
def test_both_engines_cut_chained_final_turns_alike(monkeypatch, seed):
    """RULES.md 1.12's cap of the final turns' extra turns, in both engines: on these seeds a
    round ends at the cap (checked: the test fails where it does not), and the two engines
    agree at every decision."""
    from mallows.games.arschmallows import state as engine
    from mallows.testing import core as compared

    capped: list[int] = []
    end_round = engine.ArschmallowsState._end_round

    def watched(self, reason):
        if self.trigger is not None and self.extra and self.final_extra >= self.max_turns:
            capped.append(self.round)
        return end_round(self, reason)

    monkeypatch.setattr(engine.ArschmallowsState, "_end_round", watched)
    monkeypatch.setattr(compared, "arschmallows_variant", _capped)
    assert compared.arschmallows(seed) > 0
    assert capped, f"seed {seed} no longer meets the cap: choose the seeds again"


@needs_core
def test_a_core_built_for_another_abi_is_ignored(monkeypatch):
    """A core left from other sources (another ABI version) is not loaded: the Python engine
    plays instead."""
    monkeypatch.setattr(core, "ABI", core.ABI + 1)
    monkeypatch.setattr(core, "_lib", core._UNSET)
    assert core.lib() is None and not core.available()
    monkeypatch.undo()
    assert core.available()


@needs_core
def test_a_difference_is_reported_with_its_seed_and_decision(monkeypatch):
    """The comparison can fail: a core whose deal differs is caught at the first decision."""
    from mallows.games.take4 import core as take4_core

    real = take4_core.CoreTake4.table

    def shifted(self):
        table = real(self)
        table["positions"] = table["positions"][1:] + table["positions"][:1]
        return table

    monkeypatch.setattr(take4_core.CoreTake4, "table", shifted)
    with pytest.raises(ConformanceError, match="seed 1, decision 0: positions differ"):
        side_by_side("take4", 1)


@needs_core
def test_an_illegal_action_leaves_the_core_as_it_was():
    from mallows.games import get_game
    from mallows.games.arschmallows.core import CoreArschmallows

    options = get_game("arschmallows").make_options("standard", {})
    match = CoreArschmallows(7, 3, options)
    assert match.turn() == ("peek", 0) and match.turn_code() == 0
    before = (match.turn(), match.table(), match.events())
    for bad in (
        {"type": "peek", "slots": [0, 0]},
        {"type": "peek", "slots": [0, 6]},
        {"type": "draw"},
        {"type": "get_rid", "slots": [0, 1]},
    ):
        with pytest.raises(ValueError, match="not legal now"):
            match.apply(bad)
    assert (match.turn(), match.table(), match.events()) == before


def _play(tmp_path, name: str, env: dict) -> bytes:
    """A match through the console script (a generous time limit: on a busy machine a 1 s
    decision can be starved, and a forfeit would differ between the two runs)."""
    out = tmp_path / name
    subprocess.run(
        [MALLOWS, "play", "take4", "--bot", "random", "--bot", "random", "--bot", "random",
         "--seed", "11", "--decision-seconds", "60", "--record", str(out)],
        check=True, env=env, capture_output=True,
    )  # fmt: skip
    return out.read_bytes()


def test_without_the_core_mallows_plays_the_same_records(tmp_path):
    """``MALLOWS_NO_CORE=1`` (or an install without a Rust toolchain) runs the pure-Python
    engine: the core reports itself absent, and the console script records the same match
    byte for byte as with the core."""
    env = dict(os.environ, MALLOWS_NO_CORE="1")
    probe = "from mallows import core; print(core.available())"
    off = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    assert off.stdout.strip() == "False", off.stderr
    without = _play(tmp_path, "without.json", env)
    with_core = _play(tmp_path, "with.json", dict(os.environ, MALLOWS_NO_CORE=""))
    assert without == with_core


def _take4_env_trace(players: int, seed: int) -> list:
    pytest.importorskip("pettingzoo")
    from mallows.interop.pettingzoo import take4_env

    env = take4_env(players)
    rng = random.Random(seed)
    trace: list = [None]
    # three matches on one environment: a seeded reset, one continuing its sequence, and a
    # seeded one again (on the core the table restarts its match in place)
    for reset_seed in (seed, None, seed + 1):
        env.reset(seed=reset_seed)
        trace.append(env.match_seed)
        for agent in env.agent_iter():
            obs, reward, done, _, _ = env.last()
            vector, mask = obs["observation"].tobytes(), obs["action_mask"].tobytes()
            trace.append((agent, vector, mask, reward))
            if done:
                env.step(None)
                continue
            legal = [k for k, ok in enumerate(obs["action_mask"].tolist()) if ok]
            env.step(legal[rng.randrange(len(legal))])
        trace.append(env.table.state.events)
    trace[0] = env.table.core is not None
    return trace


@needs_core
def test_the_take4_environment_is_the_same_on_the_core_and_without_it(monkeypatch):
    """PettingZoo's Take4 steps on the core's vectors and masks; with ``MALLOWS_NO_CORE`` on
    the Python engine's observation dicts: every observation, mask, reward and the record's
    events of successive matches on one environment agree."""
    for players, seed in ((2, 3), (3, 8), (4, 21)):
        fast = _take4_env_trace(players, seed)
        monkeypatch.setenv("MALLOWS_NO_CORE", "1")
        slow = _take4_env_trace(players, seed)
        monkeypatch.delenv("MALLOWS_NO_CORE")
        assert fast[0] and not slow[0]
        assert fast[1:] == slow[1:]
