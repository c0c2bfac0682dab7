"""The ``mallows`` command line: one typer app, one module per command group.

``main()`` is the console script. Every ``MallowsError`` (the user's input) becomes a
one-paragraph message on stderr and exit status 2, every ``PlatformError`` a message and exit
status 70, never a traceback (``mallows.errors`` draws the tree).

Owns: parsing arguments, calling the floors below, and printing (tables, csv, json, markdown).
No game logic, no harness, no SQL.

May import: every other subpackage (it is the top floor). Nothing imports it.
"""

from __future__ import annotations

import sys

import typer

from mallows.cli.help import PlainHelpGroup
from mallows.errors import PLATFORM_ERROR_EXIT, USER_ERROR_EXIT, MallowsError, PlatformError

app = typer.Typer(
    name="mallows",
    cls=PlainHelpGroup,
    help="AI tournaments for Arschmallows and Squishmallows Take4.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _root() -> None:
    """AI tournaments for Arschmallows and Squishmallows Take4."""


from mallows.cli import play as _play, bots as _bots, tournament as _tournament  # noqa: E402
from mallows.cli import report as _report  # noqa: E402
from mallows.cli import compare as _compare  # noqa: E402
from mallows.cli import db as _db  # noqa: E402
from mallows.cli import submit as _submit  # noqa: E402
from mallows.cli import ladder as _ladder  # noqa: E402
from mallows.cli import users as _users  # noqa: E402

for _module in (_play, _bots, _tournament, _report, _compare, _db, _submit, _ladder, _users):
    _module.register(app)


def main() -> None:
    try:
        app()
    except MallowsError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(USER_ERROR_EXIT)
    except PlatformError as exc:
        typer.echo(f"error: {exc}", err=True)
        sys.exit(PLATFORM_ERROR_EXIT)
    except KeyboardInterrupt as exc:  # before a command could say what was kept (e.g. Ray
        from mallows.cli.signals import exit_status, interrupted  # starting)

        typer.echo(f"{interrupted(exc)}: nothing was lost; rerun the same command", err=True)
        sys.exit(exit_status(exc))
