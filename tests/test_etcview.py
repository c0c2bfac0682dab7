"""A sandbox's ``/etc`` is one read-only copied folder (``etcview``), not a mount per file: it
shows what the binds of each file showed (a link at the top as what it points to, links below
it as links, only what every user may read), a changed file gets a new copy at the next start
while the old one stays for the sandboxes that bind it, an unchanged ``/etc`` is copied once
per user, and a shared copy the platform cannot trust is never used."""

from __future__ import annotations

import json
import os
import select
import shutil
import sys
import tempfile
import time
from pathlib import Path

import pytest

from conftest import needs_sandbox

from mallows.agents.protocol import Limits
from mallows.agents.sandbox import etcview
from mallows.agents.spawn import BotProcess


@pytest.fixture
def memory():
    """A folder for the shared copies: on ``/dev/shm`` where there is one (as the platform's)."""
    shm = "/dev/shm"
    here = shm if os.path.isdir(shm) and os.access(shm, os.W_OK) else None
    folder = Path(tempfile.mkdtemp(prefix="test-etcview-", dir=here))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def etc(tmp_path, monkeypatch):
    """A small ``/etc`` of every kind of entry ``ETC_FILES`` may be; the cache of copies empty."""
    monkeypatch.setattr(etcview, "_FOLDER", {})
    monkeypatch.delenv(etcview.SCRATCH_ENV, raising=False)
    root = tmp_path / "etc"
    (root / "ld.so.conf.d").mkdir(parents=True)
    (root / "ld.so.cache").write_bytes(b"cache\x00" * 100)
    (root / "ld.so.conf.d" / "libc.conf").write_text("/usr/local/lib\n")
    secret = root / "ld.so.conf.d" / "private.conf"
    secret.write_text("not for others\n")
    secret.chmod(0o600)
    (root / "ld.so.conf.d" / "link.conf").symlink_to("/usr/share/nothing.conf")
    zone = tmp_path / "zoneinfo-UTC"
    zone.write_bytes(b"TZif2 utc")
    (root / "localtime").symlink_to(zone)  # a link at the top: shown as what it points to
    (root / "ssl" / "certs").mkdir(parents=True)
    (root / "ssl" / "certs" / "ca.pem").write_text("-----BEGIN CERTIFICATE-----\n")
    (root / "ssl" / "certs" / "bundle.crt").write_bytes(b"x" * (3 << 19))  # 1.5 MiB: whole
    return root


def test_the_copy_shows_what_the_binds_showed(etc, memory):
    folder = Path(etcview.etc_folder(str(etc), str(memory)))
    assert folder.parent == memory and folder.name.startswith(f"mallows-etc-{os.geteuid()}-")
    assert (folder / "ld.so.cache").read_bytes() == (etc / "ld.so.cache").read_bytes()
    assert (folder / "ld.so.conf.d" / "libc.conf").read_text() == "/usr/local/lib\n"
    assert not (folder / "ld.so.conf.d" / "private.conf").exists()  # others cannot read it
    assert os.readlink(folder / "ld.so.conf.d" / "link.conf") == "/usr/share/nothing.conf"
    assert not (folder / "localtime").is_symlink()
    assert (folder / "localtime").read_bytes() == b"TZif2 utc"
    assert (folder / "ssl" / "certs" / "ca.pem").read_text().startswith("-----BEGIN")
    assert (folder / "ssl" / "certs" / "bundle.crt").stat().st_size == 3 << 19
    assert sorted(p.name for p in folder.iterdir()) == [
        "ld.so.cache",
        "ld.so.conf.d",
        "localtime",
        "ssl",
    ]  # what ETC_FILES names and exists, nothing else
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]
    assert files and all(p.stat().st_mode & 0o222 == 0 for p in files)  # read-only copies
    assert folder.stat().st_mode & 0o777 == 0o755  # every user may read it, no other write it


def test_an_unchanged_etc_is_copied_once_and_a_changed_one_again(etc, memory, monkeypatch):
    first = etcview.etc_folder(str(etc), str(memory))
    inode = os.stat(first).st_ino
    monkeypatch.setattr(etcview, "_FOLDER", {})  # the next process
    assert etcview.etc_folder(str(etc), str(memory)) == first
    assert os.stat(first).st_ino == inode  # reused, not made again
    (etc / "ld.so.cache").write_bytes(b"a library was installed")
    monkeypatch.setattr(etcview, "_FOLDER", {})
    second = etcview.etc_folder(str(etc), str(memory))
    assert second != first
    assert Path(second, "ld.so.cache").read_bytes() == b"a library was installed"
    # the old copy stays as it was: a sandbox that binds it keeps its files
    assert Path(first, "ld.so.cache").read_bytes() == b"cache\x00" * 100


def test_a_shared_copy_the_platform_cannot_trust_is_never_used(etc, memory, monkeypatch):
    name = f"mallows-etc-{os.geteuid()}-{etcview.fingerprint(etcview.entries(str(etc)))}"
    planted = memory / name
    planted.mkdir()
    (planted / "ld.so.cache").write_bytes(b"planted")
    planted.chmod(0o777)  # another user could have written it
    folder = etcview.etc_folder(str(etc), str(memory))
    assert folder is not None and Path(folder) != planted
    assert Path(folder, "ld.so.cache").read_bytes() == (etc / "ld.so.cache").read_bytes()
    planted.chmod(0o755)
    shutil.rmtree(planted)
    planted.symlink_to(folder)  # a link: whoever made it chose the target
    monkeypatch.setattr(etcview, "_FOLDER", {})
    assert Path(etcview.etc_folder(str(etc), str(memory))) != planted


LISTER = r"""
import hashlib, json, os
out = {"names": sorted(os.listdir("/etc"))}
try:
    out["cache"] = hashlib.sha256(open("/etc/ld.so.cache", "rb").read()).hexdigest()
except OSError as exc:
    out["cache"] = repr(exc)
try:
    open("/etc/ld.so.cache", "ab").close()
    out["write"] = "written"
except OSError as exc:
    out["write"] = type(exc).__name__
print(json.dumps(out), flush=True)
"""


@pytest.mark.parametrize("_", [pytest.param(None, marks=needs_sandbox())])
def test_a_sandboxed_bot_sees_those_files_of_etc_and_cannot_change_them(_):
    import hashlib

    # a folder every user may read: the sandbox's host user cannot enter pytest's tmp_path
    here = Path(tempfile.mkdtemp(prefix="mallows-etc-test-"))
    here.chmod(0o755)
    script = here / "lister.py"
    script.write_text(LISTER)
    script.chmod(0o644)
    limits = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=30.0)
    proc = BotProcess(
        "lister", [sys.executable, str(script)], None, None, limits, True, [str(here)]
    )
    proc.spawn()
    proc.thaw()
    try:
        data = b""
        deadline = time.monotonic() + 60
        while b"\n" not in data and time.monotonic() < deadline:
            if select.select([proc._rfd], [], [], 1.0)[0]:
                chunk = os.read(proc._rfd, 1 << 16)
                if not chunk:
                    break
                data += chunk
    finally:
        proc.close()
        shutil.rmtree(here, ignore_errors=True)
    assert b"\n" in data, proc.stderr_tail()
    seen = json.loads(data.split(b"\n", 1)[0])
    expected = sorted({n.split("/")[0] for n in etcview.ETC_FILES if os.path.exists(f"/etc/{n}")})
    assert seen["names"] == expected  # no passwd, shadow, hosts...
    with open("/etc/ld.so.cache", "rb") as f:
        assert seen["cache"] == hashlib.sha256(f.read()).hexdigest()
    assert seen["write"] in ("OSError", "PermissionError")  # a read-only file system
