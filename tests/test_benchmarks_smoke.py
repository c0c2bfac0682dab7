"""Every benchmark runs in CI in its smoke mode (``--smoke``: a few matches, figures that mean
nothing), so a changed signature or a moved module breaks CI, not the next person who measures
(issue 36: ``bench_fairness.py`` had passed ``{}`` as ``Job.limits`` unnoticed). A script in
``benchmarks/`` without a smoke mode fails here; the modules the scripts import are listed in
``HELPERS``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO

BENCHMARKS = REPO / "benchmarks"
#: Imported by the scripts, not run.
HELPERS = {"capacity.py", "smoke.py", "wire_bot.py"}
#: The scripts that start a Ray cluster (marked, as every test that starts Ray is).
RAY = {"bench_cluster.py", "bench_tournament.py"}
#: The scripts that need a sandbox (skipped, saying why, where none can be made).
SANDBOXED = {"bench_channels.py", "bench_sandbox.py"}
SCRIPTS = sorted(p.name for p in BENCHMARKS.glob("*.py") if p.name not in HELPERS)


def _smoke(script: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0", RAY_AUTH_MODE="disabled")
    return subprocess.run(
        [sys.executable, str(BENCHMARKS / script), "--smoke"],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=REPO,
        env=env,
        check=False,
    )


@pytest.mark.parametrize(
    "script", [pytest.param(s, marks=[pytest.mark.ray] if s in RAY else []) for s in SCRIPTS]
)
def test_every_benchmark_runs_in_its_smoke_mode(script):
    if script in SANDBOXED:
        from mallows.agents import sandbox

        why = sandbox.problem()
        if why:
            pytest.skip(f"no sandbox on this machine: {why}")
    run = _smoke(script)
    assert run.returncode == 0, (
        f"{script} --smoke failed:\n{run.stdout[-3000:]}{run.stderr[-3000:]}"
    )
    assert run.stdout.strip(), f"{script} --smoke printed nothing"
    assert "Traceback" not in run.stderr


def test_every_script_in_benchmarks_has_a_smoke_mode():
    """A new benchmark must offer --smoke too (or be a helper the others import)."""
    assert len(SCRIPTS) >= 20
    for script in SCRIPTS:
        assert "add_smoke(" in (BENCHMARKS / script).read_text(), script
