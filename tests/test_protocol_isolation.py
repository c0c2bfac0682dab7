"""Isolation: every misbehaviour of a real bot in its own process becomes a forfeit whose reason
a bot author can act on; the match still completes with a valid record; the process is reaped.

Each test plays a real match of a real game with a misbehaving bot from
``tests/misbehaving_bots`` run isolated (hosted by ``mallows.bothost`` or a manifest bot), next
to the shipped random bot.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from mallows import PROTOCOL_VERSION, bothost, isolation
from mallows.agents import BotFailure, Limits
from mallows.games import get_game
from mallows.isolation import SubprocessBot
from mallows.registry import load_bot
from mallows.runner import play_match

BOTS = Path(__file__).parent / "misbehaving_bots"
FAST = Limits(decision_seconds=2.0, match_seconds=60.0, start_seconds=10.0)


def play(bot: str, game: str = "take4", seat: int = 1, players: int = 2,
         limits: Limits = FAST, seed: int = 7, isolate: bool | None = True):
    """One match: ``bot`` in ``seat``, random bots elsewhere. Returns the record and the handle."""
    spec = load_bot(bot, isolate=isolate)
    module = get_game(game)
    handle = spec.handle(limits)
    handles = [handle if s == seat else load_bot("random").handle(limits)
               for s in range(players)]
    names = [spec.name if s == seat else "random" for s in range(players)]
    record = play_match(game, module.make_options(None, None), seed, handles, names)
    return record, handle


def assert_reaped(handle) -> None:
    proc = handle.proc
    assert proc is not None and proc.returncode is not None, "the bot process was not reaped"
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)


def assert_forfeit(record: dict, seat: int, *fragments: str, before_first_deal=False) -> str:
    """A valid, complete record in which ``seat`` (and only it) forfeited for a reason holding
    every fragment; returns the reason."""
    json.loads(json.dumps(record))  # plain JSON
    assert record["record_version"] == 1
    result = record["result"]
    reason = result["forfeits"][seat]
    assert reason, f"seat {seat} did not forfeit: {result}"
    for fragment in fragments:
        assert fragment in reason, f"{fragment!r} not in the reason {reason!r}"
    assert [f for s, f in enumerate(result["forfeits"]) if s != seat] == \
        [None] * (len(result["forfeits"]) - 1)
    forfeits = [e for e in record["events"] if e["type"] == "forfeit"]
    assert forfeits == [{"type": "forfeit", "seat": seat, "reason": reason}]
    ranks = result["ranks"]
    assert all(ranks[seat] > r for s, r in enumerate(ranks) if s != seat)
    last = record["events"][-1]["type"]
    assert last in ("game_end", "round_end"), "the match did not complete"
    at = record["events"].index(forfeits[0])
    if before_first_deal:
        assert at == 0
        assert reason.startswith("before the first deal: ")
    else:
        assert at > 0 and reason.startswith("decision ")
    return reason


# -- one test per misbehaviour --------------------------------------------------------------

def test_a_bot_that_raises_forfeits_with_the_exception_and_its_line():
    record, handle = play(str(BOTS / "raiser.py"))
    assert_forfeit(record, 1, "decision 2", "ValueError: raiser gives up on purpose",
                   "raiser.py:", "in act")
    assert_reaped(handle)


def test_a_bot_that_exits_forfeits_with_its_status_and_stderr():
    record, handle = play(str(BOTS / "exiter.py"))
    assert_forfeit(record, 1, "decision 2", "exited with status 3",
                   "exiter: out of ideas, leaving")
    assert_reaped(handle)


def test_a_bot_that_crashes_forfeits_with_the_signal():
    record, handle = play(str(BOTS / "segfault.py"), game="arschmallows", players=3, seat=2)
    assert_forfeit(record, 2, "decision 2", "killed by SIGSEGV",
                   "segfault: dereferencing a null pointer")
    assert_reaped(handle)


def test_a_bot_that_hangs_is_stopped_at_the_decision_limit():
    limits = Limits(decision_seconds=0.3, match_seconds=30.0, start_seconds=10.0)
    t0 = time.monotonic()
    record, handle = play(str(BOTS / "hanger.py"), limits=limits)
    assert time.monotonic() - t0 < 5.0
    assert_forfeit(record, 1, "decision 2", "within the time limit of 0.3 s",
                   "decision_seconds", "stopped")
    assert_reaped(handle)  # it ignored SIGTERM: only the kill stops it


def test_a_slow_bot_runs_out_of_its_match_budget():
    limits = Limits(decision_seconds=1.0, match_seconds=0.25, start_seconds=10.0)
    record, handle = play(str(BOTS / "slowpoke.py:delay=0.06"), limits=limits)
    reason = assert_forfeit(record, 1, "match time budget of 0.25 s", "match_seconds")
    decisions = int(reason.split(",")[0].split()[1])
    assert 2 <= decisions <= 5  # 0.25 s at 0.06 s (or more, on a busy machine) a decision
    assert_reaped(handle)


def test_a_bot_that_prints_garbage_forfeits_quoting_the_line():
    record, handle = play(str(BOTS / "garbage"))
    assert_forfeit(record, 1, "decision 2", "not JSON", "thinking very hard about pick")
    assert_reaped(handle)


def test_a_bot_that_answers_the_wrong_json_shape_forfeits():
    record, handle = play(str(BOTS / "wrong_reply"))
    assert_forfeit(record, 1, "decision 2", '{"move": 1}', '"type":"action"')
    assert_reaped(handle)


def test_a_bot_that_writes_a_second_line_forfeits():
    record, handle = play(str(BOTS / "chatty"))
    assert_forfeit(record, 1, "decision 2", "and another thing", "after its answer",
                   "nobody asked for")
    assert_reaped(handle)


def test_a_bot_that_answers_an_illegal_action_forfeits_with_answer_and_legal_actions():
    record, handle = play(str(BOTS / "illegal.py"), game="arschmallows", seat=0)
    reason = assert_forfeit(record, 0, "decision 2", '"type":"teleport"', "which is illegal",
                            "Legal actions were")
    assert '{"type":"peek","slots":[0,1]}' in reason or '"type":"draw"' in reason
    assert_reaped(handle)


def test_a_bot_that_floods_its_output_is_stopped():
    t0 = time.monotonic()
    record, handle = play(str(BOTS / "flooder"))
    assert time.monotonic() - t0 < 10.0
    assert_forfeit(record, 1, "decision 2", "flooded its output",
                   f"more than {isolation.MAX_LINE_BYTES} bytes", "xxxx")
    assert_reaped(handle)


def test_a_bot_that_never_says_hello_forfeits_before_the_first_deal():
    limits = Limits(decision_seconds=0.5, match_seconds=30.0, start_seconds=0.5)
    record, handle = play(str(BOTS / "nohello"), limits=limits)
    assert_forfeit(record, 1, "handshake", "start_seconds", before_first_deal=True)
    assert_reaped(handle)


def test_a_bot_that_fails_to_load_forfeits_before_the_first_deal():
    record, handle = play(str(BOTS / "broken_import.py"))
    assert_forfeit(record, 1, "could not load the bot",
                   "ModuleNotFoundError: No module named 'mallows_no_such_module'",
                   before_first_deal=True)
    assert_reaped(handle)


def test_a_protocol_mismatch_is_a_clear_forfeit():
    record, handle = play(str(BOTS / "protocol2"))
    assert_forfeit(record, 1, "the bot speaks protocol 2",
                   f"this platform speaks protocol {PROTOCOL_VERSION}", before_first_deal=True)
    assert_reaped(handle)


def test_a_missing_program_is_a_forfeit_not_a_crash_of_the_match(tmp_path):
    folder = tmp_path / "gone"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "gone"\nversion = "1"\ncommand = ["./run.sh"]\n'
                                     'games = ["take4"]\n')
    script = folder / "run.sh"
    script.write_text("#!/bin/sh\nexec ./no-such-binary\n")
    script.chmod(0o755)
    record, handle = play(str(folder))
    assert_forfeit(record, 1, "exited with status 127", "no-such-binary",
                   before_first_deal=True)
    assert_reaped(handle)


# -- reaping, bounds --------------------------------------------------------------------------

def test_stopping_a_bot_also_kills_what_it_spawned(tmp_path):
    pidfile = tmp_path / "pids"
    limits = Limits(decision_seconds=0.3, match_seconds=30.0, start_seconds=10.0)
    record, handle = play(f"{BOTS / 'spawner'}:pidfile={pidfile}", limits=limits)
    assert_forfeit(record, 1, "decision 2", "within the time limit")
    bot_pid, grandchild = (int(p) for p in pidfile.read_text().split())
    assert bot_pid == handle.proc.pid
    assert_reaped(handle)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the orphan is reaped by init, not by us
        try:
            os.kill(grandchild, 0)
            with open(f"/proc/{grandchild}/stat") as f:
                if f.read().split(")")[1].split()[0] == "Z":
                    break
        except (ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.02)
    else:
        pytest.fail("the grandchild outlived the match")


def test_stderr_is_bounded_and_the_match_goes_on(monkeypatch):
    monkeypatch.setattr(isolation, "STDERR_LIMIT_BYTES", 1 << 20)
    spec = load_bot(str(BOTS / "stderr_flooder"))
    handle = spec.handle(FAST)
    sizes = []
    real_close = handle.close

    def close():
        sizes.append(os.fstat(handle._err.fileno()).st_size)
        real_close()

    handle.close = close
    record = play_match("take4", get_game("take4").make_options(None, None), 3,
                        [load_bot("random").handle(), handle], ["random", spec.name])
    assert record["result"]["forfeits"] == [None, None]
    assert 0 < sizes[0] <= 1 << 20
    assert_reaped(handle)


def test_a_clean_match_leaves_no_process_and_matches_in_process_play():
    """The wire changes nothing: the same bot isolated and in-process plays the same match."""
    isolated, handle = play("random", game="arschmallows", players=3, seat=1, isolate=True)
    inproc, _ = play("random", game="arschmallows", players=3, seat=1, isolate=False)
    assert isolated["events"] == inproc["events"]
    assert isolated["result"] == inproc["result"]
    assert handle.proc.returncode == 0  # it quit by itself when asked
    assert_reaped(handle)


# -- the cheat test ---------------------------------------------------------------------------

@pytest.mark.parametrize("game", ["take4", "arschmallows"])
def test_an_isolated_bot_cannot_find_the_engine_state_but_in_process_it_can(tmp_path, game):
    out = tmp_path / "found.txt"
    bot = f"{BOTS / 'cheater.py'}:out={out}"
    record, _ = play(bot, game=game, isolate=True)
    assert record["result"]["forfeits"] == [None, None]
    assert out.read_text() == "", "an isolated bot found engine objects"
    record, _ = play(bot, game=game, isolate=False)
    assert record["result"]["forfeits"] == [None, None]
    found = out.read_text().split()
    assert any(name.startswith(f"mallows.games.{game}.") for name in found), found


# -- the wire layer ---------------------------------------------------------------------------

def test_bothost_speaks_the_platform_protocol_version():
    assert bothost.PROTOCOL_VERSION == PROTOCOL_VERSION


def test_a_bot_may_say_hello_before_it_is_asked(tmp_path):
    script = tmp_path / "eager.py"
    script.write_text(
        "import json, sys\n"
        "print(json.dumps({'type':'hello','protocol':1,'name':'eager','version':'1'}),"
        " flush=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': continue\n"
        "    if m['type'] == 'quit': break\n"
        "    r = {'type':'ok'} if m['type'] != 'act' else "
        "{'type':'action','action':m['observation']['legal_actions'][0]}\n"
        "    print(json.dumps(r), flush=True)\n")
    import sys
    handle = SubprocessBot("eager", [sys.executable, str(script)], limits=FAST)
    time.sleep(0.3)  # whatever the timing
    handle.start({"seed": 1})
    assert handle.hello["name"] == "eager"
    assert handle.act({"legal_actions": [{"type": "pick", "position": 3}]}) == \
        {"type": "pick", "position": 3}
    handle.close()
    assert_reaped(handle)


def test_a_failed_command_is_a_bot_failure_not_an_exception():
    handle = SubprocessBot("nothing", ["/nonexistent/mallows-bot"], limits=FAST)
    with pytest.raises(BotFailure, match="could not start"):
        handle.start({})
    handle.close()


def test_an_answer_that_is_not_json_compatible_is_named(tmp_path):
    path = tmp_path / "setbot.py"
    path.write_text("class Bot:\n"
                    "    def act(self, observation):\n"
                    "        return {'type': 'pick', 'position': {1, 2}}\n")
    record, handle = play(str(path))
    assert_forfeit(record, 1, "decision 1", "act() returned", "not JSON-compatible")
    assert_reaped(handle)
