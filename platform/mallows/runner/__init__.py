"""Runner: a Job in, an Outcome out. Playing matches, wherever they run.

Owns: one match from bots to a record v1 (``match``: ``play_match``), the record's format and
its checks (``record_format``), playing jobs (``worker``: a ``Job`` carries everything a match
needs, its ``Roster`` included; an ``Outcome`` is the players, ranks, forfeits and record),
where they run (``executor``: the interface and the in-process executor; ``cluster``: Ray, the
only module that imports Ray), the watcher that ends a dead run's bot processes (``reaper``),
and a match against a person (``human_play``: a web seat among bots, stored as the game's
results).

It knows no tournament, ladder or comparison: those plan jobs (``mallows.tournaments``) and
hand them to an executor.

May import: ``mallows.errors``, ``mallows.seeding``, ``mallows.safetext``, ``mallows.botname``,
``mallows.games``, ``mallows.agents`` and ``mallows.results`` (a person's match is stored).
Never ``tournaments``, ``report``, ``interop`` or ``cli``.
"""
