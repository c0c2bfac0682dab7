"""Conformance checks that ship with the library, for the platform's own tests and for anyone
writing a game or a bot (in the spirit of PettingZoo's ``api_test``).

Owns: ``games.check_game(game_id)`` (a registered game played through its whole contract;
``ConformanceError`` names the first broken promise), ``events.check_events(game_id)`` and
``events.check_registry()`` (perfect recall: a seat's protocol-2 events fold back into every
observation it got, and reveal nothing it may not know), and ``bots.check_bot(name)`` (what
``mallows bots check`` runs: matches against random bots, forfeits by kind, the first problem
with its observation and answer).

May import: every other subpackage except ``cli`` (it drives games, bots and the match runner
the way a tournament does). Nothing imports it but ``cli`` and tests.
"""

from mallows.testing.events import check_events, check_registry
from mallows.testing.games import ConformanceError, check_game

__all__ = ["ConformanceError", "check_game", "check_events", "check_registry"]
