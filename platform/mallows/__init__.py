"""mallows: an AI tournament platform for Arschmallows and Squishmallows Take4.

The public surface is small on purpose:

- ``mallows.games``: ``get_game(name)``, the game registry.
- ``mallows.runner``: ``play_match(...)``, one match to a record v1.
- ``mallows.errors``: ``MallowsError`` and its subclasses, the errors a user can act on.
"""

__version__ = "0.1.0"
PROTOCOL_VERSION = 1
RECORD_VERSION = 1
