"""Tournaments: the file format, the schedule, one match, the executors, and running.

Owns: the TOML file and its checks (``spec``), the pure schedule (``schedule``), one match from
bots to a record v1 (``match``), playing matches (``worker``: jobs and outcomes), where matches
run (``executor``: the interface and the in-process executor; ``cluster``: Ray, the only
module that imports Ray), and running a tournament end to end: plan, execute, store,
rate, resume (``run``), with the code of every bot pinned at the first run (``pinning``).

May import: ``mallows.errors``, ``mallows.seeding``, ``mallows.games``, ``mallows.agents`` and
``mallows.results``. Never ``cli``; never SQLite (storage goes through ``mallows.results``).
"""
