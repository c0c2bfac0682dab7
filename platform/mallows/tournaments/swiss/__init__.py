"""Swiss system: a fixed number of rounds, each seating bots of similar standing together.

Owns: the file's checks (``spec``: ``load_swiss``, ``parse_swiss``, the ``Swiss`` it returns),
the pure pairing of a round from the standings and the meetings so far (``pairing``) and the
services over a ``Swiss`` (``format``: ``FORMAT``, an epoch ``tournaments.format.Format``).

May import: the shared core of ``mallows.tournaments`` (``plan``, ``run``, ``format``,
``seating``, ``secrecy``), ``mallows.agents``, ``mallows.games``, ``mallows.results`` and the
ground floor. No other format.
"""
