"""Nothing outlives a killed command (issue 26, item 10): ``kill -9`` at seeded random moments
of ``bots submit``, ``bots check``, ``play`` and ``tournament run`` (25 each, 100 in all),
each with a sandboxed bot, and after each no process of it is left, searched for three ways:

- by session (everything the command started in its own session);
- by cgroup (every process in a ``mallows-bot-<pid>-*`` cgroup of the killed command: a bwrap
  that lost its parent at the wrong instant sits in its own session, PID 1 of its namespace,
  but still in its pids cgroup);
- by namespace (every process in another PID namespace whose command line, or an ancestor's,
  names this test's folders).

Then one ordinary command runs and afterwards no cgroup of a killed command is left (the next
command sweeps the cgroups of platforms that are gone, killing what is still in them) and no
half-written snapshot either (``bots submit`` killed while it materialised one left a
read-only temporary folder in the snapshot cache that nothing removed).

The commands run in children forked from the test process (``killing.Forked``): real
processes doing the real work, without an interpreter start-up per kill."""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import needs_sandbox, root_only, MALLOWS, REPO
from killing import Forked
from mallows.agents import sandbox
from mallows.agents.submissions import cache_root

pytestmark = [
    pytest.mark.slow,
    *needs_sandbox(),
]

KILLS = 25
OUR_PIDNS = os.readlink("/proc/self/ns/pid")


def _proc(pid: str) -> dict | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        return {
            "pid": int(pid),
            "state": fields[0],
            "ppid": int(fields[1]),
            "sid": int(fields[3]),
            "cmd": Path(f"/proc/{pid}/cmdline")
            .read_bytes()
            .replace(b"\0", b" ")
            .decode(errors="replace"),
            "cgroup": Path(f"/proc/{pid}/cgroup").read_text(),
            "pidns": os.readlink(f"/proc/{pid}/ns/pid"),
        }
    except (OSError, ValueError):
        return None


def leftovers(killed: set[int], markers: list[str]) -> list[dict]:
    """Every live process of the ``killed`` commands, by session, cgroup and namespace."""
    procs = {
        p["pid"]: p
        for p in map(_proc, filter(str.isdigit, os.listdir("/proc")))
        if p is not None and p["state"] != "Z" and p["pid"] != os.getpid()
    }

    def marked(p: dict, depth: int = 0) -> bool:
        if any(m in p["cmd"] for m in markers):
            return True
        parent = procs.get(p["ppid"])
        return parent is not None and depth < 20 and marked(parent, depth + 1)

    found = []
    for p in procs.values():
        why = []
        if p["sid"] in killed:
            why.append("session")
        if any(f"mallows-bot-{k}-" in p["cgroup"] for k in killed):
            why.append("cgroup")
        if p["pidns"] != OUR_PIDNS and marked(p):
            why.append("namespace")
        if why:
            found.append(dict(p, why=why))
    return found


def assert_nothing_left(killed: set[int], markers: list[str], what: str) -> None:
    deadline = time.monotonic() + 10
    while (left := leftovers(killed, markers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for p in left:  # clean up after a failure, by pid
        try:
            os.kill(p["pid"], signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"{what}: left behind: " + "; ".join(
        f"pid {p['pid']} ({', '.join(p['why'])}): {p['cmd'][:150]}" for p in left
    )


def cgroups_of(killed: set[int]) -> list[str]:
    out = []
    for controller in ("pids", "memory"):
        base = sandbox._cgroup_base(controller)
        if base is None:
            continue
        for name in os.listdir(base[0]):
            parts = name.split("-")
            if name.startswith("mallows-bot-") and len(parts) == 4 and int(parts[2]) in killed:
                out.append(os.path.join(base[0], name))
    return out


@pytest.fixture(scope="module")
def bot(tmp_path_factory):
    """A sandboxed subprocess bot with 2 MB of data (writing its snapshot takes a moment)."""
    folder = tmp_path_factory.mktemp("killbot") / "killbot"
    shutil.copytree(REPO / "bots" / "example_python", folder)
    (folder / "data.bin").write_bytes(os.urandom(2 << 20))
    return folder


def kill_many(args_for, markers: list[str], what: str, longest: float, seed: int) -> set[int]:
    """``KILLS`` kill -9s at seeded moments from 0 to ``longest`` seconds, or to 90% of the
    quickest of two whole runs if that is shorter."""
    durations = []
    for n in range(2):
        child = Forked(args_for(-1 - n))
        child.wait(300)
        durations.append(time.monotonic() - child.started)
    longest = min(longest, 0.9 * min(durations))
    rng = random.Random(seed)
    killed: set[int] = set()
    ran = 0
    while len(killed) < KILLS:
        ran += 1
        assert ran < KILLS * 3, f"{what}: most runs ended before their moment"
        child = Forked(args_for(ran))
        if child.kill_at(rng.uniform(0.0, longest)):
            killed.add(child.pid)
            assert_nothing_left({child.pid}, markers, f"{what} killed at run {ran}")
    return killed


def finish(bot: Path, tmp_path: Path, killed: set[int]) -> None:
    """One ordinary command; then nothing of the killed ones is left anywhere."""
    proc = subprocess.run(
        [
            MALLOWS,
            "bots",
            "submit",
            str(bot),
            "--name",
            "after",
            "--games",
            "1",
            "--db",
            str(tmp_path / "after.db"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert cgroups_of(killed) == []
    partial = [p.name for p in cache_root().iterdir() if p.name.startswith(".")]
    assert partial == [], partial


def test_killed_bots_submit_leaves_nothing(bot, tmp_path):
    db = str(tmp_path / "s.db")

    def args(n: int) -> list[str]:
        (bot / "version.txt").write_text(str(n))  # new content: a new snapshot to write
        return ["bots", "submit", str(bot), "--name", "killbot", "--games", "2", "--db", db]

    killed = kill_many(args, [str(bot), str(cache_root())], "bots submit", 3.0, 261)
    finish(bot, tmp_path, killed)


def test_killed_bots_check_leaves_nothing(bot, tmp_path):
    killed = kill_many(
        lambda n: ["bots", "check", str(bot), "--games", "3", "--seed", str(n)],
        [str(bot)],
        "bots check",
        1.5,
        262,
    )
    finish(bot, tmp_path, killed)


def test_killed_play_leaves_nothing(bot, tmp_path):
    killed = kill_many(
        lambda n: ["play", "take4", "--bot", str(bot), "--bot", "random", "--seed", str(n)],
        [str(bot)],
        "play",
        1.0,
        263,
    )
    finish(bot, tmp_path, killed)


def test_killed_tournament_leaves_nothing(bot, tmp_path):
    toml = tmp_path / "k.toml"
    toml.write_text(
        f'name = "k"\ngame = "take4"\nplayers = 2\ndeals = 50\nseed = 1\n'
        f'bots = ["random", "{bot}"]\n'
    )
    db = str(tmp_path / "k.db")
    killed = kill_many(
        lambda n: ["tournament", "run", str(toml), "--db", db, "--workers", "1", "--quiet"],
        [str(bot), str(cache_root())],
        "tournament run",
        2.0,
        264,
    )
    finish(bot, tmp_path, killed)


# -- the two races, made to happen -------------------------------------------------------------


def test_a_process_left_in_a_bot_cgroup_dies_with_the_platform(tmp_path):
    """What the rare race leaves (a bwrap child adopted by init, in its own session, still in
    its pids cgroup), made on purpose: a process moved into a real bot cgroup of a platform
    that is then killed -9 is killed within moments, and the cgroup removed."""
    if sandbox._cgroup_base("pids") is None:
        root_only("no pids cgroup can be made here")
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the platform: a bot cgroup with an orphan-to-be in it
        try:
            os.close(read)
            cg = sandbox.BotCgroup({"pids": 64})
            sleeper = subprocess.Popen(["sleep", "300"], start_new_session=True)
            for fd in cg.procs.values():
                os.write(fd, str(sleeper.pid).encode())
            os.write(write, f"{sleeper.pid} {cg.name}\n".encode())
            time.sleep(300)
        finally:
            os._exit(0)
    os.close(write)
    line = os.read(read, 200).decode().split()
    os.close(read)
    sleeper, name = int(line[0]), line[1]
    folder = Path(sandbox._cgroup_base("pids")[0]) / name
    assert str(sleeper) in (folder / "cgroup.procs").read_text()
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and (Path(f"/proc/{sleeper}").exists() or folder.exists()):
        time.sleep(0.05)
    alive = (
        Path(f"/proc/{sleeper}").exists() and "Z" not in _proc(str(sleeper) or "")["state"]
        if _proc(str(sleeper))
        else False
    )
    if alive:
        os.kill(sleeper, signal.SIGKILL)
    assert not alive, "the process in the killed platform's cgroup outlived it"
    assert not folder.exists(), "the killed platform's cgroup was left"


def test_a_submit_killed_while_it_writes_its_snapshot_leaves_no_read_only_folder(bot, tmp_path):
    big = tmp_path / "bigbot"
    shutil.copytree(REPO / "bots" / "example_python", big)
    (big / "data").mkdir()
    partial: list[Path] = []
    for attempt in range(8):  # until a kill lands while the snapshot is being written
        for i in range(480):  # many files: writing the snapshot takes a moment
            (big / "data" / f"{i}.bin").write_bytes(os.urandom(8000) + bytes([attempt]))
        before = {p.name for p in cache_root().iterdir()}
        child = Forked(
            [
                "bots",
                "submit",
                str(big),
                "--name",
                "bigbot",
                "--games",
                "1",
                "--db",
                str(tmp_path / "b.db"),
            ]
        )
        while not partial and os.waitpid(child.pid, os.WNOHANG) == (0, 0):
            partial = [
                p for p in cache_root().iterdir() if p.name.startswith(".") and p.name not in before
            ]
        child.kill()
        try:
            os.waitpid(child.pid, 0)
        except ChildProcessError:
            pass
        if partial:
            break
    assert partial, "no kill landed while the snapshot was written"
    assert partial[0].exists()  # killed while it wrote: the half-written, read-only folder
    (big / "data" / "0.bin").write_bytes(b"changed")
    proc = subprocess.run(
        [
            MALLOWS,
            "bots",
            "submit",
            str(big),
            "--name",
            "bigbot",
            "--games",
            "1",
            "--db",
            str(tmp_path / "b.db"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert not partial[0].exists(), "the killed submit's temporary folder is still there"
