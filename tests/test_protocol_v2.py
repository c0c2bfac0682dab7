"""Protocol 2 (issue 23, items 1-3): the events a seat may see, perfect recall checked over
the game registry, the negotiation beside protocol 1, delta and full history, and bots of both
protocols (in this process, hosted, and in another language) side by side."""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from mallows.agents.protocol import InProcessBot, Limits
from mallows.agents.registry import load_bot
from mallows.errors import ConformanceError
from mallows.games import GAMES, get_game
from mallows.games.base import SeededChance
from mallows.testing.events import check_events, check_registry
from mallows.runner.match import play_match

from conftest import MALLOWS

sys.path.insert(0, str(Path(__file__).parent / "v2_bots"))
import recall  # noqa: E402

HERE = Path(__file__).parent
RECALL = str(HERE / "v2_bots" / "recall.py")
PLAIN = Limits(sandbox="off", decision_seconds=5.0, start_seconds=20.0)


# -- item 3: perfect recall, checked over the registry ---------------------------------------


def test_every_registered_game_passes_the_perfect_recall_check():
    assert set(check_registry(seeds=(0,), sample_every=40)) >= {"arschmallows", "take4"}


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**31), players=st.integers(2, 4))
def test_perfect_recall_holds_for_any_deal(seed, players):
    check_events("arschmallows", (seed,), players=[players], rules=["standard"], sample_every=60)
    check_events("take4", (seed,), players=[players], sample_every=10)


@pytest.fixture
def toy(monkeypatch):
    import toy_recall

    monkeypatch.setitem(GAMES, "highcard", "toy_recall")
    return toy_recall


def test_the_toy_game_with_honest_events_passes(toy):
    assert check_events("highcard", (0, 1)) > 0


def test_a_private_value_leaked_through_a_public_event_is_caught(toy, monkeypatch):
    monkeypatch.setattr(toy.Events, "LEAK", True)
    with pytest.raises(ConformanceError, match="leaks hidden information"):
        check_events("highcard", (0, 1, 2))


def test_a_dropped_public_event_is_caught(toy, monkeypatch):
    monkeypatch.setattr(toy.Events, "DROP", True)
    with pytest.raises(ConformanceError, match="does not rebuild its observation: wins"):
        check_events("highcard", (0, 1))


# -- item 1: the events -----------------------------------------------------------------------


def _v2_match(game, seed, history="delta", players=3):
    module = get_game(game)
    recall.Bot.LOG = []
    bots = [InProcessBot(recall.Bot(history), f"r{s}") for s in range(players)]
    return play_match(game, module.make_options(), seed, bots), list(recall.Bot.LOG)


def test_arschmallows_events_say_what_opponents_did_and_only_the_drawer_sees_its_card():
    record, log = _v2_match("arschmallows", 11)
    assert record["result"]["forfeits"] == [None] * 3
    _, seat, events, _ = log[-1]
    assert [e["n"] for e in events] == list(range(len(events)))
    assert {"deal", "peek", "draw", "swap", "round_end"} <= {e["type"] for e in events}
    draws = [e for e in events if e["type"] == "draw"]
    assert {e["seat"] for e in draws} == {0, 1, 2}  # every opponent's draws are told
    for e in draws:  # ... and only the drawer is told the value
        assert ("private" in e) == (e["seat"] == seat), e
    assert {e["seat"] for e in events if e["type"] == "peek" and "private" in e} == {seat}


def test_private_parts_go_to_their_seat_alone():
    module = get_game("arschmallows")
    state = module.new_state(module.make_options(), 3, SeededChance(4))
    view = module.events.match_events(3, state.options)
    rng = random.Random(4)
    for _ in range(60):
        seat = state.to_move()[0]
        state.apply(seat, module.random_action(state.observation(seat), rng))
    view.feed(state)
    for k, public in enumerate(view.public):
        private = view.private[k] or {}
        for s in range(3):
            got = view.for_seat(s)[k]
            assert ("private" in got) == (s in private)
            assert {x: y for x, y in got.items() if x != "private"} == public
        if public["type"] in ("peek", "draw"):
            assert set(private) == {public["seat"]}
            assert "value" not in public and "values" not in public
        if public["type"] == "spy":
            assert set(private) == {public["seat"]}


# -- item 2: full and delta, the same information ---------------------------------------------


@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_full_and_delta_give_a_bot_the_same_information(game):
    delta_record, delta_log = _v2_match(game, 21, "delta")
    full_record, full_log = _v2_match(game, 21, "full")
    assert json.dumps(delta_record["events"]) == json.dumps(full_record["events"])
    assert len(delta_log) == len(full_log) > 0
    for (_, _, d_events, d_obs), (_, _, f_events, f_obs) in zip(delta_log, full_log):
        assert d_events == f_events and d_obs == f_obs


def test_a_v2_bot_plays_as_the_v1_random_bot_does():
    """The protocol is the channel, not the game: same seed, same bots' choices."""
    v2, _ = _v2_match("take4", 5, players=2)
    v1 = play_match(
        "take4",
        get_game("take4").make_options(),
        5,
        [load_bot("random").handle(), load_bot("random").handle()],
    )
    assert v2["events"] == v1["events"]


# -- item 2: negotiation, hosted and other-language bots, one tournament ----------------------


def _play(game, handles, seed=3):
    return play_match(game, get_game(game).make_options(), seed, handles)


def test_a_hosted_python_v2_bot_negotiates_2_and_keeps_recall_over_the_pipe():
    for history in ("delta", "full"):
        handle = load_bot(f"{RECALL}:history={history}").handle(PLAIN)
        record = _play("arschmallows", [handle, load_bot("random").handle()])
        assert record["result"]["forfeits"] == [None, None], record["result"]["forfeits"]
        assert handle.protocol == 2 and handle.history == history


def test_a_v2_bot_is_refused_clearly_by_a_platform_offering_only_v1():
    from mallows.agents.process import SubprocessBot

    handle = SubprocessBot(
        "recall", [sys.executable, "-P", "-m", "mallows.agents.host", RECALL], limits=PLAIN
    )
    record = _play("take4", [handle, load_bot("random").handle()])
    assert (
        "the bot speaks protocol 2, but this platform speaks protocol 1"
        in record["result"]["forfeits"][0]
    )


node = pytest.mark.skipif(
    shutil.which("node") is None, reason="node is not installed: the Node example bot cannot run"
)


@node
@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_the_node_example_speaks_v2_and_a_v1_hello_answer_still_works_as_v1(game):
    records, handles = {}, {}
    for name in ("example_node", "example_node:history=full", "example_node:protocol=1"):
        handles[name] = load_bot(name).handle(PLAIN)
        records[name] = _play(game, [handles[name], load_bot("random").handle()], seed=8)
        assert records[name]["result"]["forfeits"] == [None, None], records[name]["result"]
    assert handles["example_node"].protocol == 2 and handles["example_node"].history == "delta"
    assert handles["example_node:history=full"].history == "full"
    assert handles["example_node:protocol=1"].protocol == 1  # it answered hello with 1
    # the same bot, the same seed: the same play whatever the protocol and history
    texts = {json.dumps(r["events"]) for r in records.values()}
    assert len(texts) == 1


def test_a_v1_bot_and_a_v2_bot_in_one_tournament(tmp_path):
    import subprocess

    from mallows.results.store import Store

    spec = tmp_path / "mixed.toml"
    spec.write_text(
        f'name = "mixed"\ngame = "take4"\nplayers = 2\ndeals = 2\nseed = 1\n'
        f'bots = ["random", "{RECALL}"]\n[limits]\nsandbox = "off"\n'
    )
    db = tmp_path / "m.db"
    run = subprocess.run(
        [MALLOWS, "tournament", "run", str(spec), "--db", str(db), "--workers", "1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(Store(db).export())
    assert len(rows) == 4  # 2 deals x 2 seatings
    for row in rows:
        record = json.loads(row["record"])
        assert record["result"]["forfeits"] == [None, None], record["result"]["forfeits"]
        assert sorted(record["players"]) == ["random", "recall"]


# -- a hostile or confused choice is refused with the reason --------------------------------

RAW = HERE / "misbehaving_bots" / "raw_replies.py"


@pytest.mark.parametrize(
    "hello, words",
    [
        (
            '{"type":"hello","protocol":2,"name":"x","version":"1","history":"sometimes"}',
            'whose "history" is neither "delta"',
        ),
        (
            '{"type":"hello","protocol":2,"name":"x","version":"1","history":null}',
            'whose "history" is neither "delta"',
        ),
        (
            '{"type":"hello","protocol":3,"name":"x","version":"1"}',
            "the bot speaks protocol 3, but this platform speaks protocols 1, 2",
        ),
        (
            '{"type":"hello","protocol":"2","name":"x","version":"1"}',
            'must say "protocol": 1 or 2 (the integer)',
        ),
    ],
)
def test_a_bad_protocol_choice_is_a_clear_protocol_failure(hello, words):
    from mallows.agents.process import SubprocessBot
    from mallows.agents.protocol import BotFailure

    handle = SubprocessBot(
        "raw",
        [sys.executable, str(RAW), json.dumps({"hello": hello + "\n"})],
        limits=PLAIN,
        protocols=(1, 2),
    )
    try:
        with pytest.raises(BotFailure) as err:
            handle.start({"seed": 1, "game": "take4", "options": {}})
        assert err.value.kind == "protocol" and words in str(err.value), str(err.value)
    finally:
        handle.close()


def test_an_in_process_bot_with_an_unknown_protocol_forfeits_before_the_first_deal():
    class Three:
        protocol = 3

        def act(self, observation):
            return observation["legal_actions"][0]

    record = _play("take4", [InProcessBot(Three(), "three"), load_bot("random").handle()])
    reason = record["result"]["forfeits"][0]
    assert (
        reason.startswith("before the first deal") and "protocol 3 is not one of 1, 2" in reason
    ), reason


def test_an_in_process_v2_bot_cannot_change_what_the_other_seats_get():
    class Vandal:
        protocol = 2

        def act(self, observation, events):
            for event in events:
                event["type"] = "vandalised"
                event.pop("n", None)
            return observation["legal_actions"][0]

    recall.Bot.LOG = []
    record = _play(
        "arschmallows", [InProcessBot(Vandal(), "vandal"), InProcessBot(recall.Bot(), "recall")]
    )
    assert record["result"]["forfeits"] == [None, None], record["result"]["forfeits"]
