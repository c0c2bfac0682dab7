"""The OpenSpiel games pass OpenSpiel's own ``random_sim_test`` (the installed ``pyspiel``),
their chance nodes carry the true probabilities, OpenSpiel's ISMCTS plays them (and beats
random at Take4), a state rebuilt from a seat's observation shows that seat the same
observation, and the OpenSpiel bot plays a mallows tournament. Skipped, with the reason,
where the ``[openspiel]`` extra is not installed."""

from __future__ import annotations

import random

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="the [openspiel] extra is not installed: pip install -e '.[openspiel]'"
)

from mallows.games import get_game  # noqa: E402
from mallows.games.base import SeededChance  # noqa: E402
from mallows.interop import openspiel as mos  # noqa: E402

SMALL = [
    "mallows_take4",
    "mallows_take4(players=4)",
    "mallows_arschmallows(players=2,table_cards=4,rounds=1)",
    "mallows_arschmallows(players=3,table_cards=4,rounds=2,rules=supermallows)",
]


@pytest.mark.parametrize("name", SMALL)
def test_openspiels_random_sim_test(name):
    game = pyspiel.load_game(name)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


@pytest.mark.slow
def test_openspiels_random_sim_test_on_the_full_arschmallows():
    pyspiel.random_sim_test(
        pyspiel.load_game("mallows_arschmallows(players=4)"),
        num_sims=1,
        serialize=False,
        verbose=False,
    )


def play(game, choose, seed: int):
    rng = np.random.RandomState(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            assert abs(sum(probs) - 1) < 1e-9
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(choose(state))
    return state


def test_the_deal_is_drawn_card_by_card_with_the_true_odds():
    state = pyspiel.load_game("mallows_arschmallows(players=2,table_cards=4)").new_initial_state()
    assert state.is_chance_node()
    odds = dict(state.chance_outcomes())
    # 62 cards: one -4, one -2, four of 0..7, eight 8s and Spies and Exchanges, four Play twice
    assert odds[0] == pytest.approx(1 / 62) and odds[10] == pytest.approx(8 / 62)
    assert odds[13] == pytest.approx(4 / 62) and len(odds) == 14
    state.apply_action(0)  # the -4: none left
    assert 0 not in dict(state.chance_outcomes())


@pytest.mark.parametrize("name", SMALL)
def test_a_played_match_is_a_record_the_engine_replays(name):
    game = pyspiel.load_game(name)
    rnd = random.Random(3)
    state = play(game, lambda s: rnd.choice(s.legal_actions()), 3)
    engine = state.engine
    module = get_game(engine.game)
    players = game.num_players()
    record = {
        "game": engine.game,
        "options": engine.options,
        "players": ["p"] * players,
        "events": engine.events,
    }
    ranks = module.replay(record).result([None] * players)["ranks"]
    assert state.returns() == [1 - 2 * r / (players - 1) for r in ranks]


def test_ismcts_beats_random_at_take4():
    game = pyspiel.load_game("mallows_take4(players=2)")
    bot = mos.ismcts_bot(game, max_simulations=25, seed=4)
    rnd = random.Random(4)
    total = 0.0
    for i in range(4):
        me = i % 2
        state = play(
            game,
            lambda s, me=me: (
                bot.step(s) if s.current_player() == me else rnd.choice(s.legal_actions())
            ),
            100 + i,
        )
        total += state.returns()[me]
    assert total > 0, total  # random against random averages 0


def test_ismcts_plays_a_small_arschmallows():
    game = pyspiel.load_game("mallows_arschmallows(players=2,table_cards=4,rounds=1)")
    bot = mos.ismcts_bot(game, max_simulations=10, seed=1)
    rnd = random.Random(1)
    state = play(
        game, lambda s: bot.step(s) if s.current_player() == 0 else rnd.choice(s.legal_actions()), 1
    )
    assert state.is_terminal()


def test_a_state_rebuilt_from_an_observation_shows_the_seat_that_observation():
    game = pyspiel.load_game("mallows_take4(players=3,max_rounds=1000)")
    module = get_game("take4")
    rng = random.Random(0)
    checked = 0
    for seed in range(4):
        state = module.new_state(module.make_options(None, None), 3, SeededChance(seed))
        while not state.is_terminal():
            for seat in state.to_move():
                obs = state.observation(seat)
                rebuilt = mos.take4_state_from_observation(game, obs, random.Random(seed))
                mine = rebuilt._observation(seat)
                assert rebuilt.current_player() == seat
                assert {k: v for k, v in mine.items() if k != "options"} == {
                    k: v for k, v in obs.items() if k != "options"
                }
                checked += 1
                state.apply(seat, module.random_action(obs, rng))
    assert checked > 30


def test_resampling_keeps_what_the_player_knows():
    game = pyspiel.load_game("mallows_arschmallows(players=3,table_cards=4)")
    rnd = random.Random(2)
    state = game.new_initial_state()
    rng = np.random.RandomState(2)
    for _ in range(400):
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(rnd.choice(state.legal_actions()))
    while state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    player = state.current_player()
    other = mos.resample_from_infostate(state, player, random.Random(5))
    assert other.information_state_string(player) == state.information_state_string(player)
    assert other.observation_string(player) == state.observation_string(player)
    assert other.legal_actions() == state.legal_actions()


def test_the_openspiel_bot_plays_a_mallows_tournament(tmp_path):
    import subprocess

    from conftest import MALLOWS, REPO

    (tmp_path / "os.toml").write_text(
        'name = "openspiel"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 9\n'
        'bots = ["openspiel_ismcts:simulations=5", "random"]\n'
        "[limits]\ndecision_seconds = 30\n"
    )
    db = tmp_path / "t.db"
    out = subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(tmp_path / "os.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "openspiel_ismcts" in out.stdout
    shown = subprocess.run(
        [MALLOWS, "export", "--db", str(db)], cwd=REPO, capture_output=True, text=True
    )
    import json

    records = [json.loads(line) for line in shown.stdout.splitlines() if line.strip()]
    assert len(records) == 2  # both seat orders
    for row in records:
        record = row.get("record", row)
        assert not any(record["result"]["forfeits"]), record["result"]["forfeits"]


def test_ismcts_plays_in_openspiels_own_evaluate_bots():
    """Issue 34 item 9: OpenSpiel's ``evaluate_bots`` calls ``restart_at`` and
    ``inform_action``, which its ISMCTS lacks (``RestartAt(state) not implemented``)."""
    from open_spiel.python.algorithms import evaluate_bots
    from open_spiel.python.bots import uniform_random

    game = pyspiel.load_game("mallows_take4(players=2)")
    rng = np.random.RandomState(3)
    bots = [
        mos.ismcts_bot(game, max_simulations=10, seed=2),
        uniform_random.UniformRandomBot(1, rng),
    ]
    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rng)
    assert len(returns) == 2 and all(-1 <= r <= 1 for r in returns)
