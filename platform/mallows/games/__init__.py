"""The game registry: game id -> game module.

A game module (one subpackage per game) exposes:

- ``NAME``, ``MIN_PLAYERS``, ``MAX_PLAYERS``, ``SIMULTANEOUS`` (bool), ``RULE_SETS`` (rule-set
  name -> option defaults; a game without rule sets has one, ``"default"``), ``DEFAULT_RULES``.
- ``make_options(rules=None, overrides=None) -> dict``: every effective option, validated; CLI
  strings ("4", "true") are coerced. Raises ``GameConfigError`` naming the option and the fix.
- ``new_state(options, players, chance) -> State`` (see ``mallows.games.base.State``).
  Raises ``GameConfigError`` for a player count out of range.

Owns: the engines (one subpackage per game, each a pure state machine: no I/O, clock or global
randomness), the game registry (``GAMES``), and each game's bot kit beside it.

May import: ``mallows.errors`` and ``mallows.seeding`` only (and numpy). Nothing of ``agents``,
``tournaments``, ``results``, ``testing`` or ``cli``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from mallows.errors import GameConfigError

GAMES = {
    "arschmallows": "mallows.games.arschmallows",
    "take4": "mallows.games.take4",
}


def get_game(name: str) -> ModuleType:
    try:
        return importlib.import_module(GAMES[name])
    except KeyError:
        raise GameConfigError(
            f"unknown game {name!r}: choose one of {', '.join(sorted(GAMES))}"
        ) from None
