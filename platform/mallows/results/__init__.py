"""Results: what tournaments leave behind, at the bottom of the house.

Owns: the store (``store``: the only package that talks to SQLite; it takes plain values, never
a tournament object; ``Store(path, readonly=True)`` never writes; its modules: ``schema``,
``core``, ``reading``, ``submissions``) and the ratings (``ratings``: pure functions from
results to leaderboards; TrueSkill's parameters, checks and columns; ``SYSTEMS`` and
``system(name)``: every rating system by name, TrueSkill the default), and place statistics
(``stats``: mean places with their 95% intervals; ``seats``: seat effects, the deal as the
unit; pure functions), the whole-history rating (``plackett_luce``: one Plackett-Luce fit
over every match at once, independent of their order, with rating and rank intervals; pure
functions; ``history_rating``: that fit as a rating system), and the one leaderboard every table shows (``leaderboard``: rows of the
bots that played, ranked over those rows). Their written interfaces,
``ResultStore``, ``MatchRow`` and ``RatingSystem``, are in ``interface``.

May import: ``mallows.errors`` and ``mallows.botname`` only (and the standard library, sqlite-utils, trueskill, numpy). Nothing
of ``games``, ``agents``, ``tournaments`` or ``cli``.
"""
