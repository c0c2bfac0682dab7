"""Resolving a bot name to something the runner can play.

(Minimal version: loads a Python bot module from ``bots/``. The full registry, with folders,
file paths, entry points, subprocess manifests and isolation, extends this file.)
"""

from __future__ import annotations

import importlib.util
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mallows.agents import InProcessBot, Limits
from mallows.errors import BotError


def bots_dir() -> Path:
    """``$MALLOWS_BOTS_DIR``, else ``./bots`` if it exists, else the project's own ``bots/``."""
    env = os.environ.get("MALLOWS_BOTS_DIR")
    if env:
        return Path(env)
    here = Path.cwd() / "bots"
    if here.is_dir():
        return here
    return Path(__file__).resolve().parents[2] / "bots"


@dataclass
class BotSpec:
    name: str
    cls: Any
    params: dict = field(default_factory=dict)
    source: str = ""

    def handle(self, limits: Limits = Limits()) -> InProcessBot:
        return InProcessBot(self.cls(**self.params), self.name, limits)


def _load_module(path: Path, modname: str):
    spec = importlib.util.spec_from_file_location(modname, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[modname] = module
    spec.loader.exec_module(module)
    return module


def load_bot(name: str) -> BotSpec:
    base = name.split(":", 1)[0]
    path = bots_dir() / f"{base}.py"
    if not path.is_file():
        raise BotError(f"unknown bot {name!r}: no {path}")
    module = _load_module(path, f"mallows_bots.{base}")
    return BotSpec(name=name, cls=module.Bot, source=str(path))
