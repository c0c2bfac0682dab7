"""`mallows play take4 ...`: through typer's CliRunner (the app in ``mallows.cli``) and through
the real console script in a subprocess. Success prints who collected what and who won; bad
input (player count, options, rule set) exits 2 with a one-paragraph message, no traceback."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import invoke as run_app
from mallows import seeding
from mallows.games import get_game

ROOT = Path(__file__).resolve().parents[1]
take4 = get_game("take4")


def console_script() -> str:
    here = Path(sys.executable).with_name("mallows")
    found = str(here)
    assert found, "the mallows console script is not installed"
    return found


def invoke(args):
    result = run_app(*args)
    return result.exit_code, result.output, result.exception


def script(args, tmp_path):
    proc = subprocess.run(
        [console_script(), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )
    return proc.returncode, proc.stdout, proc.stderr


def test_play_prints_collections_and_winner_and_writes_the_record(tmp_path):
    out_file = tmp_path / "sub" / "match.json"
    code, output, exc = invoke(
        [
            "play",
            "take4",
            "--bot",
            "random",
            "--bot",
            "greedy",
            "--seed",
            "5",
            "--record",
            str(out_file),
        ]
    )
    assert code == 0, (output, exc)
    record = json.loads(out_file.read_text())
    # the match seed is --seed 5 keyed with this user's secret key (mallows.seeding.local_key)
    played = seeding.Chance(seeding.KEYED, seeding.local_key(create=False)).play_seed(5)
    assert (
        record["record_version"] == 1
        and record["game"] == "take4"
        and record["seed"] == played != 5
    )
    assert record["players"] == ["random", "greedy"]
    assert record["options"] == take4.make_options()
    assert set(record["result"]) == {"ranks", "winners", "collections", "forfeits"}
    assert "random" in output and "greedy" in output
    for held in record["result"]["collections"]:
        for name in held:
            assert name in output  # who collected what
    winners = record["result"]["winners"]
    if winners:
        assert f"seat {winners[0]} (" in output and ("wins" in output or "share" in output)
    else:
        assert "No winner" in output
    assert f"record written to {out_file}" in output.replace("\n", "")


def test_play_same_seed_same_record(tmp_path):
    files = [tmp_path / "a.json", tmp_path / "b.json"]
    for f in files:
        code, output, _ = invoke(
            [
                "play",
                "take4",
                "--bot",
                "greedy",
                "--bot",
                "random",
                "--bot",
                "greedy",
                "--seed",
                "11",
                "--record",
                str(f),
            ]
        )
        assert code == 0, output
    assert files[0].read_text() == files[1].read_text()


def test_play_with_options_reaches_the_record(tmp_path):
    f = tmp_path / "m.json"
    code, output, _ = invoke(
        [
            "play",
            "take4",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--bot",
            "random",
            "--option",
            "max_rounds=2",
            "--option",
            "rank_losers_by_progress=yes",
            "--seed",
            "1",
            "--record",
            str(f),
        ]
    )
    assert code == 0, output
    record = json.loads(f.read_text())
    assert record["options"] == {"max_rounds": 2, "rank_losers_by_progress": True}
    assert sum(e["type"] == "picks" for e in record["events"]) <= 2


@pytest.mark.parametrize(
    "args, message",
    [
        (["--bot", "random"], "2 to 4 players"),
        (["--bot", "random"] * 5, "2 to 4 players"),
        (["--bot", "random", "--bot", "random", "--option", "max_rounds=0"], "max_rounds"),
        (["--bot", "random", "--bot", "random", "--option", "max_rounds=many"], "max_rounds"),
        (["--bot", "random", "--bot", "random", "--option", "rounds=3"], "no option 'rounds'"),
        (
            ["--bot", "random", "--bot", "random", "--option", "rank_losers_by_progress=maybe"],
            "rank_losers_by_progress",
        ),
        (["--bot", "random", "--bot", "random", "--rules", "standard"], "no rule set"),
    ],
)
def test_bad_input_exits_2_with_a_message(args, message):
    code, output, exc = invoke(["play", "take4", *args])
    assert code == 2, output
    assert message in output and "error:" in output
    assert "Traceback" not in output


def test_console_script_plays_take4(tmp_path):
    f = tmp_path / "m.json"
    code, out, err = script(
        ["play", "take4", "--bot", "random", "--bot", "greedy", "--seed", "3", "--record", str(f)],
        tmp_path,
    )
    assert code == 0, err
    record = json.loads(f.read_text())
    assert record["game"] == "take4" and record["players"] == ["random", "greedy"]
    assert "greedy" in out and "Traceback" not in err


@pytest.mark.parametrize("count", [1, 5])
def test_console_script_refuses_1_and_5_players(tmp_path, count):
    code, out, err = script(["play", "take4", *(["--bot", "random"] * count)], tmp_path)
    assert code == 2
    assert "2 to 4 players" in err
    assert "Traceback" not in out + err
