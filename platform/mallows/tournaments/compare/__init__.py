"""Comparisons: ``mallows compare A B``, a sequential test of "is A better than B?".

Owns: the statistics (``sprt``: Wald's SPRT with the generalised likelihood ratio of the exact
multinomial model over paired place differences; pure, numpy only), the comparison's
definition, its schedule of paired matches and how it is stored (``spec``), and running one through
the tournaments' executors and the store, stopping as soon as the test decides (``run``), and the services over a ``Comparison``
(``format``: ``FORMAT``, its ``tournaments.format.Format``: check, settle, register, schedule,
the test as the stop rule).

A comparison is stored as a tournament of its own kind: its definition carries
``"kind": "compare"``, and its matches are ordinary match rows with their records.

May import: the shared core of ``mallows.tournaments``, ``mallows.runner``, ``mallows.agents``,
``mallows.games``, ``mallows.results`` and the ground floor; no other format. Never ``cli``;
never SQLite directly.
"""
