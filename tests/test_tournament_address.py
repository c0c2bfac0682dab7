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
