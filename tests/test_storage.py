"""The store: the ``ResultStore`` interface's behaviour, then the SQLite backend's own (WAL,
schema version, read-only mode, a database written before today's code).

The interface tests take a ``new_store`` factory (``new_store()`` opens the store under test,
``new_store(readonly=True)`` the same data read-only): another backend is checked by adding it
to ``BACKENDS``."""

import inspect
import json
import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from mallows.errors import MallowsError
from mallows.results.interface import ResultStore
from mallows.results.ratings import TRUESKILL
from mallows.results.store import SCHEMA_VERSION, Store, StorageError
from mallows.tournaments.run import board, register
from mallows.runner.match import forfeit_count
from mallows.tournaments.roundrobin.schedule import schedule
from mallows.tournaments.roundrobin.spec import check_tournament_bots, parse_tournament
from mallows.results.store import MatchRow

DATA = Path(__file__).parent / "data"
BACKENDS = {"sqlite": lambda path, readonly: Store(path / "m.db", readonly=readonly)}


@pytest.fixture(params=sorted(BACKENDS))
def new_store(request, tmp_path):
    """A factory: each call opens the backend's store over the same data."""
    opened = []

    def make(readonly: bool = False) -> ResultStore:
        store = BACKENDS[request.param](tmp_path, readonly)
        opened.append(store)
        return store

    yield make
    for store in opened:
        try:
            store.close()
        except Exception:
            pass


BASE = {
    "name": "s",
    "game": "take4",
    "players": 2,
    "deals": 2,
    "seed": 1,
    "secret": False,  # the store's tests schedule it directly, without a key
    "bots": ["random", "greedy"],
}


def tournament(**changes):
    return parse_tournament({**BASE, **changes})


def fake_record(spec, ranks):
    return {
        "record_version": 1,
        "game": "take4",
        "seed": spec.seed,
        "players": list(spec.seats),
        "events": [],
        "result": {"ranks": ranks, "forfeits": [None, "boom"]},
    }


def match_row(t, spec, record):
    """The store's plain-value row for a record (what the run module builds from an outcome)."""
    forfeits = forfeit_count(record)
    return MatchRow(
        f"{t.name}/{spec.index}",
        t.name,
        spec.index,
        t.game,
        spec.table,
        spec.rotation,
        spec.deal,
        spec.seed,
        record["players"],
        record["result"]["ranks"],
        forfeits,
        json.dumps(record),
    )


def test_wal_schema_version_and_tables(tmp_path):
    path = tmp_path / "sub" / "m.db"
    Store(path).close()
    con = sqlite3.connect(path)
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(
        SCHEMA_VERSION
    )
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


def test_every_backend_has_the_whole_interface(new_store):
    store = new_store()
    members = [name for name, _ in inspect.getmembers(ResultStore) if not name.startswith("_")]
    members += list(ResultStore.__annotations__)
    assert "add_match" in members and "path" in members
    missing = [name for name in members if not hasattr(store, name)]
    assert not missing, f"the store lacks {missing}"


def test_one_row_per_match_and_results_in_schedule_order(new_store):
    store = new_store()
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
    assert store.bot_source("random") == "bots/random.py"
    assert store.bot_source("nobody") is None
    assert [r["name"] for r in store.tournaments()] == ["s"]
    assert store.tournaments()[0]["done"] == len(specs)
    assert store.match_ids("s", 2) == ["s/0", "s/1"]
    assert store.games() == ["take4"]
    assert list(store.indexed_results("s"))[3] == (3, list(specs[3].seats), [1, 0])


def test_changed_definition_is_refused_naming_the_changes(new_store):
    store = new_store()
    assert register(store, tournament()) is True
    assert register(store, tournament()) is False  # same file: resume
    assert register(store, tournament(deals=5)) is True  # no match played yet: replaced
    assert json.loads(store.tournament("s")["definition"])["deals"] == 5
    t = tournament(deals=2)
    assert register(store, t) is True
    spec = schedule(t)[0]
    store.add_match(match_row(t, spec, fake_record(spec, [0, 1])))
    with pytest.raises(MallowsError) as err:
        register(store, tournament(deals=3, options={"max_rounds": 50}))
    text = str(err.value)
    assert "deals: 2 -> 3" in text and "options.max_rounds" in text and "new `name`" in text


def test_ratings_are_replaced_and_stamped(new_store):
    store = new_store()
    t = tournament()
    register(store, t)
    spec = schedule(t)[0]
    store.add_match(match_row(t, spec, fake_record(spec, [0, 1])))
    assert store.ratings_stale("tournament", "s")
    rows = [TRUESKILL.row_dict(r) for r in TRUESKILL.leaderboard(store.results("s"))]
    store.save_ratings("tournament", "s", "take4", rows, stamp=1)
    store.save_ratings("tournament", "s", "take4", rows, stamp=1)
    got = store.ratings("tournament", "s")
    assert [r["rank"] for r in got] == [1, 2] and got[0]["games"] == 1
    assert [{k: r[k] for k in rows[0]} for r in got] == rows
    assert got[0]["scope"] == "tournament" and got[0]["game"] == "take4"
    assert not store.ratings_stale("tournament", "s")
    store.add_match(match_row(t, schedule(t)[1], fake_record(schedule(t)[1], [1, 0])))
    assert store.ratings_stale("tournament", "s")  # a match more than the table covers


def test_a_readonly_store_answers_and_refuses_every_write(new_store):
    store = new_store()
    t = tournament()
    register(store, t)
    specs = schedule(t)
    store.add_match(match_row(t, specs[0], fake_record(specs[0], [0, 1])))
    store.close()
    ro = new_store(readonly=True)
    assert ro.readonly and ro.count_matches("s") == 1
    assert ro.tournament("s")["digest"] == t.digest()
    writes = [
        lambda: ro.add_match(match_row(t, specs[1], fake_record(specs[1], [0, 1]))),
        lambda: ro.add_tournament("x", "take4", "{}", "d", "", 1, {}),
        lambda: ro.mark_finished("s"),
        lambda: ro.save_ratings("tournament", "s", "take4", [], stamp=1),
    ]
    for write in writes:
        with pytest.raises(StorageError, match="read-only"):
            write()
    assert ro.count_matches("s") == 1 and ro.tournament("s")["finished"] is None


def test_a_stale_leaderboard_is_computed_in_memory_from_a_readonly_store(new_store):
    store = new_store()
    t = tournament()
    register(store, t)
    for spec in schedule(t):
        store.add_match(match_row(t, spec, fake_record(spec, [spec.index % 2, 1 - spec.index % 2])))
    store.close()
    ro = new_store(readonly=True)
    assert ro.ratings_stale("tournament", "s") and ro.ratings("tournament", "s") == []
    shown = board(ro, "tournament", "s")
    expected = TRUESKILL.leaderboard(ro.results("s"), t.ratings, bots=t.bots)
    assert [r["bot"] for r in shown] == [r.bot for r in expected]
    assert [r["mu"] for r in shown] == [r.mu for r in expected]
    assert ro.ratings("tournament", "s") == []  # shown, not written
    ro.close()
    rw = new_store()
    assert [r["mu"] for r in board(rw, "tournament", "s")] == [r.mu for r in expected]
    assert not rw.ratings_stale("tournament", "s")  # a writable store keeps it


# -- the SQLite backend's own ------------------------------------------------------------------


def test_readonly_never_changes_the_file(tmp_path):
    path = tmp_path / "m.db"
    store = Store(path)
    t = tournament()
    register(store, t)
    for spec in schedule(t):
        store.add_match(match_row(t, spec, fake_record(spec, [0, 1])))
    store.close()
    before = path.read_bytes()
    with Store(path, readonly=True) as ro:
        board(ro, "tournament", "s")
        board(ro, "game", "take4")
    assert path.read_bytes() == before
    with pytest.raises(StorageError, match="no database"):
        Store(tmp_path / "missing.db", readonly=True)
    assert not (tmp_path / "missing.db").exists()


def test_a_database_written_before_the_move_opens_read_only_and_read_write(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(DATA / "schema-v1.db", path)
    with Store(path, readonly=True) as ro:
        assert [r["name"] for r in ro.tournaments()] == ["v1-take4", "v1-arsch"]
        assert ro.count_matches("v1-take4") == 24
        rows = board(ro, "tournament", "v1-take4")
        assert len(rows) == 4 and rows == ro.ratings("tournament", "v1-take4")  # not stale
        record = json.loads(ro.match("v1-arsch/0")["record"])
        assert record["game"] == "arschmallows"
    with Store(path) as rw:
        assert rw.count_matches("v1-arsch") == 3
        assert [r["bot"] for r in board(rw, "game", "take4")] == [r["bot"] for r in rows]


def test_an_older_schema_opened_readonly_is_migrated_in_memory_only(tmp_path, monkeypatch):
    from mallows.results.store import schema  # where Store reads the migrations from

    path = tmp_path / "m.db"
    Store(path).close()
    added = []

    def _v2(db):
        added.append(True)
        db["extra"].create({"k": str}, pk="k")

    monkeypatch.setattr(schema, "MIGRATIONS", schema.MIGRATIONS + [_v2])
    monkeypatch.setattr(schema, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    before = path.read_bytes()
    with Store(path, readonly=True) as ro:
        assert ro.schema_version() == SCHEMA_VERSION + 1 and "extra" in ro.db.table_names()
    assert added and path.read_bytes() == before
    with Store(path) as rw:
        assert rw.schema_version() == SCHEMA_VERSION + 1


def test_the_bots_table_keeps_where_the_file_check_found_each_bot(tmp_path):
    from mallows.agents.registry import load_bot

    checked = check_tournament_bots(parse_tournament(dict(BASE)))  # the plan's check step
    assert checked.bot_sources == {b: load_bot(b).source for b in checked.bots}
    assert checked == tournament()  # the sources are not part of the definition
    store = Store(tmp_path / "m.db")
    register(store, checked)
    stored = dict(sqlite3.connect(tmp_path / "m.db").execute("SELECT name, source FROM bots"))
    assert stored == checked.bot_sources and all(stored.values())
