"""Shared CLI plumbing: errors become a message and an exit status, never a traceback: a
user-input error (``MallowsError``) exits 2, a platform failure (``PlatformError``) exits 70
(``mallows.errors`` draws the tree)."""

from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, ParamSpec, TypeVar

import typer

from mallows.errors import PLATFORM_ERROR_EXIT, USER_ERROR_EXIT, MallowsError, PlatformError
from mallows.results.store import DEFAULT_DB
from mallows.safetext import escape  # the one escaping function for the terminal

if TYPE_CHECKING:
    from mallows.agents.registry import Resolver

P = ParamSpec("P")
R = TypeVar("R")


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Decorate a command: a ``MallowsError`` prints ``error: <message>`` and exits 2, a
    ``PlatformError`` the same and exits 70 (``errors.PLATFORM_ERROR_EXIT``)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except MallowsError as exc:
            # a message may quote a bot's or a file's text: its control characters shown
            typer.echo(f"error: {escape(exc, keep_lines=True)}", err=True)
            raise typer.Exit(USER_ERROR_EXIT) from None
        except PlatformError as exc:
            typer.echo(f"error: {escape(exc, keep_lines=True)}", err=True)
            raise typer.Exit(PLATFORM_ERROR_EXIT) from None

    return wrapper


def parse_options(pairs: list[str] | None) -> dict[str, str]:
    """``["table_cards=4", ...]`` -> ``{"table_cards": "4"}``; the game coerces the values."""
    out: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise MallowsError(
                f"--option {pair!r} is not KEY=VALUE: write it as, for example, "
                f"--option table_cards=4"
            )
        out[key.strip()] = value.strip()
    return out


# -- the options several commands share: each defined once, with one help string ---------------

DB_HELP = (
    f"The database (SQLite, default {DEFAULT_DB}): the commands that play or submit write to it "
    "(created if missing), the others only read it; bot names NAME@N (and a bare submitted "
    "NAME) resolve to its submitted versions."
)
WORKERS_HELP = "1: in this process; N > 1: a local Ray with N CPUs (default: the CPU count)."
ADDRESS_HELP = "Join this Ray cluster (default: $RAY_ADDRESS), shipping the bots."
SANDBOX_HELP = (
    "on: every bot that is not shipped runs in a bubblewrap sandbox, and is refused where none "
    'can be made; off: process isolation only (trusted bots; as sandbox = "off" in [limits]; '
    "stored with the tournament, ladder or comparison). Default: the file's [limits], else on."
)


def db_option() -> Any:
    """``--db``: the database, ``results/mallows.db`` by default (``results.store.DEFAULT_DB``)."""
    return typer.Option(DEFAULT_DB, "--db", help=DB_HELP)


def workers_option() -> Any:
    """``--workers``: 1 runs in this process, N > 1 a local Ray; None: the CPU count."""
    return typer.Option(None, "--workers", help=WORKERS_HELP)


def address_option() -> Any:
    """``--address``: the Ray cluster to join (None: ``$RAY_ADDRESS``, else none)."""
    return typer.Option(None, "--address", help=ADDRESS_HELP)


def sandbox_option(default: str | None = None) -> Any:
    """``--sandbox on|off`` (checked by ``sandbox_mode``); None: what the file says."""
    return typer.Option(default, "--sandbox", help=SANDBOX_HELP)


def sandbox_mode(value: str) -> str:
    """The ``--sandbox`` option's value, checked."""
    from mallows.agents.sandbox import check_mode

    return check_mode(value, "--sandbox")


@contextlib.contextmanager
def resolver_for(db: Path) -> Iterator["Resolver"]:
    """The ``Resolver`` every command that takes ``--db`` resolves bot names with: the
    registry (paths, ``bots/``, entry points, shipped bots), then ``db``'s submitted versions
    (``NAME@N``, a bare submitted ``NAME``), opened read-only for the block; a missing file:
    none. Passed explicitly to what resolves names (``tournaments.plan``), never installed in
    a global."""
    from mallows.agents.registry import Resolver
    from mallows.results.integrity import present_db
    from mallows.results.store import Store

    store = Store(db, readonly=True) if present_db(db) else None
    try:
        yield Resolver(store)
    finally:
        if store is not None:
            store.close()
