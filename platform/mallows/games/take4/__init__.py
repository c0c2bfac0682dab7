"""Squishmallows Take4 (game id ``take4``): the game module the registry loads.

Owns the contract of ``mallows.games.base.Game`` for Take4 and nothing else: the constants and
the hooks, each delegating to the module that owns it. The rules are in ``RULES.md`` beside
this file. The package has the shape every game has (see ``mallows.games.arschmallows``):
``options.py``, ``rules.py`` (the rulings), ``state.py``, ``observation.py``, ``cards.py``,
``describe.py`` (``summary`` and the replay lines), ``policy.py`` (the random policy) and its
faces (``FACES``: ``view.py``, ``frames.py`` with ``table.js``, ``web.py``, ``codec.py``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Mapping

from mallows.games.base import Chance, replay_actions
from mallows.games.faces import PackageFaces
from mallows.games.take4.describe import describe_event, describe_result, summary
from mallows.games.take4.options import (
    DEFAULT_RULES,
    MAX_PLAYERS,
    MAX_ROUNDS_LIMIT,
    MIN_PLAYERS,
    RULE_SETS,
    check_players,
    make_options,
)
from mallows.games.take4 import events
from mallows.games.take4.observation import hidden_variants
from mallows.games.take4.policy import random_action

if TYPE_CHECKING:
    from mallows.games.take4.state import Take4State

NAME = "take4"
SIMULTANEOUS = True
#: chance stream -> the event key holding its draw (see mallows.games.base)
CHANCE_EVENTS = {"deal": "deck", "race": "winner"}
#: the faces (mallows.games.faces): ``view``, ``frames`` (+ ``table.js``), ``web``, ``codec``;
#: the reference bots are the shipped ones that play fast (ismcts is left out: seconds a match)
FACES = PackageFaces(__name__, reference_bots=("greedy", "denial", "random"))

__all__ = [
    "NAME",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "SIMULTANEOUS",
    "RULE_SETS",
    "DEFAULT_RULES",
    "CHANCE_EVENTS",
    "MAX_ROUNDS_LIMIT",
    "make_options",
    "new_state",
    "replay",
    "summary",
    "describe_event",
    "describe_result",
    "random_action",
    "hidden_variants",
    "events",
    "Take4State",
]


def new_state(options: Mapping[str, Any], players: int, chance: Chance) -> Take4State:
    """A new match. ``options`` are checked again, so a hand-written dict is safe too."""
    check_players(players)
    from mallows.games.take4.state import Take4State

    return Take4State(make_options(None, options), players, chance)


def _apply_picks(state: Take4State, event: Mapping) -> None:
    if event["type"] == "picks":
        for seat, position in enumerate(event["picks"]):
            state.apply(seat, {"type": "pick", "position": position})


def replay(record: Mapping) -> Take4State:
    """The final state of a recorded match, rebuilt from its events alone (no seed): the deal
    and the races come back through ``ReplayChance``, the picks from the ``picks`` events."""
    return replay_actions(sys.modules[__name__], record, _apply_picks)


def __getattr__(name: str) -> Any:
    # The engine (``state``, and with it ``rules``) is loaded when a match is made or the class
    # is asked for, not with the package: a bot process that imports only the random policy
    # (``policy``) or the bot kit does not load it.
    if name == "Take4State":
        from mallows.games.take4.state import Take4State

        return Take4State
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
