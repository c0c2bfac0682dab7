"""Storage: the only package that talks to SQLite (through sqlite-utils); no module outside
``mallows.results.store`` imports ``sqlite3`` or ``sqlite_utils``.

Tables:

- ``meta``: ``schema_version`` and other bookkeeping (key, value).
- ``bots``: every bot name a tournament used, with where it was loaded from.
- ``tournaments``: one row per name, with the canonical definition (JSON) and its digest; a file
  changed under an existing name is refused, naming what changed.
- ``matches``: one row per finished match, keyed by ``id`` = ``"<tournament>/<index>"`` (unique
  on (tournament, idx)), with its record (JSON) and, for ratings, its players and ranks.
- ``snapshot_files``, ``submissions``, ``pins``, ``bot_names`` (schema 4): see ``submissions``
  below and ``mallows.agents.submissions``.
- ``ladder_epochs``, ``ladder_tables``, ``ladder_events`` (schema 5): a standing ladder's
  planned epochs, its tables with why each was scheduled, and its events (``ladders``).
- ``ratings``: per tournament (``scope = 'tournament'``) and per game (``scope = 'game'``):
  rank, mu, sigma, mu - 3 sigma, games, wins, mean place.

``Store(path, readonly=True)`` opens the file with SQLite's ``mode=ro``: every query works, every
write is refused (``StorageError``), and nothing is ever written, not even a migration (an older
schema is migrated in a private in-memory copy). Read-only commands open the database so.

The store's written interface is ``mallows.results.interface.ResultStore``.

The database runs in WAL mode, so another process can read while a tournament writes. Every
match is committed in its own transaction as it arrives, so a run killed at any moment loses at
most the matches still in flight; a rerun plays only the missing indices. The schema version is
recorded in ``meta``; ``MIGRATIONS[i]`` takes a database from version i to i + 1 and opening a
database runs the missing ones in order.

Modules (``Store`` owns the connection and answers through two objects over it):

- ``schema``: the tables and the migrations (``MIGRATIONS``, ``SCHEMA_VERSION``), the per-game
  compression dictionaries, the read-only connection; ``StorageError``, ``DEFAULT_DB``.
- ``core``: the ``Store`` class: opening and closing, the schema check, tournaments, storing
  matches, the record encoding; its reading and submission methods forward to:
- ``reading``: ``Reading``, reading matches back (results for ratings, records and summaries for reports
  and replays, export, the integrity check) and the ratings tables.
- ``submissions``: ``Submissions``, bot submissions, snapshots, pins and display names.
- ``ladders``: ``Ladders`` (``Store.ladders``), standing ladders' epochs, tables and events.

The rest of mallows imports from the package (``from mallows.results.store import Store``).
"""

from mallows.results.interface import MatchRow
from mallows.results.store.core import Store
from mallows.results.store.schema import (
    DEFAULT_DB,
    MIGRATIONS,
    PAGE_SIZE,
    SCHEMA_VERSION,
    StorageError,
)

__all__ = [
    "DEFAULT_DB",
    "MIGRATIONS",
    "PAGE_SIZE",
    "SCHEMA_VERSION",
    "MatchRow",
    "Store",
    "StorageError",
]
