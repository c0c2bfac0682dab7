"""Report: results presented to people, as a static HTML site (``mallows report``) or the same
pages served live (``mallows serve``).

Owns: what a page shows (``data``: leaderboards with mean places and their intervals,
head-to-head, rating progression, bots and forfeits, read from a store, never written; each
board one fold over its results, ``fold``, whose state a written report keeps for its next run,
``board_cache``), a match list's rows (``match_rows``),
replay frames (``frames``: a record replayed by its game's replay face, one frame per event,
with each card's value and who saw it; the frames and the script drawing them live with each
game, ``mallows.games.faces``), a tournament's replays as compressed data files
(``replay_data``; those of the report already at ``-o`` used again where their matches are
unchanged, ``replay_cache``), the charts (``plots``, matplotlib to SVG), the pages
(``site``: Jinja2 templates in ``templates/``, CSS and the small vanilla JS in ``static/``,
shipped as package data).

It is its own concern rather than part of ``results``: it replays records through the game
engines, which ``results`` may not import.

May import: ``mallows.results`` (store reads, ratings, stats), ``mallows.games`` (engines, to
replay), ``mallows.errors``, ``mallows.botname``, ``mallows.safetext``; jinja2, markupsafe and
matplotlib. Nothing of ``agents``, ``tournaments`` or
``cli``: what it shows of a ladder or a comparison (their views, a comparison's test) the
CLI hands it as functions (``Site(ladders=..., comparisons=...)``). Imported by ``mallows.cli``
and ``mallows.server`` (which serves its pages) only.
"""
