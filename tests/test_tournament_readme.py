"""The README's main command (the first line of the project README), in a fresh clone: venv,
editable install, the demo, the table.

The venv sees the system site-packages and pip runs with --no-deps (the build backend still comes
from the package index), so ray and friends are not downloaded again; otherwise the command is
the README's, word for word."""

from __future__ import annotations

import re
import subprocess

import pytest

from conftest import REPO, ray_env
from mallows.tournaments.spec import load_tournament

pytestmark = pytest.mark.slow


def test_readme_main_command_in_a_fresh_clone(tmp_path):
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```", 2)[1]
    line = next(ln for ln in first_block.splitlines() if ln.startswith("python3 -m venv"))
    guide = (REPO / "tournaments" / "README.md").read_text()
    assert line in guide.splitlines()  # the tournament guide shows the same command
    steps = line.split(" && ")
    assert steps == ["python3 -m venv .venv", ".venv/bin/pip install -q -e .",
                     ".venv/bin/mallows tournament run tournaments/demo.toml"]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    offline = [steps[0] + " --system-site-packages",
               steps[1] + " --no-deps", steps[2]]
    env = ray_env()
    env.pop("MALLOWS_BOTS_DIR", None)
    proc = subprocess.run(" && ".join(offline), shell=True, cwd=clone, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert (clone / "results" / "mallows.db").exists()
    matches = load_tournament(REPO / "tournaments" / "demo.toml").match_count()
    assert f"demo · arschmallows · {matches} matches" in proc.stdout
    # captured, not a terminal: the plain layout (rank, bot, numbers in columns)
    rows = re.findall(r"^\s*(\d)\s{2,}(\S+)\s{2,}-?\d", proc.stdout, re.M)
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert f"played {matches} matches (0 already stored)" in proc.stdout
    assert "ray, 2 workers" in proc.stdout or "in-process" in proc.stdout
