"""Ray: the same tournament in-process, on a local Ray (--workers 2) and on a real cluster
started with ``ray start --head`` (joined with --address) gives identical ratings and records;
a batch whose worker dies is run again; a join refused for token authentication says so."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from mallows.results.store import Store

from conftest import MALLOWS, chance_key, ray_env, start_ray_head, stop_ray_head

pytestmark = [pytest.mark.ray, pytest.mark.slow]

TOURNAMENT = """
name = "r"
game = "arschmallows"
players = 4
deals = 3
seed = 17
bots = ["random", "crashonce", "random:call=0.1", "random:call=0.3", "random:call=0.01"]
"""

# Plays like `random`; in a process whose environment names a marker file that does not exist
# yet, it creates the file and kills its whole process (the Ray worker: MALLOWS_ISOLATE=0).
CRASH_BOT = """
import os, random
from mallows.agents.policy import EveryGame, random_action

class Bot:
    games = EveryGame()

    def __init__(self):
        self.rng = random.Random(0)

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        marker = os.environ.get("MALLOWS_TEST_CRASH_MARKER")
        if marker and not os.path.exists(marker):
            open(marker, "w").close()
            os._exit(1)

    def act(self, observation):
        return random_action(observation, self.rng)
"""


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("raytour")
    bots = root / "bots"
    bots.mkdir()
    (bots / "crashonce.py").write_text(CRASH_BOT)
    toml = root / "r.toml"
    toml.write_text(TOURNAMENT)
    env = ray_env(MALLOWS_BOTS_DIR=str(bots), MALLOWS_ISOLATE="0")
    return root, toml, env


def run_cli(args, env, cwd, timeout=120):
    proc = subprocess.run(
        [MALLOWS, "tournament", "run", *map(str, args), "--quiet"],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def snapshot(db: Path) -> tuple:
    out = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    records = {row["id"]: row["record"] for row in Store(db).export()}
    assert len(records) == 5 * 4 * 3
    return json.loads(out.stdout), records


@pytest.fixture(scope="module")
def in_process(setup):
    root, toml, env = setup
    db = root / "inproc.db"
    run_cli([toml, "--db", db, "--workers", "1"], env, root)
    return snapshot(db)


def test_local_ray_with_two_workers_gives_identical_ratings(setup, in_process):
    root, toml, env = setup
    db = root / "local.db"
    # the in-process run's secret key: the very same matches on Ray
    out = run_cli(
        [
            toml,
            "--db",
            db,
            "--workers",
            "2",
            "--batch-size",
            "4",
            "--key",
            chance_key(root / "inproc.db"),
        ],
        env,
        root,
    )
    assert "ray, 2 workers" in out
    assert snapshot(db) == in_process


def test_cluster_by_address_with_a_lost_batch_gives_identical_ratings(setup, in_process, ray_head):
    root, toml, env = setup
    db = root / "cluster.db"
    marker = root / "crashed"
    out = run_cli(
        [
            toml,
            "--db",
            db,
            "--address",
            ray_head,
            "--batch-size",
            "4",
            "--key",
            chance_key(root / "inproc.db"),
        ],
        dict(env, MALLOWS_TEST_CRASH_MARKER=str(marker)),
        root,
    )
    assert marker.exists(), "the crash bot never ran on the cluster"
    assert "lost with its worker was run again" in out or "lost with their worker" in out
    assert snapshot(db) == in_process


def test_join_refused_by_token_authentication_says_so(setup, tmp_path):
    root, toml, env = setup
    head_env = ray_env(RAY_AUTH_MODE="token", RAY_AUTH_TOKEN="mallows-test-" + "x" * 24)
    proc, address = start_ray_head(tmp_path / "head.log", num_cpus=1, env=head_env)
    try:
        join_env = dict(env, HOME=str(tmp_path))  # no token file, no token variable
        join_env.pop("RAY_AUTH_MODE", None)
        join_env["RAY_gcs_server_port_wait_time_s"] = "5"  # give up joining after ~5 s
        result = subprocess.run(
            [
                MALLOWS,
                "tournament",
                "run",
                str(toml),
                "--db",
                str(tmp_path / "m.db"),
                "--address",
                address,
            ],
            env=join_env,
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        stop_ray_head(proc)
    assert result.returncode == 2
    assert "token authentication" in result.stderr and "RAY_AUTH_MODE" in result.stderr
    assert "Traceback" not in result.stderr + result.stdout


def test_ray_client_address_gives_identical_ratings(setup, in_process, ray_cluster):
    # Ray Client (ray://, KubeRay's way in) has no streaming generators: the run takes the
    # path that hands back whole batches, and gives the same table and records (it ended in
    # a 79-line traceback: "Streaming actor methods ... not supported ... Ray Client")
    root, toml, env = setup
    db = root / "client.db"
    out = run_cli(
        [
            toml,
            "--db",
            db,
            "--address",
            ray_cluster[1],
            "--batch-size",
            "4",
            "--key",
            chance_key(root / "inproc.db"),
        ],
        env,
        root,
    )
    assert "Traceback" not in out
    assert snapshot(db) == in_process


def test_joining_says_connecting_at_once(setup, tmp_path):
    # a port that accepts connections but never speaks Ray: the join hangs before it fails,
    # and the user is told at once what is going on (it was ~21 s of silence)
    import os
    import select
    import signal
    import socket
    import time

    root, toml, env = setup
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        address = "127.0.0.1:%d" % listener.getsockname()[1]
        proc = subprocess.Popen(
            [
                MALLOWS,
                "tournament",
                "run",
                str(toml),
                "--db",
                str(tmp_path / "m.db"),
                "--address",
                address,
            ],
            env=env,
            cwd=root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            t0 = time.monotonic()
            said = b""  # what it wrote so far, read from the pipe unbuffered (a seed warning
            fd = proc.stderr.fileno()  # and the key's commitment may come first)
            while b"connecting" not in said and time.monotonic() - t0 < 30:
                if not select.select([fd], [], [], 30 - (time.monotonic() - t0))[0]:
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                said += chunk
            text = said.decode(errors="replace")
            first = next((ln for ln in text.splitlines() if "connecting" in ln), text)
            took = time.monotonic() - t0
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # by its own id: nothing else is touched
            proc.wait()
    assert f"connecting to the Ray cluster at {address}" in first, first
    assert took < 20, f"the first line took {took:.1f} s"
