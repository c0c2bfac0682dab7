"""Isolation: every misbehaviour of a real bot in its own process becomes a forfeit whose reason
a bot author can act on; the match still completes with a valid record; the process is reaped.

Each test plays a real match of a real game with a misbehaving bot from
``tests/misbehaving_bots`` run isolated (hosted by ``mallows.agents.host`` or a manifest bot), next
to the shipped random bot.
"""

from __future__ import annotations

import atexit
import ctypes
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from mallows import PROTOCOL_VERSION
from mallows.agents import host as bothost, isolation
from mallows.agents.protocol import KINDS, BotFailure, Limits
from mallows.games import game_ids, get_game
from mallows.agents.process import MAX_LINE_BYTES, SubprocessBot
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match

BOTS = Path(__file__).parent / "misbehaving_bots"
FAST = Limits(decision_seconds=2.0, match_seconds=60.0, start_seconds=10.0)
# The layer under the sandbox (process isolation: its own process group, user, limits), as
# `--sandbox off` runs it; tests/test_sandbox.py tests the sandbox itself.
PLAIN = Limits(decision_seconds=2.0, match_seconds=60.0, start_seconds=10.0, sandbox="off")
ROOT = os.geteuid() == 0
LINUX = sys.platform.startswith("linux")


@pytest.fixture
def shared_dir():
    """A folder every user may write to: an isolated bot may run as ``nobody``, which cannot
    write into pytest's (private) tmp_path."""
    path = Path(tempfile.mkdtemp(prefix="mallows-test-"))
    path.chmod(0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def play(
    bot: str,
    game: str = "take4",
    seat: int = 1,
    players: int = 2,
    limits: Limits = FAST,
    seed: int = 7,
    isolate: bool | None = True,
):
    """One match: ``bot`` in ``seat``, random bots elsewhere. Returns the record and the handle."""
    spec = load_bot(bot, isolate=isolate)
    module = get_game(game)
    handle = spec.handle(limits)
    handles = [handle if s == seat else load_bot("random").handle(limits) for s in range(players)]
    names = [spec.name if s == seat else "random" for s in range(players)]
    record = play_match(game, module.make_options(None, None), seed, handles, names)
    return record, handle


def assert_reaped(handle) -> None:
    proc = handle.proc
    assert proc is not None and proc.returncode is not None, "the bot process was not reaped"
    with pytest.raises(ProcessLookupError):
        os.kill(proc.pid, 0)


def assert_forfeit(
    record: dict, seat: int, *fragments: str, before_first_deal=False, kind: str | None = None
) -> str:
    """A valid, complete record in which ``seat`` (and only it) forfeited for a reason holding
    every fragment; returns the reason."""
    json.loads(json.dumps(record))  # plain JSON
    assert record["record_version"] == 1
    result = record["result"]
    reason = result["forfeits"][seat]
    assert reason, f"seat {seat} did not forfeit: {result}"
    for fragment in fragments:
        assert fragment in reason, f"{fragment!r} not in the reason {reason!r}"
    assert [f for s, f in enumerate(result["forfeits"]) if s != seat] == [None] * (
        len(result["forfeits"]) - 1
    )
    forfeits = [e for e in record["events"] if e["type"] == "forfeit"]
    assert forfeits == [
        {"type": "forfeit", "seat": seat, "reason": reason, "kind": forfeits[0]["kind"]}
    ]
    assert forfeits[0]["kind"] in KINDS
    if kind is not None:
        assert forfeits[0]["kind"] == kind, (forfeits[0]["kind"], reason)
    ranks = result["ranks"]
    assert all(ranks[seat] > r for s, r in enumerate(ranks) if s != seat)
    last = record["events"][-1]["type"]
    assert last in ("game_end", "round_end"), "the match did not complete"
    at = record["events"].index(forfeits[0])
    if before_first_deal:
        assert at == 0
        assert reason.startswith("before the first deal: ")
    else:
        assert at > 0 and reason.startswith("decision ")
    return reason


# -- one test per misbehaviour --------------------------------------------------------------


def test_a_bot_that_raises_forfeits_with_the_exception_and_its_line():
    record, handle = play(str(BOTS / "raiser.py"))
    assert_forfeit(
        record,
        1,
        "decision 2",
        "ValueError: raiser gives up on purpose",
        "raiser.py:",
        "in act",
        kind="error",
    )
    assert_reaped(handle)


def test_a_bot_that_exits_forfeits_with_its_status_and_stderr():
    record, handle = play(str(BOTS / "exiter.py"))
    assert_forfeit(
        record,
        1,
        "decision 2",
        "exited with status 3",
        "exiter: out of ideas, leaving",
        kind="exit",
    )
    assert_reaped(handle)


def test_a_bot_that_crashes_forfeits_with_the_signal():
    record, handle = play(str(BOTS / "segfault.py"), game="arschmallows", players=3, seat=2)
    assert_forfeit(
        record,
        2,
        "decision 2",
        "killed by SIGSEGV",
        "segfault: dereferencing a null pointer",
        kind="crash",
    )
    assert_reaped(handle)


def test_a_bot_that_hangs_is_stopped_at_the_decision_limit():
    limits = Limits(decision_seconds=0.3, match_seconds=30.0, start_seconds=10.0)
    t0 = time.monotonic()
    record, handle = play(str(BOTS / "hanger.py"), limits=limits)
    assert time.monotonic() - t0 < 5.0
    assert_forfeit(
        record,
        1,
        "decision 2",
        "within the time limit of 0.3 s",
        "decision_seconds",
        "stopped",
        kind="timeout",
    )
    assert_reaped(handle)  # it ignored SIGTERM: only the kill stops it


def test_a_slow_bot_runs_out_of_its_match_budget():
    limits = Limits(decision_seconds=1.0, match_seconds=0.25, start_seconds=10.0)
    record, handle = play(str(BOTS / "slowpoke.py:delay=0.06"), limits=limits)
    reason = assert_forfeit(
        record, 1, "match time budget of 0.25 s", "match_seconds", kind="timeout"
    )
    decisions = int(reason.split(",")[0].split()[1])
    assert 2 <= decisions <= 5  # 0.25 s at 0.06 s (or more, on a busy machine) a decision
    assert_reaped(handle)


def test_a_bot_that_prints_garbage_forfeits_quoting_the_line():
    record, handle = play(str(BOTS / "garbage"))
    assert_forfeit(
        record, 1, "decision 2", "not JSON", "thinking very hard about pick", kind="garbage"
    )
    assert_reaped(handle)


def test_a_bot_that_answers_the_wrong_json_shape_forfeits():
    record, handle = play(str(BOTS / "wrong_reply"))
    assert_forfeit(record, 1, "decision 2", '{"move": 1}', '"type":"action"', kind="garbage")
    assert_reaped(handle)


def test_a_bot_that_writes_a_second_line_forfeits():
    record, handle = play(str(BOTS / "chatty"))
    assert_forfeit(
        record,
        1,
        "decision 2",
        "and another thing",
        "after its answer",
        "nobody asked for",
        kind="garbage",
    )
    assert_reaped(handle)


def test_a_bot_that_answers_an_illegal_action_forfeits_with_answer_and_legal_actions():
    record, handle = play(str(BOTS / "illegal.py"), game="arschmallows", seat=0)
    reason = assert_forfeit(
        record,
        0,
        "decision 2",
        '"type":"teleport"',
        "which is illegal",
        "Legal actions were",
        kind="illegal",
    )
    assert '{"type":"peek","slots":[0,1]}' in reason or '"type":"draw"' in reason
    assert_reaped(handle)


def test_a_bot_that_floods_its_output_is_stopped():
    t0 = time.monotonic()
    record, handle = play(str(BOTS / "flooder"))
    assert time.monotonic() - t0 < 10.0
    assert_forfeit(
        record,
        1,
        "decision 2",
        "flooded its output",
        f"more than {MAX_LINE_BYTES} bytes",
        "xxxx",
        kind="flood",
    )
    assert_reaped(handle)


def test_a_bot_that_never_says_hello_forfeits_before_the_first_deal():
    limits = Limits(decision_seconds=0.5, match_seconds=30.0, start_seconds=0.5)
    record, handle = play(str(BOTS / "nohello"), limits=limits)
    assert_forfeit(record, 1, "handshake", "start_seconds", before_first_deal=True, kind="timeout")
    assert_reaped(handle)


def test_a_bot_that_fails_to_load_forfeits_before_the_first_deal():
    record, handle = play(str(BOTS / "broken_import.py"))
    assert_forfeit(
        record,
        1,
        "could not load the bot",
        "ModuleNotFoundError: No module named 'mallows_no_such_module'",
        before_first_deal=True,
        kind="error",
    )
    assert_reaped(handle)


def test_a_protocol_mismatch_is_a_clear_forfeit():
    record, handle = play(str(BOTS / "protocol3"))
    assert_forfeit(
        record,
        1,
        "the bot speaks protocol 3",
        "this platform speaks protocols 1, 2",
        before_first_deal=True,
        kind="protocol",
    )
    assert_reaped(handle)


def test_a_missing_program_is_a_forfeit_not_a_crash_of_the_match(tmp_path):
    folder = tmp_path / "gone"
    folder.mkdir()
    (folder / "bot.toml").write_text(
        'name = "gone"\nversion = "1"\ncommand = ["./run.sh"]\ngames = ["take4"]\n'
    )
    script = folder / "run.sh"
    script.write_text("#!/bin/sh\nexec ./no-such-binary\n")
    script.chmod(0o755)
    record, handle = play(str(folder))
    assert_forfeit(
        record, 1, "exited with status 127", "no-such-binary", before_first_deal=True, kind="exit"
    )
    assert_reaped(handle)


# -- reaping, bounds --------------------------------------------------------------------------


def test_stopping_a_bot_also_kills_what_it_spawned(shared_dir):
    pidfile = shared_dir / "pids"
    limits = Limits(decision_seconds=0.3, match_seconds=30.0, start_seconds=10.0, sandbox="off")
    record, handle = play(f"{BOTS / 'spawner'}:pidfile={pidfile}", limits=limits)
    assert_forfeit(record, 1, "decision 2", "within the time limit")
    bot_pid, grandchild = (int(p) for p in pidfile.read_text().split())
    assert bot_pid == handle.proc.pid
    assert_reaped(handle)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the orphan is reaped by init, not by us
        try:
            os.kill(grandchild, 0)
            with open(f"/proc/{grandchild}/stat") as f:
                if f.read().split(")")[1].split()[0] == "Z":
                    break
        except (ProcessLookupError, FileNotFoundError):
            break
        time.sleep(0.02)
    else:
        pytest.fail("the grandchild outlived the match")


def test_stderr_is_bounded_and_the_match_goes_on(monkeypatch):
    monkeypatch.setattr(isolation, "STDERR_LIMIT_BYTES", 1 << 20)
    spec = load_bot(str(BOTS / "stderr_flooder"))
    handle = spec.handle(FAST)
    sizes = []
    real_close = handle.close

    def close():
        sizes.append(os.fstat(handle.process._err.fileno()).st_size)
        real_close()

    handle.close = close
    record = play_match(
        "take4",
        get_game("take4").make_options(None, None),
        3,
        [load_bot("random").handle(), handle],
        ["random", spec.name],
    )
    assert record["result"]["forfeits"] == [None, None]
    assert 0 < sizes[0] <= 1 << 20
    assert_reaped(handle)


def test_a_clean_match_leaves_no_process_and_matches_in_process_play():
    """The wire changes nothing: the same bot isolated and in-process plays the same match."""
    isolated, handle = play("random", game="arschmallows", players=3, seat=1, isolate=True)
    inproc, _ = play("random", game="arschmallows", players=3, seat=1, isolate=False)
    assert isolated["events"] == inproc["events"]
    assert isolated["result"] == inproc["result"]
    assert handle.proc.returncode == 0  # it quit by itself when asked
    assert_reaped(handle)


# -- the cheat test ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", game_ids())
def test_an_isolated_bot_cannot_find_the_engine_state_but_in_process_it_can(shared_dir, game):
    out = shared_dir / "found.txt"
    bot = f"{BOTS / 'cheater.py'}:out={out}"
    record, _ = play(bot, game=game, isolate=True, limits=PLAIN)  # it writes what it finds
    assert record["result"]["forfeits"] == [None, None]
    assert out.read_text() == "", "an isolated bot found engine objects"
    record, _ = play(bot, game=game, isolate=False)
    assert record["result"]["forfeits"] == [None, None]
    found = out.read_text().split()
    assert any(name.startswith(f"mallows.games.{game}.") for name in found), found


# -- the wire layer ---------------------------------------------------------------------------


def test_bothost_speaks_the_platform_protocol_version():
    assert bothost.PROTOCOL_VERSION == PROTOCOL_VERSION


def test_a_bot_may_say_hello_before_it_is_asked(tmp_path):
    script = tmp_path / "eager.py"
    script.write_text(
        "import json, sys\n"
        "print(json.dumps({'type':'hello','protocol':1,'name':'eager','version':'1'}),"
        " flush=True)\n"
        "for line in sys.stdin:\n"
        "    m = json.loads(line)\n"
        "    if m['type'] == 'hello': continue\n"
        "    if m['type'] == 'quit': break\n"
        "    r = {'type':'ok'} if m['type'] != 'act' else "
        "{'type':'action','action':m['observation']['legal_actions'][0]}\n"
        "    print(json.dumps(r), flush=True)\n"
    )
    import sys

    handle = SubprocessBot("eager", [sys.executable, str(script)], limits=FAST)
    time.sleep(0.3)  # whatever the timing
    handle.start({"seed": 1})
    assert handle.hello["name"] == "eager"
    assert handle.act({"legal_actions": [{"type": "pick", "position": 3}]}) == {
        "type": "pick",
        "position": 3,
    }
    handle.close()
    assert_reaped(handle)


def test_a_failed_command_is_a_bot_failure_not_an_exception():
    handle = SubprocessBot("nothing", ["/nonexistent/mallows-bot"], limits=FAST)
    with pytest.raises(BotFailure, match="could not start"):
        handle.start({})
    handle.close()


def test_an_answer_that_is_not_json_compatible_is_named(tmp_path):
    path = tmp_path / "setbot.py"
    path.write_text(
        "class Bot:\n"
        "    def act(self, observation):\n"
        "        return {'type': 'pick', 'position': {1, 2}}\n"
    )
    record, handle = play(str(path))
    assert_forfeit(record, 1, "decision 1", "act() returned", "not JSON-compatible")
    assert_reaped(handle)


# -- hardening: the platform's memory, the bot's user, its limits ----------------------------


def _readable_copy(folder: Path) -> Path:
    """A copy of ``folder`` that every user can read. The project may sit in a private folder
    (a clone made in ``mktemp -d`` is mode 700), out of ``nobody``'s reach, and the peeker must
    be able to run as ``nobody`` for the tests below to mean anything."""
    dest = Path(tempfile.mkdtemp(prefix="mallows-peeker-"))
    dest.chmod(0o755)
    copy = Path(shutil.copytree(folder, dest / folder.name))
    for path in [copy, *copy.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    atexit.register(shutil.rmtree, dest, True)
    return copy


PEEKER = _readable_copy(BOTS / "peeker") / "bot.py"
# Holds a secret (in its memory only), starts the peeker as its child the plain way, dumpable
# or not as argv[1] says, and prints the secret and the peeker's report.
DRIVER = r"""
import ctypes, json, os, secrets, subprocess, sys
secret = ("MALLOWS-SECRET-" + secrets.token_hex(16)).encode()
if sys.argv[1] == "non-dumpable":
    ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)
bot = subprocess.Popen([sys.executable, sys.argv[2]], stdin=subprocess.PIPE,
                       stdout=subprocess.PIPE, text=True)
bot.stdin.write(json.dumps({"type": "hello", "protocol": 1, "params": {}}) + "\n")
bot.stdin.flush()
report = json.loads(bot.stdout.readline())["report"]
bot.stdin.close()
bot.wait()
print(json.dumps({"secret": secret[15:].decode(), "report": report}))
"""


#: The Pythons tried for a run as ``nobody``, the system's first.
PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3", sys.executable)


def system_python() -> str | None:
    """A Python that ``nobody`` can run (when we are root), for the peeker as ``nobody``."""
    for candidate in PYTHONS:
        if (
            os.path.exists(candidate)
            and isolation.plan_run_as([candidate, str(PEEKER)], str(PEEKER.parent)).user is not None
        ):
            return candidate
    return None


def interpreter_for(run_as: dict) -> str | None:
    """A Python that runs as ``run_as`` with the peeker, tried by running it: the control below
    needs only the interpreter and the peeker's readable copy, not the platform's packages
    (which a clone under a mode-700 folder keeps from ``nobody``, so ``system_python`` finds
    none there, and the platform rightly runs its own bots as root without capabilities)."""
    for candidate in PYTHONS:
        if not os.path.exists(candidate):
            continue
        probe = subprocess.run(
            [candidate, "-I", "-c", "import sys, ctypes, json, secrets; open(sys.argv[1]).close()"]
            + [str(PEEKER)],
            capture_output=True,
            timeout=60,
            cwd="/",
            **run_as,
        )
        if probe.returncode == 0:
            return candidate
    return None


def peek(command: list[str], cwd: str) -> dict:
    handle = SubprocessBot("peeker", command, cwd=cwd, limits=PLAIN)
    try:
        handle.start({"seed": 1})
        return dict(handle.hello["report"], sandbox=handle.run_as)
    finally:
        handle.close()
        assert_reaped(handle)


def assert_locked_out(report: dict, secret: str) -> None:
    """Every attempt ran and was refused by the kernel (not skipped, not failing otherwise)."""
    assert report["ppid"] == os.getpid()
    assert report["environ"] == "EACCES", report
    assert report["maps"] == "EACCES", report
    assert report["mem"] == "EACCES", report
    assert report["ptrace"] == "EPERM", report
    assert secret not in report["found"] and report["found"] == []
    assert report["no_new_privs"] == "1"
    if ROOT:  # an unprivileged user, or root with no capability at all
        assert report["uid"] != 0 or int(report["cap_eff"], 16) == 0, report


@pytest.mark.skipif(not LINUX, reason="/proc, prctl and ptrace are Linux's")
def test_an_isolated_bot_cannot_read_the_platforms_memory_environ_or_ptrace_it():
    secret = secrets.token_hex(16)
    held = ("MALLOWS-SECRET-" + secret).encode()  # in this process's memory, nowhere else
    # As the registry runs it (a manifest bot on the platform's Python): nobody when nobody
    # can reach everything, else root without capabilities.
    record, handle = play(str(BOTS / "peeker"), limits=PLAIN)
    assert record["result"]["forfeits"] == [None, None]
    assert_locked_out(handle.hello["report"], secret)
    assert (
        isolation.PR_GET_DUMPABLE
        and ctypes.CDLL(None).prctl(isolation.PR_GET_DUMPABLE, 0, 0, 0, 0) == 0
    )
    if ROOT:  # and as nobody, when a Python that nobody can run exists
        python = system_python()
        if python is not None:
            report = peek([python, str(PEEKER)], str(PEEKER.parent))
            assert report["sandbox"].user == "nobody" and report["uid"] != 0, report
            assert report["groups"] == [] or report["groups"] == [report["gid"]]
            assert_locked_out(report, secret)
    assert held  # kept alive until here


@pytest.mark.skipif(not LINUX, reason="/proc, prctl and ptrace are Linux's")
@pytest.mark.parametrize("mode", ["dumpable", "non-dumpable"])
def test_the_peeker_does_read_a_dumpable_parent_of_its_own_user(mode):
    """The control: the same peeker, the child of a parent of its own user without any
    privilege, finds the parent's secret in its memory, reads its environ and attaches to it;
    the same parent made non-dumpable (what the platform does) refuses all of it."""
    if ROOT:
        run_as = dict(user="nobody", group=isolation.pwd.getpwnam("nobody").pw_gid, extra_groups=[])
        python = interpreter_for(run_as)
        if python is None:
            pytest.skip("no Python that nobody can run, for a parent without privileges")
    else:
        python, run_as = sys.executable, {}
    out = subprocess.run(
        [python, "-c", DRIVER, mode, str(PEEKER)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd="/",
        **run_as,
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    report, secret = data["report"], data["secret"]
    assert report["uid"] == os.getuid() if not ROOT else report["uid"] != 0
    if mode == "dumpable":
        assert secret in report["found"], report
        assert report["environ"].startswith("read ") and report["mem"].startswith("read ")
        assert report["ptrace"] == "attached"
    else:
        assert report["found"] == [] and report["mem"] == "EACCES"
        assert report["environ"] == "EACCES" and report["ptrace"] == "EPERM"


def test_a_bot_gets_only_an_allowlist_of_the_platforms_environment(monkeypatch):
    monkeypatch.setenv("MALLOWS_TEST_API_TOKEN", "do-not-leak")
    monkeypatch.setenv("MALLOWS_TEST_WANTED", "1")
    monkeypatch.setenv("MALLOWS_BOT_ENV", "MALLOWS_TEST_WANTED")
    report = peek([sys.executable, str(PEEKER)], str(PEEKER.parent))
    assert "MALLOWS_TEST_API_TOKEN" not in report["env"]
    assert {"PATH", "MALLOWS_TEST_WANTED", "PYTHONUNBUFFERED"} <= set(report["env"])


def test_a_named_bot_user_that_cannot_run_the_bot_is_a_clear_failure(monkeypatch, tmp_path):
    monkeypatch.setenv("MALLOWS_BOT_USER", "nobody")
    script = tmp_path / "private" / "bot.py"  # under pytest's private tmp folder
    script.parent.mkdir()
    script.write_text("print('never')\n")
    handle = SubprocessBot(
        "private", [sys.executable, str(script)], cwd=str(script.parent), limits=PLAIN
    )
    with pytest.raises(BotFailure) as failure:
        handle.start({})
    handle.close()
    reason = str(failure.value)
    assert (
        "cannot run the bot as user 'nobody'" in reason
        or "cannot run the bot as user nobody" in reason
    ), reason
    if ROOT:
        assert "MALLOWS_BOT_USER=nobody" in reason and "user nobody cannot" in reason
        assert "chmod o+rx" in reason
    else:
        assert "only a platform running as root can switch users" in reason
    monkeypatch.setenv("MALLOWS_BOT_USER", "mallows-no-such-user")
    handle = SubprocessBot("private", [sys.executable, str(script)], limits=PLAIN)
    with pytest.raises(BotFailure, match="there is no such user"):
        handle.start({})
    handle.close()


MEMORY = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=10.0, memory_mb=300)


def test_a_python_bot_over_its_memory_limit_forfeits_saying_so():
    record, handle = play(str(BOTS / "hog.py"), limits=MEMORY)
    assert_forfeit(
        record,
        1,
        "decision 2",
        "MemoryError",
        "hog.py:",
        "memory limit is 300 MiB",
        "memory_mb",
        kind="memory",
    )
    assert_reaped(handle)


def test_a_subprocess_bot_that_dies_of_its_memory_limit_forfeits_saying_so():
    record, handle = play(str(BOTS / "hog_native"), limits=MEMORY)
    assert_forfeit(
        record,
        1,
        "decision 2",
        "exited with status 1",
        "memory limit is 300 MiB",
        "MemoryError",
        kind="memory",
    )
    assert_reaped(handle)


def test_the_child_limits_are_set_before_the_bot_runs(tmp_path):
    code = (
        "import resource, sys; g = resource.getrlimit; print(g(resource.RLIMIT_AS), "
        "g(resource.RLIMIT_CORE), g(resource.RLIMIT_FSIZE), file=sys.stderr)"
    )
    handle = SubprocessBot("limits", [sys.executable, "-c", code], limits=Limits(memory_mb=123))
    handle.spawn()
    handle.proc.wait(10)
    size = os.fstat(handle.process._err.fileno()).st_size
    text = os.pread(handle.process._err.fileno(), size, 0).decode()
    handle.close()
    mib, fsize = 123 * 1024 * 1024, isolation.STDERR_LIMIT_BYTES
    assert text.split() == f"({mib}, {mib}) (0, 0) ({fsize}, {fsize})".split(), text
