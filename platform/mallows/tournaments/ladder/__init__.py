"""Ladder: a standing ladder (or a gauntlet: challengers against a fixed field), in epochs.

Owns: the ladder file (``spec``: ``kind = "ladder"`` or ``"gauntlet"``), the pure epoch schedule
(``schedule``: balanced base tables, newcomers' tables, extra tables for open questions), epochs
planned from the stored state and played by the core's ``run.execute`` (``run``), the status
view (``status``), the services over a ``Ladder`` (``format``: ``FORMAT``), and the pure decision logic (no I/O, no clock, no global randomness): the
questions a ladder asks of its results and when each is answered (``questions``: a full
order, the top k, a newcomer's place, each to a stated certainty, read off the whole-history
fit ``mallows.results.plackett_luce``), the scheduling policy that follows from them
(``policy``: extra tables only where a question is open, drawn among the bots that question is
unsure about, and a newcomer's boosted rate until its place is known), and a simulated field
for the benchmarks (``simulate``).

May import: the shared core of ``mallows.tournaments``, ``mallows.runner``, ``mallows.agents``,
``mallows.games``, ``mallows.results`` and the ground floor; no other format. ``questions``,
``policy`` and ``simulate`` import only ``mallows.results``, ``mallows.errors`` and
``mallows.botname`` (and numpy).
"""
