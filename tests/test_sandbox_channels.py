"""No channel between two sandboxes (issue 32): a sender doing everything a bot may, beside an
observer reading every file and counter it can see, before, during and after; nothing the
observer sees may change. Run as the user running the tests and, when that is root, with the
platform itself an ordinary user (uid 65534, ``run_as_user``): what a namespace maps to outside is
what counts."""

from __future__ import annotations

import json
import os
import platform
import select
import sys
import time
from pathlib import Path

import pytest

from conftest import NOT_HERE, needs_sandbox

from mallows.agents import sandbox
from mallows.agents.protocol import Limits
from mallows.agents.spawn import BotProcess

HERE = Path(__file__).parent / "channel"
LIMITS = Limits(decision_seconds=5.0, match_seconds=120.0, start_seconds=30.0, memory_mb=1024)
pytestmark = [
    *needs_sandbox(),
    pytest.mark.skipif(
        platform.machine() != "x86_64",
        reason=NOT_HERE + "the sender names x86-64 system call numbers",
    ),
]


def start(script: str) -> BotProcess:
    path = HERE / script
    proc = BotProcess(script, [sys.executable, str(path)], None, None, LIMITS, True, [str(HERE)])
    proc.spawn()
    proc.thaw()
    return proc


def ask(proc: BotProcess, line: str, timeout: float = 60.0) -> str:
    """Send ``line``, return the next line the process prints."""
    os.write(proc._wfd, line.encode() + b"\n")
    data = b""
    deadline = time.monotonic() + timeout
    while b"\n" not in data:
        left = deadline - time.monotonic()
        assert left > 0, f"{proc.name} gave no answer to {line!r}: {data!r}{proc.stderr_tail()}"
        if select.select([proc._rfd], [], [], left)[0]:
            chunk = os.read(proc._rfd, 1 << 20)
            assert chunk, f"{proc.name} ended: {proc.stderr_tail()}"
            data += chunk
    return data.split(b"\n", 1)[0].decode()


def changed(before: dict, after: dict) -> dict:
    return {
        k: (before.get(k), after.get(k))
        for k in sorted(set(before) | set(after))
        if before.get(k) != after.get(k)
    }


def watch() -> tuple[dict, str]:
    """What moved in the observer's view while the sender did everything and after it let go
    (path or probe -> (before, after)), and the sender's report."""
    observer, sender = start("observer.py"), start("sender.py")
    try:
        before = json.loads(ask(observer, "snap"))
        done = ask(sender, "go")
        during = json.loads(ask(observer, "snap"))
        ask(sender, "stop")
        after = json.loads(ask(observer, "snap"))
    finally:
        observer.close()
        sender.close()
    assert done.startswith("done"), done
    assert "memory: ok" in done and "files: ok" in done and "processes: ok" in done, done
    assert len(before) > 500, sorted(before)[:20]  # /proc/sys is there, and readable
    return changed(before, during) or changed(during, after), done


#: What moves between sandboxes of one host uid (a platform that is not root): the kernel's
#: per-user quotas of pipe buffers and of file descriptors in flight, which nothing
#: unprivileged can split (a bot needs them: pipes, sockets); the isolation line says so.
SHARED = {"pipe size", "fds in flight"}


def shared_uid() -> bool:
    """Whether every sandbox here has the same host uid (a platform that is not root, or
    ``MALLOWS_SANDBOX_USER``): the kernel's per-user pipe-buffer quota is then shared."""
    from mallows.agents.sandbox.hostuser import HostUser

    user = sandbox.host_user()
    return isinstance(user, HostUser) and user.pool is None


def check(moved: dict, done: str) -> None:
    # with one host uid for every sandbox its pipe and in-flight quotas are shared (and said to
    # be missing); locked memory, queued signals, queues and processes are not
    allowed = SHARED if shared_uid() else set()
    left = {k: v for k, v in moved.items() if k not in allowed}
    assert not left, "moved: " + " ".join(sorted(left)) + f"\n{left}\n{done}"
    if allowed:
        line = sandbox.isolation()
        assert "pipe buffers" in line and "file descriptors in flight" in line, line
    # AIO, a pseudo-terminal, every page-cache probe and sched_setaffinity are refused too
    assert "WORKED" not in done and "should not be" not in done, done


def test_nothing_one_sandbox_does_moves_what_another_sees():
    check(*watch())


AS_USER = """
import json, sys
sys.path.insert(0, sys.argv[1])
import test_sandbox_channels as t
from mallows.agents import sandbox
moved, done = t.watch()
print(json.dumps([moved, done, sandbox.isolation()]))
"""


@pytest.mark.skipif(
    os.geteuid() != 0, reason=NOT_HERE + "already run as an ordinary user (the test above)"
)
def test_as_an_ordinary_user_too_only_the_per_user_pipe_and_fd_quotas_move_and_it_is_said():
    """The platform as uid 65534 (``run_as_user``): every sandbox is that one host user, so the
    kernel's per-user quotas of pipe buffers and of file descriptors in flight are shared
    (nothing unprivileged can split them); they are the only things that move, and the
    isolation line says they are missing."""
    import shutil
    import tempfile

    from test_sandbox_hostile import USER_UID, run_as_user

    folder = Path(tempfile.mkdtemp(prefix="mallows-channel-"))  # pytest's is root's alone
    try:
        (folder / "as_user.py").write_text(AS_USER)
        out = run_as_user(folder, [str(folder / "as_user.py"), str(Path(__file__).parent)])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    moved, done, line = json.loads(out)
    assert set(moved) <= SHARED, (moved, done)
    assert "WORKED" not in done and "should not be" not in done, done
    assert f"host uid {USER_UID}" in line and "pipe buffers" in line, line
    assert "file descriptors in flight" in line, line
