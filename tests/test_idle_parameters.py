"""Issue 34 item 6: a bot parameter that changes nothing in the game (``random:call=0.5`` in
Take4, which has no call) is warned of, naming the parameter and the game, by ``tournament
run`` and ``ladder run``; the shipped files name no such bot."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO, invoke
from mallows.tournaments.format import idle_parameters
from mallows.tournaments.ladder.spec import load_ladder


def test_a_parameter_idle_in_the_game_is_named():
    [warning] = idle_parameters(["random", "random:call=0.5", "greedy"], "take4")
    assert "'random:call=0.5'" in warning and "parameter call" in warning
    assert "no effect in take4" in warning and "arschmallows" in warning
    assert idle_parameters(["random:call=0.5", "greedy:margin=3"], "arschmallows") == []
    assert len(idle_parameters(["greedy:margin=3", "denial:deny=0.3"], "take4")) == 1


@pytest.mark.parametrize("command", ["tournament", "ladder"])
def test_the_runs_warn_of_it(tmp_path, command):
    body = 'game = "take4"\nplayers = 2\nseed = 1\nbots = ["random:call=0.5", "random"]\n'
    if command == "tournament":
        body = 'name = "idle"\n' + body + "deals = 1\n"
    else:
        body = 'name = "idle"\n' + body + "max_matches = 4\n"
    path = tmp_path / "f.toml"
    path.write_text(body)
    ran = invoke(command, "run", path, "--db", tmp_path / "i.db", "--workers", "1", "--quiet")
    assert ran.exit_code == 0, ran.output
    flat = " ".join(ran.output.split())
    assert "warning: 'random:call=0.5': the parameter call has no effect in take4" in flat


@pytest.mark.parametrize(
    "path", sorted((REPO / "tournaments" / "ladders").glob("*.toml")), ids=lambda p: p.name
)
def test_the_shipped_ladders_name_no_idle_parameter(path: Path):
    ladder = load_ladder(path)
    assert idle_parameters(ladder.entrants, ladder.game) == []


def test_the_shipped_take4_ladder_answers_its_question(tmp_path):
    """The shipped ladder's field is four programs: its top 3 is known long before its cap."""
    path = tmp_path / "t.toml"
    text = (REPO / "tournaments" / "ladders" / "take4-ladder.toml").read_text()
    path.write_text(text.replace('submitted = "newest"', 'submitted = "none"'))
    ran = invoke("ladder", "run", path, "--db", tmp_path / "l.db", "--workers", "1", "--quiet")
    assert ran.exit_code == 0, ran.output
    assert "every question is answered" in ran.output
    played = int(ran.output.rsplit("played ", 1)[1].split()[0].replace(",", ""))
    assert played < 5000
