"""A ladder's unannounced checks (issue 32): now and then a check table re-checks entrants,
played as a ladder table; a bot that behaved in its check and misbehaves later is caught there
and suspended, and the check's matches never move the standings."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import REPO
from mallows.results.store import Store
from mallows.tournaments.ladder import checks
from mallows.tournaments.ladder.run import read_state
from mallows.tournaments.ladder.status import ladder_view, view_text
from test_ladder_run import BASE, FIELD, epoch, start, state_of

SLEEPER = REPO / "tests" / "hostile_bots" / "sleeper.py"


@pytest.mark.slow
def test_a_bot_that_passed_its_check_and_misbehaves_later_is_caught_and_suspended(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(checks, "RATE", 1.0)  # every epoch checked (the draw is a keyed one)
    flag = tmp_path / "flag"
    flag.write_text("sleep")
    sleeper = f"{SLEEPER}:flag={flag}"
    store, resolver, ladder = start(tmp_path, {**BASE, "bots": FIELD[:2] + [sleeper]})
    # it passed the ladder's check of its file (prepare_ladder raises otherwise); now it wakes
    flag.write_text("wake")
    epoch(store, resolver, ladder)
    state = read_state(store, ladder)
    shown = state.entrants[sleeper].shown
    view = ladder_view(store, "lad")
    assert view["checks"]["done"] == 1 and view["checks"]["matches"] == 3 * ladder.deals
    assert [f["bot"] for f in view["checks"]["failed"]] == [shown], view["checks"]
    assert "sleeper" in view["checks"]["failed"][0]["reason"]
    suspend = [e for e in store.ladders.events("lad") if e["kind"] == checks.SUSPEND]
    assert [e["bot"] for e in suspend] == [sleeper]
    text = view_text(view)
    assert "unannounced checks: 1 done" in text and "1 failed" in text, text
    assert f"{shown} failed after epoch 1 (suspended)" in text, text
    # suspended: never scheduled again (a fourth entrant keeps the table full)
    store.ladders.add_event("lad", "join", "random:call=0.9")
    epoch(store, resolver, ladder)
    state = read_state(store, ladder)
    assert state.entrants[sleeper].status == "suspended"
    later = store.ladders.tables("lad", epoch=1)
    assert later and all(shown not in t["bots"] for t in later)
    rows = {s["bot"]: s for s in ladder_view(store, "lad")["standings"]}
    assert rows[shown]["status"] == "suspended" and rows[shown]["matches"] > 0


def ladder(tmp_path: Path, rate: float, monkeypatch) -> dict:
    monkeypatch.setattr(checks, "RATE", rate)
    tmp_path.mkdir()
    store, resolver, lad = start(tmp_path, {**BASE, "bots": FIELD})
    for _ in range(2):
        epoch(store, resolver, lad)
    summary = checks.summary(store.ladders.events("lad"))
    store.close()
    state = state_of(tmp_path / "l.db")
    for e in state["epochs"]:
        e.pop("events_upto")  # the check events take sequence numbers, nothing else
    return {"state": state, "checks": summary}


def test_the_checks_matches_do_not_move_the_standings(tmp_path, monkeypatch):
    unchecked = ladder(tmp_path / "a", 0.0, monkeypatch)
    checked = ladder(tmp_path / "b", 1.0, monkeypatch)
    assert unchecked["checks"]["done"] == 0
    assert checked["checks"]["done"] == 2 and checked["checks"]["matches"] > 0
    assert not checked["checks"]["failed"]
    assert checked["state"] == unchecked["state"]
    with Store(tmp_path / "b" / "l.db", readonly=True) as store:
        assert store.count_matches("lad") == sum(t["count"] for t in store.ladders.tables("lad"))


def test_a_check_a_kill_cut_short_is_played_when_the_ladder_resumes(tmp_path, monkeypatch):
    monkeypatch.setattr(checks, "RATE", 0.0)
    store, resolver, lad = start(tmp_path, {**BASE, "bots": FIELD})
    epoch(store, resolver, lad)  # its matches stored, its check not played: as a kill leaves it
    assert checks.summary(store.ladders.events("lad"))["done"] == 0
    monkeypatch.setattr(checks, "RATE", 1.0)
    epoch(store, resolver, lad)
    events = store.ladders.events("lad")
    assert [c["epoch"] for c in checks.recorded(events)] == [0, 1]
    first = next(e["seq"] for e in events if e["kind"] == checks.EVENT)
    assert store.ladders.epochs("lad")[1]["events_upto"] >= first  # played before epoch 2
