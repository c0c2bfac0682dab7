"""Comparisons: ``mallows compare A B``, a sequential test of "is A better than B?".

Owns: the statistics (``sprt``: Wald's SPRT with the generalised likelihood ratio of the exact
multinomial model over paired place differences; pure, numpy only), the comparison's
definition and its schedule of paired matches (``plan``: pure), and running one through the
tournaments' executors and the store, stopping as soon as the test decides (``run``).

A comparison is stored as a tournament of its own kind: its definition carries
``"kind": "compare"``, and its matches are ordinary match rows with their records.

May import: ``mallows.errors``, ``mallows.seeding``, ``mallows.games``, ``mallows.agents``,
``mallows.results`` and ``mallows.tournaments``. Never ``cli``; never SQLite directly.
"""
