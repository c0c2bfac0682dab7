"""Storage on real SQLite files: WAL, schema version, one row per match, refusals, order."""

import json
import sqlite3
from dataclasses import replace

import pytest

from mallows.errors import MallowsError
from mallows.tournaments.schedule import schedule
from mallows.results.store import SCHEMA_VERSION, Store
from mallows.tournaments.run import register
from mallows.tournaments.spec import parse_tournament
from mallows.results.store import MatchRow

BASE = {"name": "s", "game": "take4", "players": 2, "deals": 2, "seed": 1,
        "bots": ["random", "greedy"]}


def tournament(**changes):
    return parse_tournament({**BASE, **changes}, check_bots=False)


def fake_record(spec, ranks):
    return {"record_version": 1, "game": "take4", "seed": spec.seed, "players": list(spec.seats),
            "events": [], "result": {"ranks": ranks, "forfeits": [None, "boom"]}}


def match_row(t, spec, record):
    """The store's plain-value row for a record (what the run module builds from an outcome)."""
    forfeits = sum(1 for f in record["result"]["forfeits"] if f)
    return MatchRow(f"{t.name}/{spec.index}", t.name, spec.index, t.game, spec.table,
                    spec.rotation, spec.deal, spec.seed, record["players"],
                    record["result"]["ranks"], forfeits, json.dumps(record))


def test_wal_schema_version_and_tables(tmp_path):
    path = tmp_path / "sub" / "m.db"
    Store(path).close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] \
        == str(SCHEMA_VERSION)
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"bots", "tournaments", "matches", "ratings", "meta"} <= tables
    con.close()
    Store(path).close()  # reopening migrates nothing and keeps the version
    assert Store(path).schema_version() == SCHEMA_VERSION


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "m.db"
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", [str(SCHEMA_VERSION + 1)])
    con.commit()
    con.close()
    with pytest.raises(MallowsError, match="newer"):
        Store(path)


def test_one_row_per_match_and_results_in_schedule_order(tmp_path):
    store = Store(tmp_path / "m.db")
    t = tournament()
    register(store, replace(t, bot_sources={"random": "bots/random.py"}))
    specs = schedule(t)
    for spec in reversed(specs):  # arrive in reverse order
        store.add_match(match_row(t, spec, fake_record(spec, [spec.index % 2, 1 - spec.index % 2])))
    store.add_match(match_row(t, specs[0], fake_record(specs[0], [1, 0])))  # a duplicate
    assert store.count_matches("s") == len(specs)
    assert store.done_indices("s") == set(range(len(specs)))
    got = list(store.results(tournament="s"))
    assert got == [(list(s.seats), [s.index % 2, 1 - s.index % 2]) for s in specs]
    row = store.match("s/3")
    assert json.loads(row["record"])["seed"] == specs[3].seed and row["forfeits"] == 1
    assert store.db["bots"].get("random")["source"] == "bots/random.py"


def test_changed_definition_is_refused_naming_the_changes(tmp_path):
    store = Store(tmp_path / "m.db")
    assert register(store, tournament()) is True
    assert register(store, tournament()) is False  # same file: resume
    with pytest.raises(MallowsError) as err:
        register(store, tournament(deals=3, options={"max_rounds": 50}))
    text = str(err.value)
    assert "deals: 2 -> 3" in text and "options.max_rounds" in text and "new `name`" in text


def test_ratings_are_replaced_and_stamped(tmp_path):
    from mallows.results.ratings import leaderboard

    store = Store(tmp_path / "m.db")
    t = tournament()
    register(store, t)
    spec = schedule(t)[0]
    store.add_match(match_row(t, spec, fake_record(spec, [0, 1])))
    assert store.ratings_stale("tournament", "s")
    store.save_ratings("tournament", "s", "take4", leaderboard(store.results("s")), stamp=1)
    store.save_ratings("tournament", "s", "take4", leaderboard(store.results("s")), stamp=1)
    rows = store.ratings("tournament", "s")
    assert [r["rank"] for r in rows] == [1, 2] and rows[0]["games"] == 1
    assert not store.ratings_stale("tournament", "s")


def test_the_bots_table_keeps_where_the_file_check_found_each_bot(tmp_path):
    from mallows.agents.registry import load_bot

    checked = parse_tournament(dict(BASE), check_bots=True)
    assert checked.bot_sources == {b: load_bot(b).source for b in checked.bots}
    assert checked == tournament()  # the sources are not part of the definition
    store = Store(tmp_path / "m.db")
    register(store, checked)
    stored = dict(sqlite3.connect(tmp_path / "m.db").execute("SELECT name, source FROM bots"))
    assert stored == checked.bot_sources and all(stored.values())
