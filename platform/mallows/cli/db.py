"""``mallows db check``: is a results database intact?

Runs SQLite's own integrity check over every page and index, then checks every stored match
against its digest and looks for orphans (matches whose tournament is gone), and lists what is
damaged; ``mallows db repair`` removes the orphans. Exit 0 when everything is intact, 2 (with the
list and what to do) when something is not. The file is opened read-only: checking never
changes it, and it works on read-only media.
"""

from __future__ import annotations

from pathlib import Path

import typer

from mallows.cli.common import db_option, user_errors
from mallows.errors import MallowsError
from mallows.results.store import Store

db_app = typer.Typer(help="Look after a results database.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(db_app, name="db")


@db_app.command("check")
@user_errors
def check(db: Path = db_option()) -> None:
    """SQLite's integrity check plus every match's digest; lists what is damaged."""
    from mallows.results.store import SCHEMA_VERSION

    store = Store(db, readonly=True)
    try:
        problems = store.check()
        orphans = store.orphans()
        problems += [
            f"{count} match{'es' if count != 1 else ''} of tournament {name!r}, "
            f"which is no longer in the database (orphans: `mallows db repair --db "
            f"{db}` removes them)"
            for name, count in orphans.items()
        ]
        old = store.disk_version < SCHEMA_VERSION
        matches = sum(t["done"] for t in store.tournaments()) if not problems else None
    finally:
        store.close()
    if problems:
        shown = problems[:50]
        more = f"\n  ... and {len(problems) - 50} more" if len(problems) > 50 else ""
        damaged = len(problems) > len(orphans)
        raise MallowsError(
            f"{db} is damaged ({len(problems)} problem"
            f"{'s' if len(problems) != 1 else ''}):\n  "
            + "\n  ".join(shown)
            + more
            + (
                "\nRestore it from a copy; a tournament whose matches "
                "are damaged can also be played again into a new --db"
                if damaged
                else f"\nRemove the orphans: mallows db repair --db {db}"
            )
        )
    if old:
        typer.echo(
            f"{db}: SQLite integrity check ok; its {matches} matches carry no digests "
            f"yet (schema version 1: the next `mallows tournament run` with this --db "
            f"adds them)"
        )
    else:
        typer.echo(f"{db}: intact (SQLite integrity check ok, {matches} match digests ok)")


@db_app.command("repair")
@user_errors
def repair(db: Path = db_option()) -> None:
    """Remove the orphans `db check` reports: matches whose tournament is gone."""
    if not Path(db).is_file():
        Store(db, readonly=True).close()  # the message for a path that is not a database
    store = Store(db)
    try:
        gone = store.remove_orphans()
    finally:
        store.close()
    typer.echo(
        f"{db}: removed {gone} orphan match{'es' if gone != 1 else ''}"
        if gone
        else f"{db}: no orphans; nothing to repair"
    )
