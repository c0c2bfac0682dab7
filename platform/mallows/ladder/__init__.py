"""Ladder: the pure decision logic of a standing ladder (no I/O, no clock, no global randomness).

Owns: the questions a ladder asks of its results and when each is answered (``questions``: a
full order, the top k, a newcomer's place, each to a stated certainty, read off the
whole-history fit ``mallows.results.plackett_luce``), and the scheduling policy that follows
from them (``policy``: extra tables only where a question is open, drawn among the bots that
question is unsure about, and a newcomer's boosted rate until its place is known). The
machinery that runs a ladder (its file, storage, executors, the CLI and the views) calls these
functions and lives elsewhere.

May import: ``mallows.results``, ``mallows.errors`` and ``mallows.botname`` only (and the
standard library and numpy). Nothing of ``games``, ``agents``, ``tournaments``, ``compare``,
``report`` or ``cli``.
"""
