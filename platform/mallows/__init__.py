"""mallows: an AI tournament platform for Arschmallows and Squishmallows Take4.

The package, one subpackage per concern (each ``__init__`` says what it owns and may import):

- ``mallows.games``: the engines (pure state machines) and the game registry;
- ``mallows.agents``: the bot side (protocol handles, registry, processes, random policy);
- ``mallows.runner``: a Job in, an Outcome out: one match, the workers, the executors (Ray);
- ``mallows.tournaments``: the formats (round robin, ladder, ``mallows compare``), one package
  each, on a shared core that plans, runs, stores and rates them;
- ``mallows.results``: the store (SQLite) and the ratings;
- ``mallows.testing``: the conformance checks for games and bots;
- ``mallows.report``: results presented to people (``mallows report``, ``mallows serve``);
- ``mallows.interop``: the games for learning libraries (PettingZoo, OpenSpiel);
- ``mallows.cli``: the ``mallows`` command: parsing, calling, printing.

``mallows.errors``, ``mallows.seeding`` (chance streams, secret keys), ``mallows.safetext``
(bot-supplied text capped and escaped) and ``mallows.botname`` (a bot's name, parsed and
formatted in one place) are the ground every floor stands on.
"""

__version__ = "0.1.0"
#: The agent protocol's version (bots/README.md, "Writing a bot"): the one constant. It stays
#: 1: protocol 1's messages (the hello that opens every handshake, protocol-1 observations)
#: carry it, byte for byte as before protocol 2.
PROTOCOL_VERSION = 1
#: Every protocol version the platform speaks (offered in hello; the bot's hello picks).
PROTOCOL_VERSIONS = (1, 2)
