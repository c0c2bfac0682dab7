"""Accounts of the competition server (issue 31, item 2): ``mallows users add NAME [--admin]``
prints a token once and stores only its scrypt hash (schema 6); ``users list`` shows no token;
``users revoke`` makes the token refused; a bot name belongs to the account that first claimed
it; a schema 5 file opens and gains the tables with every row kept."""

from __future__ import annotations

import subprocess

import pytest

from conftest import MALLOWS, invoke
from mallows.errors import AccountError
from mallows.results.store import MatchRow, Store, schema


def token_of(output: str) -> str:
    return output.strip().splitlines()[-1]


def test_a_token_is_printed_once_and_only_its_hash_is_stored(tmp_path):
    db = tmp_path / "r.db"
    made = invoke("users", "add", "alice", "--db", db)
    assert made.exit_code == 0 and "shown only now" in made.output
    token = token_of(made.output)
    secret = token.split(".", 1)[1]
    assert len(secret) >= 40
    admin = token_of(invoke("users", "add", "root", "--admin", "--db", db).output)
    listed = invoke("users", "list", "--db", db)
    assert listed.exit_code == 0
    assert "alice\tauthor" in listed.output and "root\tadmin" in listed.output
    assert secret not in listed.output and admin.split(".", 1)[1] not in listed.output
    for path in tmp_path.iterdir():  # the database, its log: nowhere the secret itself
        assert secret.encode() not in path.read_bytes(), path
    with Store(db, readonly=True) as store:
        assert store.accounts.verify(token)["name"] == "alice"
        assert store.accounts.verify(admin) == {"id": 2, "name": "root", "admin": True}
        for wrong in ("", "1", "1.", f"2.{secret}", token[:-1] + "x", "x.y"):
            with pytest.raises(AccountError, match="not a valid token"):
                store.accounts.verify(wrong)


def test_a_revoked_token_is_refused(tmp_path):
    db = tmp_path / "r.db"
    token = token_of(invoke("users", "add", "bob", "--db", db).output)
    assert invoke("users", "revoke", "bob", "--db", db).exit_code == 0
    with Store(db, readonly=True) as store, pytest.raises(AccountError, match="revoked"):
        store.accounts.verify(token)
    assert "revoked" in invoke("users", "list", "--db", db).output


def test_bad_names_and_repeats_are_explained(tmp_path):
    db = tmp_path / "r.db"
    assert invoke("users", "add", "carol", "--db", db).exit_code == 0
    for name, words in (
        ("carol", "exists already"),
        ("Carol Smith", "lower-case letters"),
        ("../x", "lower-case letters"),
    ):
        result = subprocess.run(
            [MALLOWS, "users", "add", name, "--db", str(db)], capture_output=True, text=True
        )
        assert result.returncode == 2 and words in result.stderr, result.stderr
        assert "Traceback" not in result.stderr
    result = subprocess.run(
        [MALLOWS, "users", "revoke", "nobody", "--db", str(db)], capture_output=True, text=True
    )
    assert result.returncode == 2 and "no account 'nobody'" in result.stderr


def test_a_bot_name_belongs_to_the_account_that_first_claimed_it(tmp_path):
    with Store(tmp_path / "r.db") as store:
        alice = store.accounts.verify(store.accounts.add("alice"))
        bob = store.accounts.verify(store.accounts.add("bob"))
        root = store.accounts.verify(store.accounts.add("root", admin=True))
        store.accounts.claim("sharp", alice)
        store.accounts.claim("sharp", alice)  # its own again: kept
        with pytest.raises(AccountError, match="belongs to account 'alice'"):
            store.accounts.claim("sharp", bob)
        store.accounts.claim("sharp", root)  # an admin may act for anyone
        assert store.accounts.owner("sharp") == "alice" and store.accounts.owner("x") is None


def test_a_schema_5_file_gains_the_account_tables_and_keeps_its_rows(tmp_path, monkeypatch):
    path = tmp_path / "old.db"
    monkeypatch.setattr(schema, "SCHEMA_VERSION", 5)
    with Store(path) as old:
        old.add_tournament("t", "take4", "{}", "d", "f", 1, {})
        old.add_matches(
            [MatchRow("t/0", "t", 0, "take4", 0, 0, 0, 1, ["a", "b"], [0, 1], 0, '{"x": 1}')]
        )
        assert old.schema_version() == 5 and "accounts" not in old.db.table_names()
    monkeypatch.undo()
    with Store(path, readonly=True) as seen:  # read-only: migrated in memory, file untouched
        assert seen.accounts.list() == [] and seen.count_matches("t") == 1
    with Store(path) as new:
        assert new.schema_version() == schema.SCHEMA_VERSION == 6
        assert new.record("t/0") == '{"x": 1}'
        assert new.accounts.verify(new.accounts.add("dan"))["name"] == "dan"
