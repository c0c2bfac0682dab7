"""``mallows bots new``: the folder it writes passes ``mallows bots check`` and its own test
as written (through the real console script), for each language; bad input is exit 2 and
writes nothing."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import MALLOWS, invoke


@pytest.mark.parametrize("lang", ["python", "node"])
def test_a_new_bot_passes_the_check_as_written(tmp_path, lang):
    if lang == "node" and shutil.which("node") is None:
        pytest.skip("node is not installed here: the node template needs it")
    made = subprocess.run(
        [MALLOWS, "bots", "new", "fresh", "--lang", lang],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    assert "next: mallows bots check ./fresh" in made.stdout
    folder = tmp_path / "fresh"
    expected = {"python": {"__init__.py"}, "node": {"bot.toml", "bot.js"}}[lang]
    assert {p.name for p in folder.iterdir()} == expected | {"test_bot.py", "README.md"}
    checked = subprocess.run(
        [MALLOWS, "bots", "check", "./fresh", "--games", "3"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "passed 3 match(es) in arschmallows, take4 with no forfeit" in checked.stdout
    listed = subprocess.run([MALLOWS, "bots", "list"], cwd=tmp_path, capture_output=True, text=True)
    # not in a bots/ folder: found by path only. The name column is read, not the whole
    # output: the source column shows full paths, and the clone's folder may be named fresh
    names = [line.strip("│┃ ").split()[0] for line in listed.stdout.splitlines() if "│" in line]
    assert "random" in names and "fresh" not in names, listed.stdout
    if lang == "python":  # its own test file runs the same check from pytest
        own = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                str(folder / "test_bot.py"),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        assert own.returncode == 0, own.stdout + own.stderr
        assert "1 passed" in own.stdout


def test_a_new_bot_goes_into_bots_when_there_is_one(tmp_path):
    (tmp_path / "bots").mkdir()
    made = subprocess.run(
        [MALLOWS, "bots", "new", "lister", "--game", "take4"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    assert (tmp_path / "bots" / "lister" / "__init__.py").is_file()
    text = (tmp_path / "bots" / "lister" / "__init__.py").read_text()
    assert 'games = ("take4",)' in text
    listed = subprocess.run([MALLOWS, "bots", "list"], cwd=tmp_path, capture_output=True, text=True)
    assert "lister" in listed.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["bots", "new", "My-Bot"], "use lower-case letters, digits and _"),
        (["bots", "new", "class"], "not a Python keyword"),
        (["bots", "new", "ok", "--lang", "rust"], "the languages are python, node"),
        (["bots", "new", "ok", "--game", "chess"], "the games are"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(tmp_path, monkeypatch, args, message):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2
    assert message in result.output
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_never_overwritten(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("keep me")
    result = invoke("bots", "new", "mine")
    assert result.exit_code == 2 and "already exists" in result.output
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["notes.txt"]


def test_the_node_template_says_what_protocol_2_is(tmp_path):
    """Issue 34 item 8: the node manifest says its protocol is held to, and how to choose 2."""
    made = subprocess.run(
        [MALLOWS, "bots", "new", "twoer", "--lang", "node"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr
    toml = (tmp_path / "twoer" / "bot.toml").read_text()
    assert "protocol = 1" in toml
    assert "holds its hello to it" in toml and '"protocol": 2' in toml and "Protocol 2" in toml
