"""Help text reads as written (issue 22 item 6), through the real console script: square
brackets in a help text are text, not Rich markup; the command list shows each description
whole; flags show no metavar and repeatable options the type of one value."""

from __future__ import annotations

import os
import subprocess

import pytest
from conftest import MALLOWS, REPO

COMMANDS = [
    [],
    ["play"],
    ["bots"],
    ["bots", "check"],
    ["tournament"],
    ["tournament", "run"],
    ["compare"],
    ["report"],
    ["ratings"],
    ["export"],
    ["db"],
]


def help_of(*args: str, columns: int = 200) -> str:
    env = dict(os.environ, COLUMNS=str(columns), TERM="dumb", NO_COLOR="1")
    out = subprocess.run(
        [MALLOWS, *args, "--help"], capture_output=True, text=True, cwd=REPO, env=env, timeout=60
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_square_brackets_are_text_not_markup():
    text = " ".join(help_of("tournament", "run").split())
    assert 'as sandbox = "off" in [limits]; stored with the tournament' in " ".join(
        text.replace("│", " ").split()
    )
    assert "the file's [limits], else on" in " ".join(text.replace("│", " ").split())


def test_top_level_help_shows_each_description_whole():
    lines = help_of().splitlines()
    export = next(line for line in lines if line.strip("│ ").startswith("export "))
    report = next(line for line in lines if line.strip("│ ").startswith("report "))
    assert "for other tools." in export, export
    assert "works offline." in report, report


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a) or "mallows")
def test_no_python_types_as_metavars(args):
    text = help_of(*args)
    assert "<bool>" not in text
    assert "list[" not in text
