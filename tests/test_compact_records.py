"""Compact records: stored zstd-compressed (per-game dictionaries kept in the database), read
back byte-identical through the store, `mallows replay --json` and `mallows export`; schema-1
databases migrate with every record intact."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest

from mallows.results import codec
from mallows.results.store import SCHEMA_VERSION, Store, StorageError
from mallows.runner.worker import play_job
from mallows.tournaments.run import jobs_for, match_row, register
from mallows.tournaments.roundrobin.schedule import schedule
from mallows.tournaments.roundrobin.spec import parse_tournament

from conftest import MALLOWS, REPO

V1 = REPO / "tests" / "data" / "schema-v1.db"


def v1_copy(tmp_path: Path) -> Path:
    path = tmp_path / "v1.db"
    shutil.copy(V1, path)
    return path


def plain_records(path: Path) -> dict:
    con = sqlite3.connect(path)
    try:
        return dict(con.execute("SELECT id, record FROM matches"))
    finally:
        con.close()


@pytest.mark.parametrize("train_at", [codec.TRAIN_AT, 10])
def test_schema_1_database_migrates_with_every_record_identical(tmp_path, monkeypatch, train_at):
    monkeypatch.setattr(codec, "TRAIN_AT", train_at)  # 10: Take4 (24 matches) gets a dictionary
    path = v1_copy(tmp_path)
    before = plain_records(path)
    ratings_before = (
        sqlite3.connect(path)
        .execute("SELECT scope, name, bot, mu, sigma FROM ratings ORDER BY 1, 2, 3")
        .fetchall()
    )
    assert len(before) == 27
    store = Store(path)
    assert store.schema_version() == SCHEMA_VERSION
    after = {row["id"]: row["record"] for row in store.export()}
    assert after == before  # byte for byte
    assert all(store.record(i) == text for i, text in before.items())
    assert store.match("v1-arsch/2")["record"] == before["v1-arsch/2"]
    con = sqlite3.connect(path)
    assert con.execute("SELECT COUNT(*) FROM matches WHERE record IS NOT NULL").fetchone()[0] == 0
    codecs = dict(con.execute("SELECT game, MAX(codec) FROM matches GROUP BY game"))
    assert codecs["arschmallows"] == codec.NO_DICT  # 3 records: too few to train on
    assert (codecs["take4"] > 0) == (train_at <= 24)  # a dictionary, kept in the database
    assert (
        con.execute("SELECT scope, name, bot, mu, sigma FROM ratings ORDER BY 1, 2, 3").fetchall()
        == ratings_before
    )
    store.close()
    Store(path).close()  # reopening migrates nothing more
    assert {r["id"]: r["record"] for r in Store(path).export()} == before


def test_a_game_gets_its_dictionary_and_old_records_are_reencoded(tmp_path, monkeypatch, in_repo):
    monkeypatch.setattr(codec, "TRAIN_AT", 40)
    t = parse_tournament(
        {
            "name": "z",
            "game": "arschmallows",
            "players": 4,
            "deals": 12,
            "seed": 9,
            "secret": False,  # scheduled directly, without a key
            "bots": [
                "random",
                "random:call=0.1",
                "random:call=0.2",
                "random:call=0.4",
                "random:call=0.01",
            ],
        }
    )
    store = Store(tmp_path / "z.db")
    register(store, t)
    specs = list(schedule(t))[:90]
    outcomes = [play_job(job) for job in jobs_for(t, specs)]
    texts = {}
    for start in range(0, len(specs), 7):  # batches, as a run stores them
        rows = [
            match_row(t.name, t.game, s, o)
            for s, o in zip(specs[start : start + 7], outcomes[start : start + 7])
        ]
        store.add_matches(rows)
        texts.update((r.id, r.record) for r in rows)
    con = sqlite3.connect(tmp_path / "z.db")
    assert (
        con.execute("SELECT COUNT(*) FROM dictionaries WHERE game='arschmallows'").fetchone()[0]
        == 1
    )
    assert con.execute("SELECT COUNT(*) FROM matches WHERE codec = 0").fetchone()[0] == 0
    assert {r["id"]: r["record"] for r in store.export()} == texts
    stored = con.execute("SELECT AVG(LENGTH(record_z)) FROM matches").fetchone()[0]
    plain = sum(map(len, texts.values())) / len(texts)
    assert stored < plain / 5, (stored, plain)  # the dictionary earns its keep
    # a second store on the same file reads and writes with the same dictionary
    other = Store(tmp_path / "z.db")
    assert other.record("z/3") == texts["z/3"]


def test_a_damaged_record_is_a_clear_error(tmp_path):
    path = v1_copy(tmp_path)
    Store(path).close()
    con = sqlite3.connect(path)
    con.execute("UPDATE matches SET record_z = x'00112233' WHERE id = 'v1-arsch/0'")
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="damaged"):
        Store(path).record("v1-arsch/0")


def test_export_and_replay_json_give_the_plain_records(tmp_path):
    path = v1_copy(tmp_path)
    before = plain_records(path)
    out = subprocess.run(
        [MALLOWS, "export", "--db", str(path), "--tournament", "v1-arsch"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [x["id"] for x in lines] == ["v1-arsch/0", "v1-arsch/1", "v1-arsch/2"]
    for x in lines:
        assert x["record"] == json.loads(before[x["id"]])
        assert x["players"] == x["record"]["players"]
        assert x["ranks"] == x["record"]["result"]["ranks"] and x["seed"] == x["record"]["seed"]
    every = subprocess.run(
        [MALLOWS, "export", "--db", str(path)], capture_output=True, text=True, timeout=60
    )
    assert len(every.stdout.splitlines()) == 27
    replay = subprocess.run(
        [MALLOWS, "replay", "v1-take4/5", "--db", str(path), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert json.loads(replay.stdout) == json.loads(before["v1-take4/5"])
    bad = subprocess.run(
        [MALLOWS, "export", "--db", str(path), "--tournament", "nope"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "v1-arsch" in bad.stderr and "Traceback" not in bad.stderr


def test_records_reads_decode_for_the_report(tmp_path):
    path = v1_copy(tmp_path)
    before = plain_records(path)
    store = Store(path)
    got = dict(store.records("v1-take4"))
    assert got == {k: v for k, v in before.items() if k.startswith("v1-take4/")}
    forfeits = dict(store.records("v1-arsch", only_forfeits=True))
    assert all(forfeits[k] == before[k] for k in forfeits)
