"""Headless Chromium for the browser tests: the distribution's ``chromium`` (or
``$MALLOWS_CHROMIUM``) driven by Playwright. ``require()`` at the top of a test module skips
the module, saying how to install what is missing; the ``browser`` fixture (conftest.py)
launches one Chromium per module; ``page(browser)`` gives a fresh page that fails the test on
any JavaScript error."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("MALLOWS_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def require() -> Any:
    """Playwright's sync API, or skip the calling module (call it at module level)."""
    api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is missing: pip install -e '.[test]'"
    )
    if not Path(CHROMIUM).exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install it (Debian/Ubuntu: apt-get install "
            f"chromium) or point MALLOWS_CHROMIUM at one",
            allow_module_level=True,
        )
    return api


@contextmanager
def launch() -> Iterator[Any]:
    api = require()
    with api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield b
        finally:
            b.close()


@contextmanager
def page(browser: Any, height: int = 860, timeout: int = 15000) -> Iterator[Any]:
    """A page in a new context (1100 x ``height``); asserts at the end that no JavaScript
    error or console error happened (``pg.errors`` lists them as they come)."""
    context = browser.new_context(viewport={"width": 1100, "height": height})
    pg = context.new_page()
    pg.set_default_timeout(timeout)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    pg.on(
        "console",
        lambda msg: (
            errors.append(f"console {msg.type}: {msg.text}") if msg.type == "error" else None
        ),
    )
    pg.errors = errors
    try:
        yield pg
    finally:
        context.close()
    assert errors == [], errors
