"""`mallows play arschmallows ...` through CliRunner and the real console script: 2–6 players,
both rule sets, options, the record file, determinism and bad input (exit 2, no traceback)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import invoke

ROOT = Path(__file__).resolve().parents[1]


def console_script() -> str:
    here = Path(sys.executable).with_name("mallows")
    found = str(here)
    assert found, "the mallows console script is not installed"
    return found


def play(*args):
    result = invoke("play", "arschmallows", *args)
    return result.exit_code, result.output


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("rules", ["standard", "supermallows"])
def test_every_player_count_and_rule_set_plays_to_a_record(tmp_path, players, rules):
    path = tmp_path / "m.json"
    code, output = play(
        *["--bot", "random"] * players, "--rules", rules, "--seed", "7", "--record", str(path)
    )
    assert code == 0, output
    record = json.loads(path.read_text())
    assert record["rules"] == rules and record["players"] == ["random"] * players
    expected_rounds = {"standard": 6, "supermallows": 3}[rules]
    assert len(record["result"]["round_scores"]) == expected_rounds
    assert sum(e["type"] == "round_end" for e in record["events"]) == expected_rounds
    for _seat, total in enumerate(record["result"]["totals"]):
        assert str(total) in output  # the printed table carries every total


def test_option_override_reaches_the_deal_and_the_record(tmp_path):
    path = tmp_path / "m.json"
    code, output = play(
        "--bot", "random", "--bot", "random", "--option", "table_cards=4", "--record", str(path)
    )
    assert code == 0, output
    record = json.loads(path.read_text())
    assert record["options"]["table_cards"] == 4


def test_same_seed_same_record_different_seed_different_deal(tmp_path):
    paths = [tmp_path / f"{i}.json" for i in range(3)]
    for path, seed in zip(paths, [11, 11, 12]):
        assert (
            play(
                "--bot",
                "random",
                "--bot",
                "random",
                "--bot",
                "random",
                "--seed",
                str(seed),
                "--record",
                str(path),
            )[0]
            == 0
        )
    a, b, c = (json.loads(p.read_text()) for p in paths)
    assert a == b
    assert a["events"][0]["deck"] != c["events"][0]["deck"]


@pytest.mark.parametrize(
    "args, words",
    [
        (["--bot", "random"], "2 to 6 players"),
        (["--bot", "random"] * 7, "2 to 6 players"),
        (["--bot", "random", "--bot", "random", "--rules", "xxl"], "xxl"),
        (["--bot", "random", "--bot", "random", "--option", "table_cards=99"], "table_cards"),
        (["--bot", "random", "--bot", "random", "--option", "shield=true"], "shield"),
        (["--bot", "random", "--bot", "random", "--option", "nonsense"], "KEY=VALUE"),
        (["--bot", "random", "--bot", "no_such_bot"], "no_such_bot"),
    ],
)
def test_bad_input_exits_2_with_a_message(args, words):
    code, output = play(*args)
    assert code == 2, output
    assert words in output
    assert "Traceback" not in output


def test_console_script_plays_and_refuses_bad_input(tmp_path):
    env = {**os.environ, "COLUMNS": "200"}
    ok = subprocess.run(
        [
            console_script(),
            "play",
            "arschmallows",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--seed",
            "3",
            "--rules",
            "supermallows",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert ok.returncode == 0, ok.stderr
    assert "place" in ok.stdout and "random" in ok.stdout
    bad = subprocess.run(
        [console_script(), "play", "arschmallows", "--bot", "random"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert bad.returncode == 2
    assert "error:" in bad.stderr and "Traceback" not in bad.stderr + bad.stdout
