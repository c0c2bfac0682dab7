"""What a new organiser and a new bot author met in their first hour (issue 22), each through
the real console script (``conftest.MALLOWS``): what a person reads is what is tested."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
from pathlib import Path

import pytest
from conftest import MALLOWS, REPO

ILLEGAL = REPO / "tests" / "misbehaving_bots" / "illegal.py"


def mallows(*args: str, env: dict | None = None, cwd: Path = REPO, timeout: float = 300):
    out = subprocess.run(
        [MALLOWS, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200", **(env or {})},
        timeout=timeout,
    )
    assert "Traceback" not in out.stdout + out.stderr, out.stdout + out.stderr
    return out


# -- item 2: a forfeited Take4 seat that completes a squad does not "win" ---------------------


def test_a_forfeited_take4_squad_is_not_called_a_win(tmp_path):
    record = tmp_path / "m.json"
    # seat 0 forfeits at once; the random policy then plays its seat and completes a squad
    # first. `play --seed S` is keyed with this user's secret key (a fresh one per test
    # session), so the seed that deals this case is searched for: about one in three does.
    for seed in range(1, 61):
        out = mallows(
            "play",
            "take4",
            "--bot",
            f"{ILLEGAL}:at=1",
            "--bot",
            "random",
            "--bot",
            "random",
            "--seed",
            str(seed),
            "--sandbox",
            "off",
            "--record",
            record,
        )
        assert out.returncode == 0, out.stderr
        result = json.loads(record.read_text())["result"]
        if result["winners"] == [0]:
            break
    assert result["winners"] == [0] and result["forfeits"][0]  # the case this test is about
    assert result["ranks"] == [2, 0, 0]
    assert not re.search(r"seat 0 \([^)]*\) wins", out.stdout), out.stdout
    assert "had forfeited, so it ranks below every seat that did not" in out.stdout
    assert "first place: seat 1 (random), seat 2 (random)" in out.stdout
    replay = mallows("replay", record)
    assert replay.returncode == 0, replay.stderr
    end = next(line for line in replay.stdout.splitlines() if "the game ends" in line)
    assert "Winner" not in end, end
    assert "completed a squad but had forfeited" in end, end


# -- item 8: one round numbering, from 1, in the replay and in forfeit reasons ----------------


def _forfeit_round(lines: list[str]) -> tuple[int, int]:
    at = next(i for i, line in enumerate(lines) if " forfeits (" in line)
    said = re.search(r"decision \d+ in round (\d+)", lines[at])
    assert said, lines[at]
    return at, int(said.group(1))


def test_take4_forfeit_reason_names_the_round_the_replay_prints(tmp_path):
    record = tmp_path / "m.json"
    out = mallows(
        "play",
        "take4",
        "--bot",
        f"{ILLEGAL}:at=4",
        "--bot",
        "random",
        "--seed",
        "3",
        "--sandbox",
        "off",
        "--record",
        record,
    )
    assert out.returncode == 0, out.stderr
    assert "decision 4 in round 4, phase pick" in out.stdout
    lines = mallows("replay", record).stdout.splitlines()
    at, said = _forfeit_round(lines)
    shown = next(
        re.match(r"round (\d+):", line) for line in lines[at:] if re.match(r"round (\d+):", line)
    )
    assert int(shown.group(1)) == said == 4  # the round whose picks the forfeit stands before


def test_arschmallows_forfeit_reason_names_the_round_the_replay_prints(tmp_path):
    record = tmp_path / "m.json"
    # `play --seed S` is keyed with a fresh per-session key: the deal in which decision 40
    # falls after the first round is searched for (most do)
    for seed in range(1, 41):
        out = mallows(
            "play",
            "arschmallows",
            "--bot",
            "random",
            "--bot",
            f"{ILLEGAL}:at=40",
            "--seed",
            str(seed),
            "--sandbox",
            "off",
            "--record",
            record,
        )
        assert out.returncode == 0, out.stderr
        lines = mallows("replay", record).stdout.splitlines()
        at, said = _forfeit_round(lines)
        if said > 1:
            break
    header = [int(m.group(1)) for line in lines[:at] if (m := re.match(r"-- round (\d+) --", line))]
    assert header[-1] == said and said > 1  # the round the forfeit happened in, from 1


# -- a small results database: five Take4 bots, 20 matches ------------------------------------

SMALL = """
name = "five"
game = "take4"
players = 2
deals = 1
seed = 5
bots = ["random", "greedy", "denial", "random:call=0.5", "denial:deny=0.5"]
"""


@pytest.fixture(scope="module")
def small_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("small")
    (folder / "five.toml").write_text(SMALL)
    db = folder / "results.db"
    out = mallows(
        "tournament", "run", folder / "five.toml", "--db", db, "--workers", "1", "--quiet"
    )
    assert out.returncode == 0, out.stderr
    return db


# -- item 5: report -o where no folder can be written -----------------------------------------


def test_report_under_a_file_is_refused_with_the_fix(small_db, tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("keep me\n")
    out = mallows("report", "--db", small_db, "-o", afile / "sub")
    assert out.returncode == 2, out.stderr
    assert f"{afile} is a file, not a folder" in out.stderr and "-o report" in out.stderr
    assert afile.read_text() == "keep me\n"


def test_report_where_no_folder_can_be_made_is_refused_with_the_fix(small_db):
    out = mallows("report", "--db", small_db, "-o", "/sys/mallows-report")
    assert out.returncode == 2, out.stderr
    assert "cannot write a folder in /sys" in out.stderr
    assert "give a folder you can write to" in out.stderr


# -- item 13: SIGTERM exits 143 and SIGHUP 129, saying how to resume -------------------------


def _stored(db: Path) -> int:
    import sqlite3

    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_a_terminated_compare_exits_128_plus_the_signal_and_says_how_to_resume(tmp_path, sig):
    import time

    db = tmp_path / "c.db"
    proc = subprocess.Popen(
        [
            MALLOWS,
            "compare",
            "random",
            "random:call=0.2",
            "--game",
            "arschmallows",
            "--workers",
            "1",
            "--max-matches",
            "100000",
            "--db",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        cwd=REPO,
    )
    try:
        deadline = time.monotonic() + 120
        while _stored(db) < 4:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.1)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 128 + sig, err
    text = " ".join(err.split())
    assert f"interrupted by {sig.name}: " in text and "rerun the same command to resume" in text
    assert "Traceback" not in err


# -- item 9: `games` pitfalls name `games` and the fix ---------------------------------------

TAKE4_ONLY = """
class Bot:
    name = "take4only"

    def act(self, observation):
        observation["squads"]  # written for take4: arschmallows has no squads
        return observation["legal_actions"][0]
"""


def test_a_bot_without_games_that_fails_in_another_game_is_told_to_declare_them(tmp_path):
    bot = tmp_path / "take4only.py"
    bot.write_text(TAKE4_ONLY)
    out = mallows("bots", "check", bot, "--games", "2", "--sandbox", "off")
    assert out.returncode == 1, out.stderr
    text = " ".join(out.stdout.split())
    assert "declares no games: checking every game (arschmallows, take4)" in text
    assert "KeyError: 'squads'" in text  # the failure itself, as before
    assert (
        "declares no games, so it was checked in every game, and it fails only in arschmallows"
    ) in text
    assert 'games = ("take4",)' in text and "--game take4" in text


def test_games_written_as_a_string_is_refused_naming_games_and_the_fix(tmp_path):
    bot = tmp_path / "stringy.py"
    bot.write_text(TAKE4_ONLY.replace('name = "take4only"', 'name, games = "stringy", "take4"'))
    for args in (
        ["bots", "check", bot, "--sandbox", "off"],
        ["play", "take4", "--bot", bot, "--bot", "random", "--sandbox", "off"],
    ):
        out = mallows(*args)
        assert out.returncode == 2, out.stdout + out.stderr
        assert "'t', 'a', 'k', 'e', '4'" not in out.stderr and "t, a, k, e, 4" not in out.stderr
        assert 'games = "take4" is a string' in out.stderr
        assert 'write games = ("take4",)' in out.stderr


def test_declared_games_in_every_form():
    from mallows.agents.registry import declared_games
    from mallows.errors import BotError

    assert declared_games(None, "b") is None and declared_games((), "b") is None
    assert declared_games(["take4"], "b") == ("take4",)
    assert declared_games(("arschmallows", "take4"), "b") == ("arschmallows", "take4")
    assert declared_games({"take4", "arschmallows"}, "b") == ("arschmallows", "take4")
    for bad in ("take4", 4, ["take4", 4], {"take4": 1}):
        with pytest.raises(BotError, match="games"):
            declared_games(bad, "b")


# -- item 10: "did you mean" for a mistyped bot name, in every command -----------------------


@pytest.mark.parametrize(
    "args",
    [
        ["play", "take4", "--bot", "gredy", "--bot", "random"],
        ["bots", "check", "gredy"],
        ["compare", "gredy", "random", "--game", "take4"],
    ],
    ids=["play", "bots check", "compare"],
)
def test_a_mistyped_bot_name_gets_did_you_mean(args, tmp_path):
    out = mallows(*args, "--db", tmp_path / "none.db")
    assert out.returncode == 2, out.stdout + out.stderr
    assert "unknown bot 'gredy' (did you mean 'greedy'?)" in out.stderr


def test_no_suggestion_for_a_name_close_to_nothing(tmp_path):
    out = mallows("bots", "check", "zzzqqq", "--db", tmp_path / "none.db")
    assert out.returncode == 2 and "unknown bot 'zzzqqq':" in out.stderr
    assert "did you mean" not in out.stderr


# -- item 12: tables keep to COLUMNS; head-to-head columns named by bot ----------------------


def test_ratings_keeps_to_columns_and_loses_no_figure(small_db):
    wide = mallows("ratings", "--db", small_db, "--format", "json")
    board = json.loads(wide.stdout)
    out = mallows("ratings", "--db", small_db, env={"COLUMNS": "60"})
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert max(len(line) for line in lines) <= 60, out.stdout
    cells = [re.split(r"\s{2,}", line.strip()) for line in lines]
    for row in board:  # every bot's figures are still there, whole
        mine = [c for c in cells if len(c) > 1 and c[1] == row["bot"]]
        assert len(mine) == 2, out.stdout  # a line in each block of columns
        assert f"{row['mu']:.2f}" in mine[0]
        assert any(c.startswith(f"{row['mean_place']:.2f} ± ") for c in mine[1])


def test_ratings_tables_say_mu_compares_within_one_table_only(small_db):
    """TrueSkill's absolute mu depends on the order the matches were rated in: every
    terminal and markdown table says so below itself."""
    for args in ((), ("--format", "markdown")):
        out = mallows("ratings", "--db", small_db, *args, env={"COLUMNS": "200"})
        assert out.returncode == 0, out.stderr
        text = " ".join(out.stdout.split())
        assert "mu is comparable within this table only" in text, out.stdout
        assert "depend on the order they were rated in" in text


def test_head_to_head_names_its_columns_by_bot_and_keeps_to_columns(small_db):
    out = mallows("tournament", "show", "five", "--db", small_db, env={"COLUMNS": "60"})
    assert out.returncode == 0, out.stderr
    text = out.stdout.split("head-to-head")[1]
    assert "vs 1" not in text
    for bot in ("random", "greedy", "denial", "random:call=0.5", "denial:deny=0.5"):
        assert f"vs {bot}" in text
    table = text.split("replay a match")[0].splitlines()
    assert max(len(line) for line in table) <= 60, out.stdout
    cells = re.findall(r"\d\.\d\d \d+% n=\d+", text)
    assert len(cells) == 5 * 4  # every pair, in some block


def test_a_pipe_without_columns_gets_the_whole_row(small_db):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    out = subprocess.run(
        [MALLOWS, "ratings", "--db", str(small_db)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
    )
    header = next(line for line in out.stdout.splitlines() if line.startswith("rank"))
    assert "mu-3σ" in header and "mean place" in header  # one block: for scripts and logs


# -- item 11 (terminal): the estimate is signed the way the question is asked ----------------


@pytest.mark.parametrize(
    "a, b, code, sign", [("greedy", "random", 0, "+"), ("random", "greedy", 1, "-")]
)
def test_compare_estimate_reads_a_better_by(tmp_path, a, b, code, sign):
    out = mallows("compare", a, b, "--game", "take4", "--workers", "1", "--db", tmp_path / "c.db")
    assert out.returncode == code, out.stdout + out.stderr
    estimate = next(line for line in out.stdout.splitlines() if line.startswith("estimate:"))
    assert re.match(
        rf"estimate: {a} better than {b} by \{sign}\d\.\d+ \+/- \d\.\d+ places per "
        rf"match \(95%\)",
        estimate,
    ), estimate
    assert "place minus" not in out.stdout
    diff = re.findall(r"Diff: ([+-]\d\.\d+)", out.stdout)[-1]
    assert f"by {diff} " in estimate  # the same figure as the progress line's Diff
    shown = mallows(
        "tournament",
        "show",
        re.search(r"stored as (\S+):", out.stdout).group(1),
        "--db",
        tmp_path / "c.db",
    )
    assert f"{a} better than {b} by {diff}" in shown.stdout


def test_take4_refusal_counts_rounds_from_1():
    from mallows.errors import IllegalAction
    from mallows.games import get_game
    from mallows.games.base import SeededChance

    take4 = get_game("take4")
    state = take4.new_state(take4.make_options(None, None), 2, SeededChance(1))
    state.apply(0, {"type": "pick", "position": 1})
    with pytest.raises(IllegalAction, match="already picked in round 1$"):
        state.apply(0, {"type": "pick", "position": 2})


# -- item 14: the README says what the demo's time goes to, as measured ----------------------


def test_the_readme_says_where_the_first_commands_time_goes():
    readme = (REPO / "README.md").read_text()
    for text in (
        readme,
        (REPO / "tournaments" / "README.md").read_text(),
        (REPO / "tournaments" / "demo.toml").read_text(),
    ):
        assert "half a minute" not in text and "half-minute" not in text
    said = " ".join(readme.split())
    assert "Most of the first command's time is the install, not the tournament" in said
    assert "python benchmarks/bench_demo.py" in said
    script = (REPO / "benchmarks" / "bench_demo.py").read_text()
    for step in (
        '-m", "venv"',
        '"install", "-q", "-e", "."',
        '"tournament", "run", "tournaments/demo.toml"',
    ):
        assert step in script  # it times the README's own first command, step by step
