"""Protocol 2's ``"step"`` observation (issue 23, item 6): a bot that chose it is sent only
``legal_actions`` and whose step it is, and folds its events (the game's ``SeatRecall``) into
the rest. The fold gives it the very observation ``"full"`` sends, so it plays the very same
matches, in this process and over a pipe; a bad choice is refused with the reason; the
default stays ``"full"``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mallows.agents.history import Story, check_choice, step_keys
from mallows.agents.protocol import InProcessBot, Limits
from mallows.agents.registry import load_bot
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.runner.match import play_match

sys.path.insert(0, str(Path(__file__).parent / "v2_bots"))
import step  # noqa: E402

HERE = Path(__file__).parent
STEP = str(HERE / "v2_bots" / "step.py")
RAW = HERE / "misbehaving_bots" / "raw_replies.py"
PLAIN = Limits(sandbox="off", decision_seconds=5.0, start_seconds=20.0)


def _match(game, seed, handles):
    return play_match(game, get_game(game).make_options(), seed, handles)


def _in_process(game, seed, observation, history="delta", players=3):
    step.Bot.LOG = []
    bots = [InProcessBot(step.Bot(observation, history), f"s{s}") for s in range(players)]
    return _match(game, seed, bots), list(step.Bot.LOG)


@pytest.mark.parametrize("game, seed", [("arschmallows", 12), ("take4", 12)])
def test_a_step_bot_that_folds_its_events_plays_the_same_matches_as_a_full_one(game, seed):
    full, full_log = _in_process(game, seed, "full")
    slim, slim_log = _in_process(game, seed, "step")
    slim_full_history, _ = _in_process(game, seed, "step", "full")
    assert full["result"]["forfeits"] == [None] * 3, full["result"]
    # decision by decision, the fold rebuilt the whole observation the platform would send
    assert len(full_log) == len(slim_log) > 20
    for (_, seat, whole), (_, slim_seat, folded) in zip(full_log, slim_log):
        assert seat == slim_seat and folded == whole
    assert json.dumps(slim["events"]) == json.dumps(full["events"])
    assert json.dumps(slim_full_history["events"]) == json.dumps(full["events"])
    # ... and the same bot speaking protocol 1, sent protocol 1's observations, plays it too
    v1 = _match(game, seed, [InProcessBot(step.Bot(protocol="1"), f"v{s}") for s in range(3)])
    assert json.dumps(v1["events"]) == json.dumps(full["events"])


@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_a_hosted_step_bot_gets_the_slim_observation_and_plays_the_same_match(game):
    handle = load_bot(f"{STEP}:observation=step").handle(PLAIN)
    record = _match(game, 4, [handle, InProcessBot(step.Bot(protocol="1"), "v1")])
    assert record["result"]["forfeits"] == [None, None], record["result"]["forfeits"]
    assert handle.protocol == 2 and handle.observation_mode == "step"
    v1 = _match(game, 4, [InProcessBot(step.Bot(protocol="1"), f"v{s}") for s in range(2)])
    assert json.dumps(record["events"]) == json.dumps(v1["events"])


@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_the_step_observation_is_the_legal_actions_and_whose_step_it_is(game):
    module = get_game(game)
    state = module.new_state(module.make_options(), 3, SeededChance(2))
    story = Story(game, 3, state.options, ["delta"] * 3, ["step", "full", None])
    obs, events = story.deliver(0, state)
    assert set(obs) == set(step_keys(game)) == {"legal_actions", *module.events.STEP_KEYS}
    assert obs == {k: v for k, v in state.observation(0).items() if k in obs}
    assert events and events[0]["n"] == 0
    whole = story.observe(1, state)  # a "full" seat of the same match: the whole observation
    assert set(obs) < set(whole) and "legal_actions" in whole


def test_a_broken_step_observation_is_caught_by_the_recall_check(monkeypatch):
    from mallows.errors import ConformanceError
    from mallows.games.arschmallows import events
    from mallows.testing.events import check_events

    right = events.step_observation
    monkeypatch.setattr(
        events, "step_observation", lambda state, seat: dict(right(state, seat), turn=0)
    )
    with pytest.raises(ConformanceError, match="step observation"):
        check_events("arschmallows", (0,), players=(3,))


@pytest.mark.parametrize("view", ["legal", None, 2, ["step"]])
def test_a_bad_observation_choice_is_refused_with_the_reason(view):
    from mallows.agents.process import SubprocessBot
    from mallows.agents.protocol import BotFailure

    hello = json.dumps(
        {"type": "hello", "protocol": 2, "name": "x", "version": "1", "observation": view}
    )
    handle = SubprocessBot(
        "raw",
        [sys.executable, str(RAW), json.dumps({"hello": hello + "\n"})],
        limits=PLAIN,
        protocols=(1, 2),
    )
    try:
        with pytest.raises(BotFailure) as err:
            handle.start({"seed": 1, "game": "take4", "options": {}})
        text = str(err.value)
        assert err.value.kind == "protocol", text
        assert f'whose observation {view!r} is not "full"' in text and '"step"' in text, text
    finally:
        handle.close()


def test_an_in_process_bot_with_a_bad_observation_choice_forfeits_saying_why():
    class Legal:
        protocol = 2
        observation = "legal"

        def act(self, observation, events):
            return observation["legal_actions"][0]

    record = _match("take4", 1, [InProcessBot(Legal(), "legal"), load_bot("random").handle()])
    reason = record["result"]["forfeits"][0]
    assert (
        reason.startswith("before the first deal")
        and "observation 'legal' is not \"full\"" in reason
        and 'observation = "full" or "step"' in reason
    ), reason
    assert check_choice(2, "delta", observation="step") is None
    assert check_choice(2, "delta") is None  # "full", the default
    assert check_choice(1, None, observation="legal") is None  # protocol 1 has no such choice
