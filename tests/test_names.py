"""One meaning per name (issue 20, item 3, the submit side; issue 26, item 8): a submission's
name is a plain identifier that no other bot has, and names with control characters are
refused wherever a user chooses one (submissions, comparisons, tournaments, bot names)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO

BOT = (
    "import random\nfrom mallows.agents.policy import random_action\n\nclass Bot:\n"
    "    games = ('take4',)\n\n    def __init__(self):\n        self.rng = random.Random(0)\n\n"
    "    def act(self, observation):\n        return random_action(observation, self.rng)\n"
)


def run(*args, cwd: Path = REPO, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MALLOWS, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=cwd, env=env
    )


def submit(
    bot: Path, db: Path, name: str | None = None, cwd: Path = REPO, env: dict | None = None
) -> subprocess.CompletedProcess:
    """``mallows bots submit BOT --db DB [--name NAME] --games 1``."""
    named = ["--name", name] if name is not None else []
    return run("bots", "submit", bot, "--db", db, *named, "--games", "1", cwd=cwd, env=env)


@pytest.fixture
def squatter(tmp_path) -> Path:
    path = tmp_path / "squatter.py"
    path.write_text(BOT)
    return path


SQUATS = [  # --name, what the message must say
    ("random", "is taken by the bot 'random' shipped with mallows"),
    ("example_python", "is taken by the bot 'example_python' in "),
    ("mybot.py", "ends like a file name: --bot mybot.py would mean a file"),
    ("mybot.toml", "ends like a file name"),
    ("bots/mybot", "no '/', '@', ':' or spaces"),
    ("my bot", "no '/', '@', ':' or spaces"),
    ("x\n", "holds the control character \\n"),
    ("x\x1b[2K", "holds the control character \\x1b"),
    ("\u202emybot", "holds the control character \\u202e"),
]


@pytest.mark.parametrize("name,message", SQUATS, ids=[repr(s[0]) for s in SQUATS])
def test_a_name_another_bot_has_or_no_bot_can_have_is_refused(tmp_path, squatter, name, message):
    db = tmp_path / "m.db"
    proc = submit(squatter, db, name)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert message in proc.stderr, proc.stderr
    assert "\x1b" not in proc.stderr and "Traceback" not in proc.stderr
    assert not db.exists() or "squatter" not in db.read_bytes().decode("latin-1")


def test_a_bot_folder_of_the_current_folder_owns_its_name(tmp_path, squatter):
    here = tmp_path / "project"
    (here / "bots").mkdir(parents=True)
    (here / "bots" / "mine.py").write_text(BOT)
    (here / "notes").write_text("a file called notes")
    env = dict(os.environ)
    env.pop("MALLOWS_BOTS_DIR", None)
    proc = submit(squatter, tmp_path / "m.db", "mine", cwd=here, env=env)
    assert proc.returncode == 2 and "is taken by the bot 'mine' in " in proc.stderr, proc.stderr
    assert str(here / "bots" / "mine.py") in proc.stderr
    proc = submit(squatter, tmp_path / "m.db", "notes", cwd=here, env=env)
    assert proc.returncode == 2 and "is taken by the file" in proc.stderr, proc.stderr
    # the bot that owns a name may be submitted under it
    ok = submit(here / "bots" / "mine.py", tmp_path / "m.db", cwd=here, env=env)
    assert ok.returncode == 0 and ok.stdout.strip().endswith("mine@1"), ok.stdout + ok.stderr


def test_an_entry_point_owns_its_name(tmp_path, squatter):
    """A distribution that registers a bot under group ``mallows.bots`` (a dist-info folder
    on the path, as pip leaves it)."""
    site = tmp_path / "site"
    info = site / "squatted_dist-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: squatted-dist\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[mallows.bots]\nfancy = fancy_pkg:Bot\n")
    env = dict(os.environ, PYTHONPATH=str(site))
    proc = submit(squatter, tmp_path / "m.db", "fancy", env=env)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "is taken by the installed entry point 'fancy' (fancy_pkg:Bot)" in proc.stderr


def test_a_plain_new_name_is_accepted(tmp_path, squatter):
    proc = submit(squatter, tmp_path / "m.db", "squat-2")
    assert proc.returncode == 0 and proc.stdout.strip().endswith("squat-2@1"), proc.stderr


def test_a_comparison_name_with_a_control_character_is_refused(tmp_path):
    proc = run(
        "compare", "random", "greedy", "--game", "take4", "--db", tmp_path / "m.db", "--name", "x\n"
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "holds the control character \\n" in proc.stderr
    assert not (tmp_path / "m.db").exists()


def test_a_tournament_name_with_a_control_character_is_refused(tmp_path):
    path = tmp_path / "t.toml"
    path.write_text(
        'name = "x\\u001b[2K"\ngame = "take4"\nplayers = 2\ndeals = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    proc = run("tournament", "run", path, "--db", tmp_path / "m.db")
    assert proc.returncode == 2
    assert "holds the control character(s) \\x1b" in proc.stderr and "\x1b" not in proc.stderr
