"""Accounts of the competition server (schema 6; ``mallows users``): names, admins, tokens
kept only as hashes, and which account owns which bot name.

``Accounts`` is an object over the store's one connection (``Store.accounts``). A token is
``<account id>.<secret>``: the id finds the row, the secret is checked against the row's
scrypt hash (``hashlib.scrypt``, a salt per account, compared in constant time); the secret
itself is shown once, when the account is made, and stored nowhere. A revoked account's token
is refused. A bot name belongs to the account that first claimed it (``claim``); ``owners``
and ``versions`` are what the server hides and counts by account.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import secrets
import sqlite3
from typing import TYPE_CHECKING

import sqlite_utils

from mallows.errors import AccountError
from mallows.results.integrity import guard
from mallows.results.store.schema import _now

if TYPE_CHECKING:
    from mallows.results.store.core import Store

#: scrypt's cost: 2**14 x 8 x 1 takes about 16 MB and tens of milliseconds per check.
SCRYPT = {"n": 2**14, "r": 8, "p": 1, "dklen": 32}
NAME_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789_-")


def token_hash(secret: str, salt: bytes) -> bytes:
    return hashlib.scrypt(secret.encode(), salt=salt, **SCRYPT)


def check_name(name: str) -> str:
    if not name or len(name) > 40 or not set(name) <= NAME_CHARS or name[0] in "-_":
        raise AccountError(
            f"account name {name!r}: use 1 to 40 lower-case letters, digits, - and _ "
            f"(starting with a letter or digit), e.g. alice"
        )
    return name


@guard(sqlite3.Error)  # as on Store: every SQLite error a DatabaseError naming the file
class Accounts:
    """``Store``'s accounts and bot owners."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def db(self) -> sqlite_utils.Database:
        return self.store.db

    def add(self, name: str, admin: bool = False) -> str:
        """Make account ``name``; returns its token (the only time it is known)."""
        self.store._writable()
        check_name(name)
        secret, salt = secrets.token_urlsafe(32), secrets.token_bytes(16)
        with self.db.conn:
            if self.db.execute("SELECT 1 FROM accounts WHERE name = ?", [name]).fetchone():
                raise AccountError(
                    f"account {name!r} exists already (mallows users list): choose another name"
                )
            cursor = self.db.execute(
                "INSERT INTO accounts (name, admin, salt, token_hash, created) "
                "VALUES (?, ?, ?, ?, ?)",
                [name, int(admin), salt, token_hash(secret, salt), _now()],
            )
        return f"{cursor.lastrowid}.{secret}"

    def list(self) -> list[dict]:
        """Every account: name, admin, created, revoked (no hash, no salt)."""
        return [
            dict(r, admin=bool(r["admin"]))
            for r in self.db.query(
                "SELECT id, name, admin, created, revoked FROM accounts ORDER BY id"
            )
        ]

    def revoke(self, name: str) -> None:
        """Refuse ``name``'s token from now on (its rows and its bots stay)."""
        self.store._writable()
        with self.db.conn:
            row = self.db.execute("SELECT revoked FROM accounts WHERE name = ?", [name]).fetchone()
            if row is None:
                raise AccountError(f"no account {name!r}: mallows users list shows them")
            if row[0] is None:
                self.db.execute("UPDATE accounts SET revoked = ? WHERE name = ?", [_now(), name])

    def verify(self, token: str) -> dict:
        """The account whose token this is (id, name, admin), or an ``AccountError``: a wrong,
        malformed or revoked token (the message says which but for wrong and unknown: both
        are "not a valid token")."""
        ident, _, secret = (token or "").partition(".")
        row = None
        if ident.isdigit() and secret:
            row = self.db.execute(
                "SELECT id, name, admin, salt, token_hash, revoked FROM accounts WHERE id = ?",
                [int(ident)],
            ).fetchone()
        if row is None or not hmac.compare_digest(token_hash(secret, row[3]), row[4]):
            raise AccountError("not a valid token: give the token mallows users add printed")
        if row[5] is not None:
            raise AccountError(f"the token of account {row[1]!r} was revoked on {row[5]}")
        return {"id": row[0], "name": row[1], "admin": bool(row[2])}

    def owner(self, bot: str) -> str | None:
        """The account owning bot name ``bot`` (None: no account claimed it)."""
        row = self.db.execute(
            "SELECT a.name FROM bot_owners o JOIN accounts a ON a.id = o.account WHERE o.bot = ?",
            [bot],
        ).fetchone()
        return row[0] if row else None

    def claim(self, bot: str, account: dict) -> None:
        """Bot name ``bot`` for ``account`` (from ``verify``): taken when no account owns it,
        kept when it owns it; refused when another owns it, unless ``account`` is an admin."""
        self.store._writable()
        with self.db.conn:
            owner = self.owner(bot)
            if owner is None:
                self.db.execute(
                    "INSERT INTO bot_owners (bot, account, claimed) VALUES (?, ?, ?)",
                    [bot, account["id"], _now()],
                )
            elif owner != account["name"] and not account["admin"]:
                raise AccountError(
                    f"bot name {bot!r} belongs to account {owner!r}: choose another name"
                )

    def bots(self, account: str) -> builtins.list[str]:
        """The bot names ``account`` owns, in the order it claimed them."""
        return [
            r["bot"]
            for r in self.db.query(
                "SELECT o.bot FROM bot_owners o JOIN accounts a ON a.id = o.account "
                "WHERE a.name = ? ORDER BY o.rowid",
                [account],
            )
        ]

    def owners(self) -> dict[str, str]:
        """Every claimed bot name and the account owning it, in the order they were claimed."""
        return {
            r["bot"]: r["name"]
            for r in self.db.query(
                "SELECT o.bot, a.name FROM bot_owners o JOIN accounts a ON a.id = o.account "
                "ORDER BY o.rowid"
            )
        }

    def versions(self, account: str) -> builtins.list[dict]:
        """Every stored version of the bots ``account`` owns: name, version, bytes, created,
        withdrawn (what the server's quotas count)."""
        return list(
            self.db.query(
                "SELECT s.name, s.version, s.bytes, s.created, s.withdrawn FROM submissions s "
                "JOIN bot_owners o ON o.bot = s.name JOIN accounts a ON a.id = o.account "
                "WHERE a.name = ? ORDER BY s.created",
                [account],
            )
        )
