"""Joining a cluster at a wrong address fails at once with a message, not after minutes of
Ray retrying: exit 2 and no traceback (a rerun with the right address resumes as usual)."""

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import invoke

REPO = Path(__file__).resolve().parents[1]
FILE = str(REPO / "tournaments" / "take4-reference.toml")


def closed_port() -> int:
    with socket.socket() as s:  # bound, then released: nothing listens there afterwards
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize(
    "address, words",
    [
        (None, ["could not reach a Ray cluster", "ray start --head"]),
        ("not-an-address", ["is not HOST:PORT"]),
    ],
    ids=["closed port", "not an address"],
)
def test_a_wrong_address_exits_2_at_once(tmp_path, address, words):
    address = address or f"127.0.0.1:{closed_port()}"  # chosen now: one name in every collection
    db = tmp_path / "t.db"
    result = invoke("tournament", "run", FILE, "--db", db, "--address", address)
    assert result.exit_code == 2, result.output
    for w in words:
        assert w in result.output
    assert "Traceback" not in result.output


def test_the_console_script_refuses_a_dead_address_quickly(tmp_path):
    mallows = Path(sys.executable).with_name("mallows")
    env = {**os.environ, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}
    proc = subprocess.run(
        [
            str(mallows),
            "tournament",
            "run",
            FILE,
            "--db",
            str(tmp_path / "t.db"),
            "--address",
            f"127.0.0.1:{closed_port()}",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=env,
    )
    assert proc.returncode == 2
    assert "could not reach a Ray cluster" in proc.stderr
    assert "Traceback" not in proc.stderr + proc.stdout


class _FlakyRay:
    """What ``join`` asks of Ray: ``init``, failing ``fails`` times first with ``error``, and
    ``shutdown``. (A Ray Client head fails to start a session only now and then, on its own:
    seen once in a CI run, and not to be provoked on demand.)"""

    def __init__(self, fails: int, error: Exception) -> None:
        self.fails, self.error, self.inits, self.shutdowns = fails, error, 0, 0

    def init(self, **kwargs: object) -> None:
        self.inits += 1
        if self.inits <= self.fails:
            raise self.error

    def shutdown(self) -> None:
        self.shutdowns += 1


START_FAILED = ConnectionAbortedError("Initialization failure from server:\n")


@pytest.mark.parametrize(
    "fails,error,tries,inits,raised",
    [
        (1, START_FAILED, 2, 2, False),  # the session's start failed once: the second try joins
        (2, START_FAILED, 2, 2, True),  # failed twice: said, not tried for ever
        (1, ConnectionError("refused"), 2, 1, True),  # any other failure: at once
        (1, START_FAILED, 1, 1, True),  # a host:port address (not Ray Client): one try
    ],
)
def test_joining_through_ray_client_tries_again_only_when_the_head_failed_to_start_it(
    fails, error, tries, inits, raised
):
    from mallows.runner.cluster import join

    ray = _FlakyRay(fails, error)
    if raised:
        with pytest.raises(type(error)):
            join(ray, "ray://127.0.0.1:10001", {}, tries=tries, pause=0)
    else:
        join(ray, "ray://127.0.0.1:10001", {}, tries=tries, pause=0)
    assert ray.inits == inits
    assert ray.shutdowns == inits - 1
