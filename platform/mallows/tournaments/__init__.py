"""Tournaments: the formats (one package each) on a shared core that plans and runs them.

Owns, in the shared core (the modules directly here):

- a run planned once (``plan``: ``prepare`` checks, registers and pins a run and returns a
  ``Plan``), and the one run loop: execute, store, rate, resume, with an optional stop rule
  (``run``: ``execute``), rated live in schedule order (``live``);
- what a format is (``format``: the ``Format`` protocol, the services a format gives the plan
  and the run loop; ``FORMATS``, the registry; and what every format's file shares: its checks
  of names, numbers, ``[limits]``, ``[ratings]`` and bots, and the differences between two
  definitions), and what every format's schedule deals in (``seating``: ``MatchSpec``, match
  ids, deal seeds, balanced seat orders, schedule versions);
- the code of every bot pinned at the first run (``pinning``), seed derivations and secret
  keys (``secrecy``), and one run of a name at a time (``lock``).

The formats, each in its package, none importing another (and the core importing none):

- ``roundrobin``: the tournament file (``spec``) and its pure schedule (``schedule``);
- ``ladder``: standing ladders and gauntlets: the file (``spec``), epochs of balanced, newcomer
  and extra tables (``schedule``, pure), epochs planned from the stored state and played by
  ``run.execute`` (``run``), the view (``status``), and the pure decisions they follow
  (``questions``, ``policy``; ``simulate`` for the benchmarks);
- ``compare``: ``mallows compare A B``, a sequential test of "is A better than B?" (``spec``:
  the definition and its schedule of pairs; ``sprt``: the statistics; ``run``: running one
  until the test decides).

**Adding a format** (a Swiss system, say): a package ``tournaments/<name>/`` with its spec (a
frozen data class: data only, ``format.Spec``), its pure schedule, and ``<name>/format.py``
holding ``FORMAT``, an object with the ``format.Format`` services (check, settle, register,
schedule, stop rule; plus ``next_tables`` for a format planned round by round from the results
so far: ``format.EpochFormat``, played by ``run.run_epochs``), then one line in
``format.FORMATS``. ``format``'s docstring says what each service must do; ``roundrobin/`` is
the smallest example, ``tests/toy_format.py`` an epoch format in one file. Its commands are a
``cli/`` module; its file's guide goes in ``tournaments/README.md``.

Matches themselves are played by ``mallows.runner`` (a Job in, an Outcome out).

May import: ``mallows.errors``, ``mallows.seeding``, ``mallows.safetext``, ``mallows.botname``,
``mallows.games``, ``mallows.agents``, ``mallows.runner`` and ``mallows.results``. Never
``cli``, ``report`` or ``interop``; never SQLite (storage goes through ``mallows.results``).
"""
