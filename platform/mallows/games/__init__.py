"""The game registry: game id -> the module that implements it. Adding a game is its package
plus one line in ``GAMES`` (or, for a game shipped in its own distribution, an entry point in
the group ``mallows.games``: ``highcard = "my_package.highcard"``); everything else (the CLI's help, the tournament file's check, the
bot registry's known games, the random policy, ``bots check``) reads this registry.

A game module satisfies ``mallows.games.base.Game`` (the contract, written once there: the
constants, options, new state, replay, summary, replay lines, random policy); its matches are
``mallows.games.base.State`` objects.

Owns: the engines (one subpackage per game, each a pure state machine: no I/O, clock or global
randomness), the game contract (``base``), the game registry (``GAMES``), the shared replay
frame (``describe``), each game's faces (``faces``: its text view, replay frames and their
table script, web play view, learning codec and reference bots, kept in the game's package and
looked up by the report, the bridges and the CLI through ``faces.faces_of``), and each game's
bot kit beside it.

May import: ``mallows.errors``, ``mallows.seeding`` and ``mallows.core`` only (and numpy). Nothing of ``agents``,
``tournaments``, ``results``, ``testing`` or ``cli``.
"""

from __future__ import annotations

import importlib
import json
import os
from typing import Any

from mallows.errors import GameConfigError

GAMES: dict[str, str] = {
    "arschmallows": "mallows.games.arschmallows",
    "take4": "mallows.games.take4",
}


ENTRY_POINT_GROUP = "mallows.games"
#: In a bot's process, the platform's own ``plugin_games()`` as JSON (set by the platform when
#: it starts the bot): the bot sees the games the platform plays, and does not pay for a scan
#: of every installed distribution (about 25 ms a process, most of a small bot's start-up).
PLUGINS_ENV = "MALLOWS_GAME_PLUGINS"
_PLUGINS: dict[str, str] | None = None


def plugin_games(refresh: bool = False) -> dict[str, str]:
    """Game id -> module path for the installed ``mallows.games`` entry points (read once per
    process, or taken from ``$MALLOWS_GAME_PLUGINS``; ``refresh`` scans them again). An id in
    ``GAMES`` is not overridden."""
    global _PLUGINS
    if _PLUGINS is None and not refresh:
        given = os.environ.get(PLUGINS_ENV)
        if given is not None:
            try:
                _PLUGINS = {str(k): str(v) for k, v in json.loads(given).items()}
            except (ValueError, AttributeError):
                _PLUGINS = None  # not ours: scan
    if _PLUGINS is None or refresh:
        from importlib.metadata import entry_points

        _PLUGINS = {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}
    return _PLUGINS


def _path(name: str) -> str | None:
    if not isinstance(name, str):
        return None
    return GAMES.get(name) or plugin_games().get(name)


def game_ids() -> list[str]:
    """The registered game ids (``GAMES`` and the ``mallows.games`` entry points), sorted."""
    return sorted(set(GAMES) | set(plugin_games()))


_LOADED: dict[str, tuple[str, Any]] = {}  # game id -> (module path, checked module)


def get_game(name: str) -> Any:
    """The module of game ``name`` (a ``mallows.games.base.Game``). ``GameConfigError`` for an
    unknown id, or for a registered module that does not fulfil the contract."""
    path = _path(name)
    if path is None:
        raise GameConfigError(f"unknown game {name!r}: choose one of {', '.join(game_ids())}")
    loaded = _LOADED.get(name)
    if loaded is not None and loaded[0] == path:
        return loaded[1]
    module = importlib.import_module(path)
    from mallows.games.base import missing

    lacking = missing(module)
    if lacking:
        raise GameConfigError(
            f"game {name!r} ({path}) does not fulfil the game contract "
            f"(mallows.games.base.Game): it lacks {', '.join(lacking)}"
        )
    _LOADED[name] = (path, module)
    return module
