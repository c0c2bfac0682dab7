"""``mallows users add|list|revoke``: the accounts of the competition server (``mallows
serve``), kept in the results database.

``add NAME [--admin]`` prints the account's token once (only a hash of it is stored: lose it
and revoke the account); ``list`` shows names, admins and when each was made or revoked,
never a token; ``revoke NAME`` refuses its token from then on. The CLI itself needs no
account: whoever runs it on the machine may do what an admin may.
"""

from __future__ import annotations

from pathlib import Path

import typer

from mallows.cli.common import db_option, user_errors
from mallows.results.store import Store

users_app = typer.Typer(help="Accounts of the competition server.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(users_app, name="users")


@users_app.command("add")
@user_errors
def add(
    name: str = typer.Argument(..., help="The account's name, e.g. alice."),
    admin: bool = typer.Option(False, "--admin", help="May do what the CLI does."),
    db: Path = db_option(),
) -> None:
    """Make an account and print its token, once: only a hash of it is stored."""
    with Store(db) as store:
        token = store.accounts.add(name, admin=admin)
    typer.echo(f"account {name}{' (admin)' if admin else ''} made; its token (shown only now):")
    typer.echo(token)


@users_app.command("list")
@user_errors
def list_(db: Path = db_option()) -> None:
    """Every account: name, admin or not, when it was made and revoked."""
    with Store(db, readonly=True) as store:
        rows = store.accounts.list()
    if not rows:
        typer.echo("no accounts: mallows users add NAME makes one")
        return
    for r in rows:
        state = f"revoked {r['revoked']}" if r["revoked"] else "active"
        typer.echo(f"{r['name']}\t{'admin' if r['admin'] else 'author'}\t{r['created']}\t{state}")


@users_app.command("revoke")
@user_errors
def revoke(
    name: str = typer.Argument(..., help="The account to revoke."), db: Path = db_option()
) -> None:
    """Refuse the account's token from now on (its bots and matches stay)."""
    with Store(db) as store:
        store.accounts.revoke(name)
    typer.echo(f"account {name} revoked: its token is refused from now on")
