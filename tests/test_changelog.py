"""CHANGELOG.md lists every version of the protocol, the match record and the database schema
up to the current ones: a bump without its entry fails here."""

from __future__ import annotations

import re

from conftest import REPO
from mallows import PROTOCOL_VERSIONS
from mallows.results.store import SCHEMA_VERSION
from mallows.runner.match import RECORD_VERSION


def section(title: str) -> str:
    text = (REPO / "CHANGELOG.md").read_text()
    return text.split(f"## {title}\n", 1)[1].split("\n## ", 1)[0]


def listed(title: str) -> list[int]:
    return [int(n) for n in re.findall(r"^- \*\*(\d+)\*\*", section(title), re.M)]


def test_every_protocol_version_is_in_the_changelog():
    assert listed("Agent protocol") == list(range(1, max(PROTOCOL_VERSIONS) + 1))


def test_every_record_version_is_in_the_changelog():
    assert listed("Match record") == list(range(1, RECORD_VERSION + 1))


def test_every_schema_version_is_in_the_changelog():
    assert listed("Database schema") == list(range(1, SCHEMA_VERSION + 1))


def test_the_package_version_has_one_source():
    import importlib.metadata

    import mallows

    text = (REPO / "pyproject.toml").read_text()
    assert re.search(r'^dynamic = \["version"\]', text, re.M)
    assert not re.search(r"^version = ", text.split("[project]", 1)[1].split("\n[", 1)[0], re.M)
    assert importlib.metadata.version("mallows") == mallows.__version__
