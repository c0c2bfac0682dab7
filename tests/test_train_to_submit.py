"""From training to a submitted bot: trajectories exported from stored matches (through the
real console script) replay to the engine's decisions; the template bot and a bot written by
the training example pass ``bots check``; the example's policy is submitted and beats
``random`` in ``mallows compare`` (exit 0: H1)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import MALLOWS, REPO
from mallows.games.take4 import encoding
from mallows.interop.trajectories import decisions, trajectory_rows


def run(*args: str, cwd=REPO, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MALLOWS, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    folder = tmp_path_factory.mktemp("trajectories")
    (folder / "t4.toml").write_text(
        'name = "t4"\ngame = "take4"\nplayers = 3\ndeals = 1\n'
        'seed = 4\nbots = ["greedy", "random", "denial"]\n'
    )
    (folder / "am.toml").write_text(
        'name = "am"\ngame = "arschmallows"\nplayers = 2\n'
        'deals = 2\nseed = 4\nbots = ["heuristic", "random"]\n'
        "options = { rounds = 2 }\n"
    )
    db = folder / "t.db"
    for name in ("t4", "am"):
        out = run(
            "tournament",
            "run",
            str(folder / f"{name}.toml"),
            "--db",
            str(db),
            "--workers",
            "1",
            "--quiet",
        )
        assert out.returncode == 0, out.stderr
    return db


def test_export_trajectories_gives_every_decision_with_its_encoding(stored):
    out = run("export", "--db", str(stored), "--trajectories")
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    records = [
        json.loads(line)["record"]
        for line in run("export", "--db", str(stored)).stdout.splitlines()
    ]
    assert len(rows) == sum(len(list(decisions(r))) for r in records)
    take4 = [r for r in rows if r["game"] == "take4"]
    arsch = [r for r in rows if r["game"] == "arschmallows"]
    assert take4 and arsch
    for row in take4:
        assert len(row["vector"]) == encoding.SIZE and len(row["actions"]) == 1
        assert row["mask"][row["actions"][0]] == 1
        assert row["actions"][0] + 1 == row["action"]["position"]
    assert any(len(r["actions"]) > 1 for r in arsch)  # a peek, at least, takes two steps
    # one done row per seat and match, carrying the place reward
    done = [r for r in rows if r["done"]]
    assert len(done) == sum(len(r["players"]) for r in records)
    assert {r["reward"] for r in done} <= {1.0, 0.0, -1.0}
    assert all(r["reward"] == 0.0 for r in rows if not r["done"])


def test_trajectory_actions_replay_through_the_environment_steps(stored):
    from mallows.games.arschmallows.codec import ArschmallowsCodec

    out = run("export", "--db", str(stored), "--tournament", "am")
    record = json.loads(out.stdout.splitlines()[0])["record"]
    codec = ArschmallowsCodec(2, 24)
    for row, (seat, obs, action, _) in zip(trajectory_rows("am/0", record), decisions(record)):
        codec.reset()
        done = None
        for number in row["actions"]:
            assert codec.mask(obs, seat)[number] == 1
            done = codec.take(obs, seat, number)
        assert done is not None
        if action["type"] == "peek":
            assert sorted(done["slots"]) == sorted(action["slots"])
        else:
            assert done == action


def test_the_template_bot_passes_the_check():
    out = run("bots", "check", "bots/template_policy", "--games", "3")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "passed 3 match(es) in take4 with no forfeit" in out.stdout


def test_a_policy_for_another_encoder_is_refused(tmp_path):
    import shutil

    bot = tmp_path / "old"
    shutil.copytree(REPO / "bots" / "template_policy", bot)
    np.savez(
        bot / "policy.npz",
        W=np.zeros((10, 4), np.float32),
        b=np.zeros(4, np.float32),
        size=np.int64(10),
    )
    out = run("play", "take4", "--bot", str(bot), "--bot", "random")
    assert out.returncode == 2
    assert "was trained for an encoder of 10 values" in out.stderr


def test_the_example_trains_submits_and_beats_random(tmp_path):
    pytest.importorskip("pettingzoo", reason="the [pettingzoo] extra is not installed")
    db = tmp_path / "sub.db"
    trained = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "train_take4.py"),
            "--out",
            str(tmp_path / "short"),
            "--minutes",
            "0.15",
            "--matches",
            "60",
            "--submit",
            "--db",
            str(db),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert trained.returncode == 0, trained.stdout + trained.stderr
    assert "imitation:" in trained.stdout and "policy.npz" in trained.stdout
    shown = run("bots", "show", "short", "--db", str(db))
    assert shown.returncode == 0 and "short@1" in shown.stdout, shown.stdout + shown.stderr
    compared = run(
        "compare",
        "short@1",
        "random",
        "--game",
        "take4",
        "--workers",
        "1",
        "--db",
        str(db),
        "--quiet",
        "--max-matches",
        "400",
    )
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert "H1 accepted" in compared.stdout
