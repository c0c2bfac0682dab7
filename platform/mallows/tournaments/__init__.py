"""Tournaments: the file format, the schedule, one match, the executors, and running.

Owns: the TOML file and its checks (``spec``), the pure schedule (``schedule``), one match from
bots to a record v1 (``match``), playing matches (``worker``: jobs and outcomes), where matches
run (``executor``: the interface and the in-process executor; ``cluster``: Ray, the only
module that imports Ray), a run planned once (``plan``: ``prepare`` checks, registers and pins
a tournament or a comparison and returns a ``Plan``), and the one run loop: execute, store,
rate, resume, with an optional stop rule (``run``: ``execute``), with the code of every bot
pinned at the first run (``pinning``); standing ladders (``ladder_spec``: the file;
``ladder_schedule``: epochs of balanced, newcomer and extra tables, pure; ``ladder_run``: epochs
planned from the stored state and played by ``run.execute``; ``ladder_status``: the view), which
read the pure decisions of ``mallows.ladder``.

May import: ``mallows.errors``, ``mallows.seeding``, ``mallows.games``, ``mallows.agents``,
``mallows.results`` and ``mallows.ladder``. Never ``cli``; never SQLite (storage goes through
``mallows.results``).
"""
