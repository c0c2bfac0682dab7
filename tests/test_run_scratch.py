"""A run's scratch is removed by the process that owns the run, not by ``atexit``: each
sandboxed bot's worker makes a folder of ``/proc`` copies (``mallows-proc-*``), and a Ray
worker never reaches ``atexit`` (64 such folders were found in ``/tmp``, 2 per run). Under a
local Ray the workers make them in the run's scratch folder, which the run removes."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO
from mallows.agents.sandbox.probe import problem


@pytest.mark.ray
@pytest.mark.slow
def test_a_sandboxed_run_on_a_local_ray_leaves_no_scratch_folder(tmp_path):
    if problem() is not None:
        pytest.skip(f"no sandbox here: {problem()}")
    bot = tmp_path / "mine.py"  # not shipped: it runs in the sandbox
    shutil.copy(REPO / "bots" / "random.py", bot)
    tour = tmp_path / "t.toml"
    tour.write_text(
        f'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 2\nseed = 1\n'
        f'bots = ["{bot}", "greedy"]\n'
    )
    # the run's temporary folder of its own (short: Ray's socket paths live under it)
    temp = Path(tempfile.mkdtemp(prefix="mr-"))
    temp.chmod(0o755)  # the bots run as another user: they must reach their /proc copies
    try:
        env = {
            **os.environ,
            "TMPDIR": str(temp),
            "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
            "RAY_AUTH_MODE": "disabled",
        }
        env.pop("RAY_ADDRESS", None)
        run = subprocess.run(
            [MALLOWS, "tournament", "run", str(tour), "--db", str(tmp_path / "t.db")]
            + ["--workers", "2", "-q"],
            capture_output=True,
            text=True,
            timeout=900,
            cwd=REPO,
            env=env,
        )
        assert run.returncode == 0, run.stdout + run.stderr
        left = [str(p) for p in temp.rglob("mallows-*") if p.is_dir()]
        assert not left, left
    finally:
        shutil.rmtree(temp, ignore_errors=True)
