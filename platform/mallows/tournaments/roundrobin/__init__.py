"""Round robin: the tournament file's format, every table of ``players`` bots in every seat.

Owns: the TOML file and its checks (``spec``: ``load_tournament``, ``parse_tournament``, the
``Tournament`` it returns) and its pure schedule (``schedule``: every k-subset of the bots, each
deal played in every rotation of a balanced seat order, computed on demand) and the services
over a ``Tournament`` (``format``: ``FORMAT``, the round robin's ``tournaments.format.Format``).

May import: the shared core of ``mallows.tournaments`` (``plan``, ``run``, ``format``,
``seating``, ``secrecy``), ``mallows.runner``, ``mallows.agents``, ``mallows.games``,
``mallows.results`` and the ground floor. No other format.
"""
