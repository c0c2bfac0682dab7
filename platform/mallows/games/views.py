"""A seat's view in words, for a person at the table (``mallows play --bot human``, the
environments' ``render``): the observation drawn as a card table, each legal action in words,
and a typed action read back.

Owns the dispatch: ``table_lines(observation)``, ``action_words(observation, action)`` and
``parse_action(observation, text)`` call the game's text view (its face
``mallows.games.faces.TextView``, Arschmallows' and Take4's ``view`` module); a game without
one is shown as JSON and takes JSON. ``narrator(info)`` is the game's narration of a seat's
match events (``mallows.games.<id>.narration``): what the others did, between the seat's
turns. Everything
is drawn from the observation alone, so a person sees exactly what a bot in that seat sees.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mallows.games.faces import TextView

__all__ = ["action_words", "narrator", "parse_action", "table_lines", "typing_help"]


def _view(observation: Mapping) -> TextView | None:
    from mallows.errors import GameConfigError
    from mallows.games.faces import faces_of

    game = observation.get("game")
    try:
        return faces_of(game).text() if isinstance(game, str) else None
    except GameConfigError:
        return None


def _module(game: Any, name: str) -> Any:
    from mallows.games import GAMES, plugin_games

    path = GAMES.get(game) if isinstance(game, str) else None
    path = path or (plugin_games().get(game) if isinstance(game, str) else None)
    if path is None:
        return None
    try:
        return importlib.import_module(f"{path}.{name}")
    except ImportError:
        return None


def narrator(info: Mapping) -> Any:
    """The game's ``Narrator`` for the seat of start info ``info`` (``game``, ``seat``,
    ``players``, ``options``, ``names``): ``add(events)`` gives the seat's match events in
    words, ``final_lines(result)`` the match's end (``mallows.games.<id>.narration``); None
    for a game without a narration."""
    module = _module(info.get("game"), "narration")
    if module is None:
        return None
    return module.Narrator(
        int(info["seat"]), int(info["players"]), dict(info["options"]), info.get("names")
    )


def table_lines(observation: Mapping) -> list[str]:
    """The seat's table: every card it may see, the others as ``?``."""
    view = _view(observation)
    if view is None:
        keep = {k: v for k, v in observation.items() if k != "legal_actions"}
        return [json.dumps(keep)]
    return view.table_lines(observation)


def action_words(observation: Mapping, action: Mapping) -> str:
    """One legal action in words (``swap the held card (7) into your slot 3``)."""
    view = _view(observation)
    return view.action_words(observation, action) if view is not None else json.dumps(action)


def typing_help(observation: Mapping) -> str | None:
    """The game's short forms of an action in words (``swap 3``), or None: JSON only."""
    view = _view(observation)
    return view.typing_help() if view is not None else None


def parse_action(observation: Mapping, text: str) -> Any:
    """A typed action: JSON (``{"type": "draw"}``) for every game, or the game's short form
    (``swap 3``, ``pick 2``). Returns the action (the game judges it) or raises
    ``ValueError`` saying how to write one."""
    text = text.strip()
    if text.startswith("{"):
        try:
            return json.loads(text)
        except ValueError as exc:
            raise ValueError(f"that is not JSON: {exc}") from None
    view = _view(observation)
    if view is None:
        raise ValueError(
            'type the number of an action, or the action as JSON, e.g. {"type": "draw"}'
        )
    return view.parse_action(observation, text)
