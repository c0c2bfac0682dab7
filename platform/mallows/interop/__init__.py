"""Bridges to the learning libraries: the two games as PettingZoo environments
(``pettingzoo``) and as OpenSpiel games (``openspiel``), and OpenSpiel's bots as mallows bots.

Owns: the environments and games built on the engines, the seed handling that makes them
reproducible, and the rewards (``rewards``: a seat's reward from its final place). The
observation vectors and action numbers are the games' own encoders
(``mallows.games.take4.encoding``, ``mallows.games.arschmallows.encoding``), so a bot that
uses the same encoder sees in a tournament what it saw in training.

May import: ``mallows.games``, ``mallows.errors``, ``mallows.seeding`` and ``mallows.agents``
(the protocol, for OpenSpiel bots in a tournament); the optional extras (``pettingzoo`` and
``gymnasium``, ``open_spiel``) only in the module that bridges to them. Nothing imports this
package but the CLI (``mallows export --trajectories``: ``trajectories``): the games know
nothing of it (an optional extra, ``pip install 'mallows[pettingzoo]'`` or
``'mallows[openspiel]'``).
"""
