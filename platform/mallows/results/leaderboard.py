"""The one leaderboard: rows computed from what was played, and nothing else.

``leaderboard(results, params)`` rates ``(players, ranks)`` results in the order given (schedule
order) with the rating system and returns its rows; ``played(rows)`` keeps, of any rows (a
live rater's, whose bots may be seeded before they play), those with at least one match, ranked
over the rows kept. The names are those in the results, which are the names the run showed
(a tournament's pins), so a bot is never listed twice under two spellings, and a bot listed in
a file but never played has no row. Every table uses it: ``mallows ratings``, ``tournament
run`` and ``show``, the stored ratings, ``report`` and ``serve``.

Pure functions, like the ratings they call.
"""

from __future__ import annotations

import dataclasses
from typing import Iterable, Sequence

from mallows.results.ratings import system
from mallows.results.interface import Result
from mallows.results.ratings import Row

RATING_SYSTEM = system()  # the default (TrueSkill): the tables the platform rates and stores


def played(rows: Sequence[Row]) -> list[Row]:
    """The rows with a match, in their order, ranked 1, 2, ... over those rows."""
    return [
        dataclasses.replace(r, rank=rank)
        for rank, r in enumerate((r for r in rows if r.matches), 1)
    ]


def leaderboard(results: Iterable[Result], params: dict | None = None) -> list[Row]:
    """The leaderboard of ``results`` (in the order to rate them), ``params``: the rating
    system's parameters (None: its defaults). Only bots that played have a row."""
    return played(RATING_SYSTEM.leaderboard(results, params))


def played_dicts(rows: Sequence[dict]) -> list[dict]:
    """``played`` for a stored table (the store's rows, ``games`` their match count; a table
    stored by an older version may hold rows without a match)."""
    return [dict(r, rank=rank) for rank, r in enumerate((r for r in rows if r["games"]), 1)]
