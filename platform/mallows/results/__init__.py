"""Results: what tournaments leave behind, at the bottom of the house.

Owns: the store (``store``: the only module that talks to SQLite; it takes plain values, never
a tournament object, and its interface is written down as ``ResultStore``) and the ratings
(``ratings``: pure functions from results to leaderboards, behind ``RatingSystem``).

May import: ``mallows.errors`` only (and the standard library, sqlite-utils, trueskill). Nothing
of ``games``, ``agents``, ``tournaments`` or ``cli``.
"""
