"""Where a sandbox is required (``MALLOWS_REQUIRE_SANDBOX=1``, as ``.ci/run`` sets), a skipped
security test fails, naming why it skipped; only a test of the other mode (``not_here``) may
skip there (issue 32)."""

from __future__ import annotations

import os

import pytest

from conftest import REQUIRE_SANDBOX_ENV

SECURITY = """
import pytest
from conftest import needs_sandbox, not_here, root_only

pytestmark = needs_sandbox()

def test_cannot_here():
    pytest.skip("uid 65534 cannot read the project")

def test_other_mode():
    not_here("already run as an ordinary user")

def test_root_only():
    root_only("no pids cgroup here")
"""

PLAIN = """
import pytest

def test_not_a_security_test():
    pytest.skip("no browser here")
"""


def test_a_skipped_security_test_fails_where_a_sandbox_is_required(tmp_path, monkeypatch, capsys):
    import conftest

    (tmp_path / "test_security_case.py").write_text(SECURITY)
    (tmp_path / "test_plain_case.py").write_text(PLAIN)
    monkeypatch.setenv(REQUIRE_SANDBOX_ENV, "1")
    code = pytest.main(
        ["-q", "-p", "no:cacheprovider", "-rfs", "--rootdir", str(tmp_path), str(tmp_path)],
        plugins=[conftest],
    )
    out = capsys.readouterr().out
    root = os.geteuid() == 0
    assert code == 1, out
    assert f"{1 + root} failed, {3 - root} skipped" in out, out
    assert "may not skip, and it did: uid 65534 cannot read the project" in out, out
    assert "no browser here" in out and "n/a here: already run as an ordinary user" in out, out
