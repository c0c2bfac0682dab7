"""The game registry: game id -> the module that implements it. Adding a game is its package
plus one line in ``GAMES``; everything else (the CLI's help, the tournament file's check, the
bot registry's known games, the random policy, ``bots check``) reads this registry.

A game module satisfies ``mallows.games.base.Game`` (the contract, written once there: the
constants, options, new state, replay, summary, replay lines, random policy); its matches are
``mallows.games.base.State`` objects.

Owns: the engines (one subpackage per game, each a pure state machine: no I/O, clock or global
randomness), the game contract (``base``), the game registry (``GAMES``), the shared replay
frame (``describe``), and each game's bot kit beside it.

May import: ``mallows.errors`` and ``mallows.seeding`` only (and numpy). Nothing of ``agents``,
``tournaments``, ``results``, ``testing`` or ``cli``.
"""

from __future__ import annotations

import importlib
from typing import Any

from mallows.errors import GameConfigError

GAMES: dict[str, str] = {
    "arschmallows": "mallows.games.arschmallows",
    "take4": "mallows.games.take4",
}


def game_ids() -> list[str]:
    """The registered game ids, sorted."""
    return sorted(GAMES)


_LOADED: dict[str, tuple[str, Any]] = {}  # game id -> (module path, checked module)


def get_game(name: str) -> Any:
    """The module of game ``name`` (a ``mallows.games.base.Game``). ``GameConfigError`` for an
    unknown id, or for a registered module that does not fulfil the contract."""
    try:
        path = GAMES[name]
    except (KeyError, TypeError):
        raise GameConfigError(
            f"unknown game {name!r}: choose one of {', '.join(game_ids())}") from None
    loaded = _LOADED.get(name)
    if loaded is not None and loaded[0] == path:
        return loaded[1]
    module = importlib.import_module(path)
    from mallows.games.base import missing

    lacking = missing(module)
    if lacking:
        raise GameConfigError(f"game {name!r} ({path}) does not fulfil the game contract "
                              f"(mallows.games.base.Game): it lacks {', '.join(lacking)}")
    _LOADED[name] = (path, module)
    return module
