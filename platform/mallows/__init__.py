"""mallows: an AI tournament platform for Arschmallows and Squishmallows Take4.

The package, one subpackage per concern (each ``__init__`` says what it owns and may import):

- ``mallows.games``: the engines (pure state machines) and the game registry;
- ``mallows.agents``: the bot side (protocol handles, registry, processes, random policy);
- ``mallows.tournaments``: file format, schedule, one match, executors, running;
- ``mallows.results``: the store (SQLite) and the ratings;
- ``mallows.compare``: ``mallows compare``, a sequential test of "is A better than B?";
- ``mallows.testing``: the conformance checks for games and bots;
- ``mallows.cli``: the ``mallows`` command: parsing, calling, printing.

``mallows.errors``, ``mallows.seeding`` (chance streams, secret keys), ``mallows.safetext``
(bot-supplied text capped and escaped) and ``mallows.botname`` (a bot's name, parsed and
formatted in one place) are the ground every floor stands on.
"""

__version__ = "0.1.0"
#: The agent protocol's version (bots/README.md, "Writing a bot"): the one constant.
PROTOCOL_VERSION = 1
