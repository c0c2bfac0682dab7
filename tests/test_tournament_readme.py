"""The README's main command (the first line of the project README), in a fresh clone: venv,
editable install, the demo, the table.

The command runs word for word, with two provisions so that it needs neither the network nor
anything installed in the machine's own Python:

- ``python3`` is the interpreter this test venv was made from (a two-line script first on
  ``PATH``), so the new venv has the same Python ABI as the packages below;
- the new venv sees the dependencies already installed in the test venv through a ``.pth`` file
  (appended after its own site-packages, so the clone's editable ``mallows`` comes first), and
  pip installs the clone with ``--no-deps`` (the build backend still comes from the package
  index or its wheel cache).

The test checks that the ``mallows`` the clone's venv imports is the clone's."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import REPO, ray_env
from mallows.tournaments.roundrobin.spec import load_tournament

pytestmark = pytest.mark.slow


def _python3_shim(folder: Path) -> Path:
    """A folder whose ``python3`` is the base interpreter of the venv running the tests."""
    folder.mkdir()
    shim = folder / "python3"
    shim.write_text(f'#!/bin/sh\nexec {sys._base_executable} "$@"\n')
    shim.chmod(0o755)
    return folder


@pytest.mark.ray  # the demo runs on a local Ray
def test_readme_main_command_in_a_fresh_clone(tmp_path):
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```", 2)[1]
    line = next(ln for ln in first_block.splitlines() if ln.startswith("python3 -m venv"))
    guide = (REPO / "tournaments" / "README.md").read_text()
    assert line in guide.splitlines()  # the tournament guide shows the same command
    steps = line.split(" && ")
    assert steps == [
        "python3 -m venv .venv",
        ".venv/bin/pip install -q -e .",
        ".venv/bin/mallows tournament run tournaments/demo.toml",
    ]
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True, timeout=120)
    env = ray_env()
    env.pop("MALLOWS_BOTS_DIR", None)
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env["PATH"] = f"{_python3_shim(tmp_path / 'bin')}{os.pathsep}{env.get('PATH', '')}"
    proc = subprocess.run(
        steps[0], shell=True, cwd=clone, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    site = subprocess.run(
        [
            str(clone / ".venv" / "bin" / "python"),
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # every site-packages folder this test venv reads (a venv may chain to another one's
    # through a .pth file: the folders a .pth names are not scanned for .pth files again)
    deps = sorted(
        {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        | {p for p in sys.path if p.rstrip("/").endswith("site-packages")}
    )
    (Path(site) / "zz-test-venv-deps.pth").write_text("\n".join(deps) + "\n")
    proc = subprocess.run(
        " && ".join([steps[1] + " --no-deps", steps[2]]),
        shell=True,
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    where = subprocess.run(
        [str(clone / ".venv" / "bin" / "python"), "-c", "import mallows; print(mallows.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert Path(where).is_relative_to(clone), where
    assert (clone / "results" / "mallows.db").exists()
    matches = load_tournament(REPO / "tournaments" / "demo.toml").match_count()
    assert f"demo · arschmallows · {matches} matches" in proc.stdout
    # captured, not a terminal: the plain layout (rank, bot, numbers in columns)
    rows = re.findall(r"^\s*(\d)\s{2,}(\S+)\s{2,}-?\d", proc.stdout, re.M)
    assert [r[0] for r in rows] == ["1", "2", "3", "4", "5"]
    assert f"played {matches} matches (0 already stored)" in proc.stdout
    assert "ray, 2 workers" in proc.stdout or "in-process" in proc.stdout


def test_ci_runs_the_readme_test_command_in_a_clean_environment():
    """``.ci/run`` runs the README's second command word for word under ``env -i``."""
    readme = (REPO / "README.md").read_text()
    first_block = readme.split("```", 2)[1]
    command = next(ln for ln in first_block.splitlines() if "pytest" in ln)
    ci = (REPO / ".ci" / "run").read_text()
    runs = [ln for ln in ci.splitlines() if not ln.lstrip().startswith("#")]
    text = "\n".join(runs)
    assert f'bash -c "{command}"' in text
    assert "exec env -i HOME=" in text and "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0" in text
    assert os.access(REPO / ".ci" / "run", os.X_OK)
