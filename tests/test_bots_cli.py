"""``mallows bots list`` and ``mallows bots check``: through typer's CliRunner and through the
real console script. A good bot passes with exit 0; a misbehaving one fails with exit 1 and the
first problem (reason, observation, answer, legal actions), never a traceback; bad input exits 2.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.testing.bots import check_bot, run_check

from conftest import MALLOWS, invoke as run_app

BOTS = Path(__file__).parent / "misbehaving_bots"


def invoke(*args: str):
    result = run_app(*args)
    assert "Traceback" not in result.output  # not even one printed as text
    return result


def test_list_shows_name_version_kind_games_and_source():
    result = invoke("bots", "list")
    assert result.exit_code == 0, result.output
    rows = {
        line.split("│")[1].strip(): line
        for line in result.output.splitlines()
        if line.startswith("│")
    }
    assert (
        "subprocess" in rows["example_node"]
        and "bots/example_node/bot.toml" in rows["example_node"]
    )
    assert "python, in-process" in rows["random"] and "arschmallows, take4" in rows["random"]
    assert "1.0" in rows["example_python"]


@pytest.mark.parametrize("bot", ["example_python", "example_node"])
def test_the_example_bots_pass(bot):
    result = invoke("bots", "check", bot, "--games", "2")
    assert result.exit_code == 0, result.output
    assert f"OK: {bot} passed 2 match(es) in arschmallows, take4 with no forfeit" in result.output
    for game in ("arschmallows", "take4"):
        row = next(ln for ln in result.output.splitlines() if ln.startswith(f"│ {game}"))
        cells = [c.strip() for c in row.split("│")[1:-1]]
        assert cells[1] == "2" and int(cells[2]) > 0 and cells[3] == "0"
        assert cells[4] == "-"  # no forfeit of any kind
        assert all(float(c) > 0 for c in cells[5:9])  # p50, p90, p99, max


def test_an_illegal_answer_fails_showing_observation_answer_and_legal_actions():
    result = invoke("bots", "check", str(BOTS / "illegal.py"), "--game", "take4", "--games", "2")
    assert result.exit_code == 1, result.output
    out = result.output
    assert "FAILED: 2 forfeit(s). First problem, take4, match 0" in out
    assert "decision 2 in round 2, phase pick: answered" in out
    assert '"phase": "pick",' in out and '"positions": [' in out
    answer = out.split("Answer:")[1].split("Legal actions")[0]
    assert '{"type":"teleport","position":99}' in answer
    legal = out.split("Legal actions (")[1]
    assert legal.startswith("4):") and '{"type":"pick","position":1}' in legal


def test_a_failure_before_the_first_decision_has_no_observation():
    result = invoke("bots", "check", str(BOTS / "protocol3"), "--game", "take4", "--games", "1")
    assert result.exit_code == 1, result.output
    assert "before the first deal: the bot speaks protocol 3" in result.output
    assert "no observation" in result.output


def test_check_counts_forfeits_by_the_kind_the_record_gives():
    limits = Limits(decision_seconds=0.5)
    cases = {
        "raiser.py": "error",
        "exiter.py": "exit",
        "hanger.py": "timeout",
        "garbage": "garbage",
        "flooder": "flood",
        "illegal.py": "illegal",
    }
    for bot, kind in cases.items():
        reports, problems = run_check(
            load_bot(str(BOTS / bot), isolate=True), ["take4"], 1, 0, limits
        )
        assert reports[0].forfeits[kind] == 1 and reports[0].forfeit_total == 1, bot
        assert problems[0].kind == kind, bot
        assert problems[0].observation is not None and problems[0].decision == 2, bot
    crash = check_bot(str(BOTS / "segfault.py"), "arschmallows", 1, 0, limits)
    assert not crash.passed and crash.problems[0].kind == "crash"
    assert crash.reports[0].forfeits["crash"] == 1 and crash.games == ["arschmallows"]


def test_the_check_table_names_the_kinds():
    result = invoke("bots", "check", str(BOTS / "exiter.py"), "--game", "take4", "--games", "2")
    assert result.exit_code == 1, result.output
    row = next(ln for ln in result.output.splitlines() if ln.startswith("│ take4"))
    assert [c.strip() for c in row.split("│")[1:-1]][3:5] == ["2", "exit 2"]


@pytest.mark.parametrize(
    "args, message",
    [
        (["bots", "check", "no_such_bot"], "unknown bot 'no_such_bot'"),
        (["bots", "check", "example_node", "--game", "chess"], "unknown game 'chess'"),
        (
            ["bots", "check", str(BOTS / "broken_import.py"), "--game", "arschmallows"],
            "declares the games take4, not 'arschmallows'",
        ),
        (["bots", "check", "example_node", "--games", "0"], "play at least one match"),
        (["bots", "check", str(BOTS / "syntax_error.py")], "does not parse"),
        (
            ["bots", "check", "example_node", "--decision-seconds", "-1"],
            "limit decision_seconds = -1.0 must be a number of seconds",
        ),
        (
            ["bots", "check", "example_node", "--match-seconds", "0"],
            "limit match_seconds = 0.0 must be a number of seconds",
        ),
    ],
)
def test_bad_input_exits_2_with_a_message(args, message):
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    assert message in result.output


def test_the_console_script():
    ok = subprocess.run(
        [MALLOWS, "bots", "check", "example_node", "--game", "take4", "--games", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "OK: example_node passed" in ok.stdout
    bad = subprocess.run(
        [MALLOWS, "bots", "check", str(BOTS / "garbage"), "--game", "take4", "--games", "1"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 1
    assert "not JSON" in bad.stdout and "thinking very hard about pick" in bad.stdout
    assert "Traceback" not in bad.stdout + bad.stderr
    unknown = subprocess.run(
        [MALLOWS, "bots", "check", "no_such_bot"], capture_output=True, text=True, timeout=120
    )
    assert unknown.returncode == 2
    assert unknown.stderr.startswith("error: unknown bot 'no_such_bot'")
    listing = subprocess.run([MALLOWS, "bots", "list"], capture_output=True, text=True, timeout=120)
    assert listing.returncode == 0 and "example_python" in listing.stdout


CHOOSER = """import json, random, sys
rng = random.Random(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "hello", "protocol": PROTO, "name": "said", "version": "1",
                 "games": ["take4"]}
    elif msg["type"] == "act":
        action = dict(rng.choice(msg["observation"]["legal_actions"]))
        reply = {"type": "action", "action": action}
    elif msg["type"] in ("start", "end"):
        reply = {"type": "ok"}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""


@pytest.mark.parametrize(
    "manifest,hello,passes",
    [("protocol = 1\n", 2, False), ("protocol = 2\n", 2, True), ("", 2, True), ("", 1, True)],
)
def test_the_manifest_protocol_is_held_to(tmp_path, manifest, hello, passes):
    """Issue 34 item 8: ``protocol = 1`` in bot.toml with a hello answering 2 is refused,
    naming both; without the key the hello chooses."""
    folder = tmp_path / "said"
    folder.mkdir()
    (folder / "bot.py").write_text(CHOOSER.replace("PROTO", str(hello)))
    (folder / "bot.toml").write_text(
        'name = "said"\nversion = "1"\ncommand = ["python", "bot.py"]\ngames = ["take4"]\n'
        + manifest
    )
    result = invoke("bots", "check", str(folder), "--games", "1")
    if passes:
        assert result.exit_code == 0, result.output
    else:
        assert result.exit_code == 1, result.output
        flat = " ".join(result.output.split())
        assert "hello answers protocol 2, but" in flat and "bot.toml says protocol = 1" in flat
