"""Arschmallows (game id ``arschmallows``): the game module the registry loads.

Owns the contract of ``mallows.games.base.Game`` for Arschmallows and nothing else: the
constants and the hooks, each delegating to the module that owns it. The rules as this engine
plays them are in RULES.md beside this file. Every game package has the same shape:

- ``options.py``: rule sets, options with ranges and messages, ``make_options``;
- ``rules.py``: the rulings as pure functions; ``state.py``: the state machine;
- ``observation.py``: what a seat is shown; ``cards.py``: the cards;
- ``describe.py``: ``summary`` (``mallows play``) and the replay lines (``mallows replay``);
- ``policy.py``: the random policy;
- the faces (``FACES``, see ``mallows.games.faces``): ``view.py`` (the seat's table in
  words), ``frames.py`` and ``table.js`` (the replay), ``web.py`` (the play page's table),
  ``codec.py`` (the learning bridges), and the reference bots.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, Mapping

from mallows.games.arschmallows.describe import describe_event, describe_result, summary
from mallows.games.arschmallows.options import (
    DEFAULT_RULES,
    MAX_PLAYERS,
    MIN_PLAYERS,
    RULE_SETS,
    check_players,
    make_options,
)
from mallows.games.arschmallows import events
from mallows.games.arschmallows.events import recall_variants
from mallows.games.arschmallows.observation import hidden_variants
from mallows.games.arschmallows.policy import random_action
from mallows.games.base import Chance, replay_actions
from mallows.games.faces import PackageFaces

if TYPE_CHECKING:
    from mallows.games.arschmallows.state import ArschmallowsState

NAME = "arschmallows"
SIMULTANEOUS = False
#: chance stream -> the event key holding its draw (see mallows.games.base)
CHANCE_EVENTS = {"deal": "deck", "reshuffle": "deck"}
#: the faces (mallows.games.faces): ``view``, ``frames`` (+ ``table.js``), ``web``, ``codec``;
#: the reference bots are the shipped ones that play fast (ismcts is left out: seconds a match)
FACES = PackageFaces(__name__, reference_bots=("greedy", "heuristic", "random"))

__all__ = [
    "NAME",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "SIMULTANEOUS",
    "RULE_SETS",
    "DEFAULT_RULES",
    "CHANCE_EVENTS",
    "FACES",
    "make_options",
    "new_state",
    "replay",
    "summary",
    "describe_event",
    "describe_result",
    "random_action",
    "hidden_variants",
    "recall_variants",
    "events",
    "ArschmallowsState",
]


def new_state(options: Mapping[str, Any], players: int, chance: Chance) -> ArschmallowsState:
    """A new match at its first decision (round 0 dealt, seat 0 to peek). ``options`` are
    validated again (a record's options work as they are)."""
    effective = make_options(None, options)
    check_players(players)
    from mallows.games.arschmallows.state import ArschmallowsState

    return ArschmallowsState(effective, players, chance)


def replay(record: Mapping) -> ArschmallowsState:
    """The final state of ``record``, rebuilt from its events alone (no seed): the deals and
    reshuffles are read back, the action events applied in order."""
    return replay_actions(sys.modules[__name__], record)


def __getattr__(name: str) -> Any:
    # The engine (``state``, and with it ``rules``) is loaded when a match is made or the class
    # is asked for, not with the package: a bot process that imports only the random policy
    # (``policy``) or the bot kit does not load it.
    if name == "ArschmallowsState":
        from mallows.games.arschmallows.state import ArschmallowsState

        return ArschmallowsState
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
