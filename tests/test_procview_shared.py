"""The frozen ``/proc`` copies a sandbox binds are taken once per boot and user and shared by
the platform's processes (``procview._shared``): a second process reuses the first one's
snapshot instead of copying about 1,100 files again, two processes starting at once end up on
one snapshot, and a folder of that name the platform cannot trust (another user's, writable by
others, a link) is never used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from mallows.agents.sandbox import procview

SHARE = (
    "import sys; from mallows.agents.sandbox import procview; "
    "print(repr(procview._shared(sys.argv[1])))"
)


def _folders(memory: Path) -> list[str]:
    return sorted(p.name for p in memory.iterdir())


@pytest.fixture
def memory(tmp_path):
    """A folder for the snapshots: on ``/dev/shm`` where there is one (as the platform's own)."""
    shm = "/dev/shm"
    here = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else str(tmp_path)
    folder = Path(tempfile.mkdtemp(prefix="test-procview-", dir=here))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_processes_share_one_snapshot_made_once(memory):
    # two processes at once: one snapshot gets the shared name, the other is dropped
    runs = [
        subprocess.Popen([sys.executable, "-c", SHARE, str(memory)], stdout=subprocess.PIPE)
        for _ in range(2)
    ]
    answers = [run.communicate(timeout=120)[0] for run in runs]
    assert all(run.returncode == 0 for run in runs)
    assert answers[0] == answers[1] and answers[0].strip() != b"None"
    (name,) = _folders(memory)
    assert name.startswith("mallows-proc-shared-")
    shared = procview._shared(str(memory))
    assert shared is not None and repr(shared).encode() == answers[0].strip()
    assert _folders(memory) == [name]  # reused: nothing new made
    names = dict((n, c) for c, n in shared)
    assert Path(names["/proc/meminfo"]).read_text().startswith("MemTotal")
    assert Path(names["/proc/sys"]).is_dir()
    assert all(os.stat(c).st_mode & 0o222 == 0 for c, _ in shared)  # read-only copies
    assert os.stat(memory / name).st_mode & 0o777 == 0o755  # every user may read it


def test_a_shared_name_the_platform_cannot_trust_is_never_used(memory, monkeypatch):
    def small(folder: str) -> list[tuple[str, str]]:  # the sharing, not the copying, is tested
        Path(folder, "uptime").write_text("1.0 1.0\n")
        return [(os.path.join(folder, "uptime"), "/proc/uptime")]

    monkeypatch.setattr(procview, "_snapshot", small)
    shared = procview._shared(str(memory))
    assert shared is not None
    (name,) = _folders(memory)
    folder = memory / name
    folder.chmod(0o777)  # another user could have changed the copies
    assert procview._shared(str(memory)) is None
    folder.chmod(0o755)
    folder.rename(memory / "elsewhere")
    folder.symlink_to(memory / "elsewhere")  # a link: whoever made it chose the target
    assert procview._shared(str(memory)) is None
    folder.unlink()
    folder.mkdir()  # ours, but no index: a snapshot that was never completed
    assert procview._shared(str(memory)) is None
