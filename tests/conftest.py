"""Shared fixtures: tournament files in a temp folder, the project as working directory, and a
real Ray head started as a child process (``ray start --head --block`` on loopback, ended by
killing its process group; never ``ray stop``, which would stop every Ray on the machine)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any
from pathlib import Path

import pytest
from hypothesis import settings

# Whole matches per example: a busy CI machine must not turn into a flaky deadline failure.
settings.register_profile("mallows", deadline=None)
settings.load_profile("mallows")

# Every process that starts or joins Ray from the tests stays on loopback.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
# A pytest-xdist worker sets COLUMNS=80 and LINES=24 for itself; the tests run the commands in
# the environment the README's command gives them (no terminal, no COLUMNS), as one worker does.
if os.environ.get("PYTEST_XDIST_WORKER"):
    for name in ("COLUMNS", "LINES"):
        os.environ.pop(name, None)

REPO = Path(__file__).resolve().parents[1]
# The misbehaving subprocess bots share tests/misbehaving_bots/wire.py, outside their folders:
# their sandboxes show it (read-only), as an organiser's extra runtime file would be shown.
os.environ["MALLOWS_SANDBOX_BIND"] = str(REPO / "tests" / "misbehaving_bots" / "wire.py")
#: The console script installed beside the interpreter running the tests (the README's venv).
#: Never the bare name from PATH: a fresh machine has no ``mallows`` there.
MALLOWS = str(Path(sys.executable).with_name("mallows"))
RAY = str(Path(sys.executable).with_name("ray"))
#: Set (to 1) where a sandbox must be possible (``.ci/run`` sets it): the security tests then
#: fail, naming why, instead of skipping when no sandbox can be made.
REQUIRE_SANDBOX_ENV = "MALLOWS_REQUIRE_SANDBOX"


#: The start of the reason a security test skips with when it does not apply here (a test of
#: the other mode: root's case run as a user, or the reverse): the only skip of a security test
#: allowed where a sandbox is required (``not_here``; every other one fails there).
NOT_HERE = "n/a here: "


def sandbox_required() -> bool:
    return os.environ.get(REQUIRE_SANDBOX_ENV, "") not in ("", "0")


def needs_sandbox() -> list:
    """The marks of a test module that proves the sandbox holds (``security``): skipped where
    no sandbox can be made, unless ``MALLOWS_REQUIRE_SANDBOX`` says one must be (then collecting
    the module fails with the reason, and any skip of its tests but ``not_here``'s fails)."""
    from mallows.agents import sandbox

    why = sandbox.problem()
    if why is not None and sandbox_required():
        raise RuntimeError(
            f"{REQUIRE_SANDBOX_ENV} is set, and no sandbox can be made on this machine: {why}"
        )
    return [
        pytest.mark.security,
        pytest.mark.skipif(why is not None, reason=f"no sandbox on this machine: {why}"),
    ]


def not_here(reason: str):
    """Skip a security test that does not apply to this mode (always allowed)."""
    pytest.skip(NOT_HERE + reason)


def root_only(reason: str):
    """Skip a security test that needs what only a root platform has (a cgroup of its own): not
    applicable to an ordinary user's platform, a failure for root where a sandbox is required."""
    if os.geteuid() != 0:
        not_here(f"{reason} (a platform that is not root has none)")
    pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Where a sandbox is required, a skipped security test fails, naming why it skipped
    (a skip there would hide that the proof did not run), unless it is ``not_here``."""
    outcome = yield
    report = outcome.get_result()
    if not report.skipped or hasattr(report, "wasxfail") or not sandbox_required():
        return
    if item.get_closest_marker("security") is None:
        return
    longrepr = report.longrepr
    why = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr)
    why = why.removeprefix("Skipped: ")
    if why.startswith(NOT_HERE):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"{REQUIRE_SANDBOX_ENV} is set, so this security test may not skip, and it did: {why}. "
        f"Make it run here (what it needs is named above), or unset {REQUIRE_SANDBOX_ENV} on a "
        f"machine that is not meant to prove the sandbox"
    )


def pytest_collection_modifyitems(config, items):
    """A test that uses a Ray cluster fixture must be marked ``ray`` (``-m "not ray"`` skips
    every test that starts Ray)."""
    unmarked = [
        item.nodeid
        for item in items
        if {"ray_head", "ray_cluster"} & set(getattr(item, "fixturenames", ()))
        and item.get_closest_marker("ray") is None
    ]
    if unmarked:
        raise pytest.UsageError(f"tests that start Ray without @pytest.mark.ray: {unmarked}")


@pytest.fixture(scope="session", autouse=True)
def snapshot_cache(tmp_path_factory):
    """Bot snapshots are materialised in a folder of the test session, not the user's cache
    (``$MALLOWS_SNAPSHOTS``, inherited by the console script and by Ray)."""
    folder = tmp_path_factory.mktemp("snapshots")
    saved = os.environ.get("MALLOWS_SNAPSHOTS")
    os.environ["MALLOWS_SNAPSHOTS"] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop("MALLOWS_SNAPSHOTS", None)
    else:
        os.environ["MALLOWS_SNAPSHOTS"] = saved


@pytest.fixture(scope="session", autouse=True)
def chance_key_home(tmp_path_factory):
    """This user's secret key for ``play --seed`` and checks (``seeding.local_key``) lives in a
    folder of the test session (``$XDG_STATE_HOME``, inherited by the console script)."""
    folder = tmp_path_factory.mktemp("state")
    saved = os.environ.get("XDG_STATE_HOME")
    os.environ["XDG_STATE_HOME"] = str(folder)
    yield folder
    if saved is None:
        os.environ.pop("XDG_STATE_HOME", None)
    else:
        os.environ["XDG_STATE_HOME"] = saved


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module's pages (tests/chromium.py: which, and how a
    module without it is skipped)."""
    import chromium

    with chromium.launch() as b:
        yield b


@pytest.fixture
def in_repo(monkeypatch):
    """Run from the project root, so ``./bots`` and ``tournaments/`` are the project's."""
    monkeypatch.chdir(REPO)
    monkeypatch.delenv("MALLOWS_BOTS_DIR", raising=False)
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    return REPO


@pytest.fixture
def write_toml(tmp_path):
    def write(text: str, name: str = "t.toml") -> Path:
        path = tmp_path / name
        path.write_text(text)
        return path

    return write


def invoke(*args: object, env: dict | None = None, input: str | None = None):
    """Run the ``mallows`` app in this process through typer's ``CliRunner`` (every argument
    ``str()``-ed) and return its result. An exception that is not an exit (a traceback a user
    would see) fails the test at once, with that traceback. The console script itself:
    ``MALLOWS``."""
    import traceback

    from typer.testing import CliRunner

    from mallows.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], env=env, input=input)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(
            f"mallows {' '.join(map(str, args))} raised:\n"
            + "".join(traceback.format_exception(result.exception))
        )
    return result


def compare_args(a: str | Path, b: str, game: str, players: int | None = None) -> list:
    """``compare A B --game GAME [--players N] --workers 1``: how most tests start a
    comparison (through ``invoke`` or ``MALLOWS``), the rest of its options after it."""
    seats = ["--players", str(players)] if players is not None else []
    return ["compare", a, b, "--game", game, *seats, "--workers", "1"]


def field_results(n: int, seed: int) -> list:
    """``n`` three-seat results of a four-bot field of clear strengths (strong > mid > weak >
    worst, with some luck), drawn from ``seed``: what the rating tests rate."""
    import random

    rng = random.Random(seed)
    bots = ["strong", "mid", "weak", "worst"]
    out = []
    for _ in range(n):
        seats = rng.sample(bots, 3)
        strength = {b: -i + rng.random() * 1.5 for i, b in enumerate(bots)}
        order = sorted(seats, key=lambda b: -strength[b])
        out.append((seats, [order.index(b) for b in seats]))
    return out


def processes_with(marker: str) -> list[int]:
    """The pids of every process whose command line contains ``marker``."""
    out = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    out.append(int(pid))
        except OSError:
            pass
    return out


@contextlib.contextmanager
def serving(
    args: list, stderr: Any = subprocess.DEVNULL, preexec_fn: Callable[[], None] | None = None
) -> Iterator[str]:
    """``mallows serve --port 0 ARGS`` as the real console script, in a session of its own: its
    base address (``http://127.0.0.1:PORT``) while the block runs; its whole process group
    ended after (``port_of`` gives the port). ``preexec_fn`` runs in the child before serve
    (e.g. to lower its limits)."""
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--port", "0", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=stderr,
        text=True,
        start_new_session=True,
        cwd=REPO,
        preexec_fn=preexec_fn,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+", line)
        assert m, f"serve said {line!r}"
        yield m.group(0)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=15)


def port_of(base: str) -> int:
    return int(base.rsplit(":", 1)[1])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_env(**extra: str) -> dict:
    env = dict(
        os.environ,
        RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0",
        RAY_AUTH_MODE="disabled",
        RAY_USAGE_STATS_ENABLED="0",
    )
    env.pop("RAY_ADDRESS", None)
    env.update(extra)
    return env


def free_ports(count: int) -> list[int]:
    """``count`` distinct free loopback ports (the sockets are held open together, so no two
    are the same; one at a time, the kernel may hand the same port out twice)."""
    socks = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


#: What Ray says when a port we chose is one it picked for another of its components at random.
_PORT_CLASH = b"that is used by other components"


def start_ray_head(log: Path, num_cpus: int = 2, env: dict | None = None):
    """Start ``ray start --head --block`` in its own process group; return (process, address).
    The head's Ray Client server listens too: ``process.client_address`` (``ray://...``).
    Ray picks some of its ports at random; if one clashes with a port chosen here, start again
    with new ports (at most three times)."""
    for attempt in range(3):
        port, client, agent, agent_grpc, runtime_env, metrics = free_ports(6)
        cmd = [
            RAY,
            "start",
            "--head",
            "--block",
            "--node-ip-address",
            "127.0.0.1",
            "--port",
            str(port),
            "--num-cpus",
            str(num_cpus),
            "--include-dashboard=false",
            "--disable-usage-stats",
            "--ray-client-server-port",
            str(client),
            "--dashboard-agent-listen-port",
            str(agent),
            "--dashboard-agent-grpc-port",
            str(agent_grpc),
            "--runtime-env-agent-port",
            str(runtime_env),
            "--metrics-export-port",
            str(metrics),
        ]
        out = open(log, "wb")
        proc = subprocess.Popen(
            cmd, env=env or ray_env(), stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                text = log.read_bytes()
                if _PORT_CLASH in text and attempt < 2:
                    break
                raise RuntimeError(
                    f"ray start exited {proc.returncode}: {text.decode(errors='replace')[-2000:]}"
                )
            if b"Ray runtime started" in log.read_bytes():
                proc.client_address = f"ray://127.0.0.1:{client}"
                return proc, f"127.0.0.1:{port}"
            time.sleep(0.3)
        else:
            stop_ray_head(proc)
            raise RuntimeError(f"ray start did not come up in 60 s: {log.read_text()[-2000:]}")
        stop_ray_head(proc)
    raise AssertionError("unreachable")


def stop_ray_head(proc) -> None:
    """End the head and everything it started: its process group, by id."""
    for sig, wait in ((signal.SIGTERM, 3), (signal.SIGKILL, 10)):  # a blocked head takes 20 s
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            time.sleep(0.5)
        except subprocess.TimeoutExpired:
            continue
    try:
        os.killpg(proc.pid, signal.SIGKILL)  # stragglers in the group
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def ray_cluster(tmp_path_factory):
    """A real two-CPU Ray cluster on loopback for the tests of one module: yields its address
    and its Ray Client address (``ray://...``)."""
    log = tmp_path_factory.mktemp("rayhead") / "ray-head.log"
    proc, address = start_ray_head(log)
    try:
        yield address, proc.client_address
    finally:
        stop_ray_head(proc)


@pytest.fixture(scope="module")
def ray_head(ray_cluster):
    """The address of ``ray_cluster`` (``host:port``)."""
    return ray_cluster[0]


def chance_key(db, name: str | None = None) -> str:
    """The secret key (hex) of tournament ``name`` in ``db`` (its only one by default): a run
    in another database with ``--key`` plays the very same matches."""
    from mallows.results.store import Store

    store = Store(db, readonly=True)
    try:
        if name is None:
            (row,) = store.tournaments()
            name = row["name"]
        key = store.chance_key(name)
        assert key is not None, f"{name} has no secret key"
        return key.hex()
    finally:
        store.close()
