"""One vocabulary in output (issue 11, item 6): the same match told by ``mallows play`` and by
``mallows replay`` gives the same places (counted from 1) and the same round numbers (counted
from 1), for both games; leaderboards count places from 1 too."""

from __future__ import annotations

import json
import re

import pytest

from conftest import invoke as run_app
from mallows.games import get_game


def invoke(*args):
    result = run_app(*args)
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize(
    "game,bots",
    [
        ("take4", ["greedy", "random", "denial"]),
        ("arschmallows", ["greedy", "random", "heuristic"]),
    ],
)
@pytest.mark.parametrize("seed", [3, 11])
def test_play_and_replay_agree_on_places_and_rounds(in_repo, tmp_path, game, bots, seed):
    path = tmp_path / "m.json"
    args = ["play", game, "--seed", seed, "--record", path]
    for b in bots:
        args += ["--bot", b]
    invoke(*args)
    record = json.loads(path.read_text())
    headers, rows, notes = get_game(game).summary(record)
    assert headers[0] == "place"
    played = {int(row[1]): int(str(row[0]).split()[0]) for row in rows}  # seat -> place
    told = invoke("replay", path).output.splitlines()  # what mallows replay prints
    replayed = {
        int(m.group(2)): int(m.group(1))
        for line in told
        if (m := re.match(r"\s+place (\d+): seat (\d+)", line))
    }
    assert played == replayed and min(played.values()) == 1
    assert played == {s: r + 1 for s, r in enumerate(record["result"]["ranks"])}
    rounds = {int(n) for line in told for n in re.findall(r"round (\d+)", line)}
    noted = {int(n) for note in notes for n in re.findall(r"round (\d+)", note)}
    assert min(rounds) == 1 and noted <= rounds  # play names rounds as replay numbers them
    if game == "arschmallows":
        assert headers[-1] == "round wins"  # "wins" is kept for matches won (leaderboards)


def test_leaderboards_count_places_from_1(in_repo, tmp_path):
    toml = tmp_path / "v.toml"
    toml.write_text(
        'name = "v"\ngame = "take4"\nplayers = 2\ndeals = 2\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    invoke("tournament", "run", toml, "--db", tmp_path / "m.db", "--workers", "1", "--quiet")
    rows = json.loads(invoke("ratings", "--db", tmp_path / "m.db", "--format", "json").output)
    assert sorted(r["rank"] for r in rows) == [1, 2]
    assert all(1 <= r["mean_place"] <= 2 for r in rows)
