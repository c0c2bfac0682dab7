"""Workers' CPUs are the run's (issue 35, item 3): the executor gives each worker a CPU of its
own from the CPUs the run was given (``agents.affinity.assign``), with no machine-wide claim. A
run writes no lock file, two workers of one run under ``taskset`` get distinct CPUs of that set,
and another run holding every old lock file does not push them off their CPUs.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from conftest import MALLOWS
from mallows.agents import affinity

CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
needs_cpus = pytest.mark.skipif(
    len(CPUS) < 2 or not shutil.which("taskset"), reason="needs two CPUs and taskset"
)

#: a trusted bot (run in the worker's process, MALLOWS_ISOLATE=0) that notes the CPUs it plays on
WHERE = textwrap.dedent('''
    """where: plays like random and notes the CPUs it is on, a line per match."""
    import os, random
    from mallows.agents.policy import random_action

    class Bot:
        games = ("take4",)

        def __init__(self, tag: str = ""):
            self.rng = random.Random(0)

        def match_start(self, info):
            self.rng = random.Random(info["seed"])
            cpus = ",".join(map(str, sorted(os.sched_getaffinity(0))))
            with open(os.path.join(os.environ["WHERE_DIR"], f"{os.getpid()}.txt"), "a") as f:
                f.write(cpus + "\\n")

        def act(self, observation):
            return random_action(observation, self.rng)
''')


def test_assign_gives_each_worker_its_own_cpu_of_the_runs_set_then_the_whole_set():
    run = frozenset({3, 5})
    assert affinity.assign(run, 3) == [frozenset({3}), frozenset({5}), run]
    assert affinity.assign(frozenset({7}), 2) == [frozenset({7})] * 2  # one CPU: nothing pinned


def run_cli(folder: Path, workers: int, cpus: list[int], deals: int) -> None:
    """``mallows tournament run`` under ``taskset -c cpus``, the temporary folder private."""
    (folder / "bots").mkdir()
    (folder / "bots" / "where.py").write_text(WHERE)
    (folder / "seen").mkdir()
    path = folder / "t.toml"
    path.write_text(
        f'name = "cpus"\ngame = "take4"\nplayers = 2\ndeals = {deals}\n'
        'bots = ["where:tag=a", "where:tag=b", "where:tag=c"]\n'
    )
    env = dict(
        os.environ,
        TMPDIR=str(folder),
        MALLOWS_BOTS_DIR=str(folder / "bots"),
        MALLOWS_ISOLATE="0",
        WHERE_DIR=str(folder / "seen"),
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
        RAY_AUTH_MODE="disabled",
    )
    command = ["taskset", "-c", ",".join(map(str, cpus)), MALLOWS, "tournament", "run"]
    proc = subprocess.run(
        [*command, str(path), "--db", str(folder / "m.db"), "--workers", str(workers), "--quiet"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def seen(folder: Path) -> list[frozenset]:
    return [
        frozenset(map(int, line.split(",")))
        for f in (folder / "seen").iterdir()
        for line in f.read_text().split()
    ]


@needs_cpus
def test_a_run_writes_no_cpu_lock_file_and_plays_on_one_cpu_of_its_set(tmp_path):
    run_cli(tmp_path, 1, CPUS[:2], deals=1)
    assert not list(tmp_path.glob("mallows-cpu-*.lock")), "a run claimed CPUs machine-wide"
    assert all(len(s) == 1 and s <= set(CPUS[:2]) for s in seen(tmp_path)), seen(tmp_path)


@pytest.mark.ray
@pytest.mark.slow
@needs_cpus
def test_two_workers_of_one_run_get_distinct_cpus_though_another_run_holds_every_lock():
    run = CPUS[:2]
    # a short private temporary folder (Ray's sockets live below it)
    folder = Path(tempfile.mkdtemp(prefix="mwc"))
    held = []
    try:
        for cpu in range(os.cpu_count() or 2):  # what another run held under the old claims
            fd = os.open(folder / f"mallows-cpu-{cpu}.lock", os.O_RDONLY | os.O_CREAT, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            held.append(fd)
        run_cli(folder, 2, run, deals=8)  # 3 tables x 2 rotations x 8 deals: several tasks
        where = seen(folder)
        assert len(where) == 2 * 48, where  # both seats of every match
        assert all(len(s) == 1 for s in where), f"a worker ran unpinned: {set(where)}"
        assert set().union(*where) == set(run), f"two workers shared a CPU: {set(where)}"
    finally:
        for fd in held:
            os.close(fd)
        shutil.rmtree(folder, ignore_errors=True)
