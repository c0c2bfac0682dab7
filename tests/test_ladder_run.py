"""A standing ladder run for real (SQLite, the in-process executor, submitted bots as
subprocesses): resumed after kill -9 it is the ladder that never stopped; a new version joins
at its boosted rate; a withdrawn one is no longer scheduled and stays in the standings; the
questions stop it at their certainty; stop, finals and a gauntlet; bad input exits 2."""

from __future__ import annotations

import json
import re
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows.agents.registry import Resolver
from mallows.results.store import Store
from mallows.runner.executor import InProcessExecutor
from mallows.tournaments.ladder.run import fits, prepare_ladder, read_state, run_ladder
from mallows.tournaments.ladder.spec import load_ladder, parse_ladder
from mallows.tournaments.ladder.status import ladder_view, view_text

KEY = bytes(range(32))
FIELD = ["random", "greedy", "denial", "random:call=0.9"]


def ladder_file(tmp_path: Path, body: str, name: str = "lad") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(f'name = "{name}"\ngame = "take4"\nplayers = 3\nseed = 5\n' + body)
    return path


def keyed_db(path: Path, name: str = "lad") -> Path:
    """A database holding the ladder's secret key already: two databases so keyed deal the
    very same cards."""
    with Store(path) as store:
        store.put_chance_key(name, KEY)
    return path


def state_of(db: Path, name: str = "lad") -> dict:
    with Store(db, readonly=True) as store:
        epochs = [
            {k: v for k, v in e.items() if k != "created"} for e in store.ladders.epochs(name)
        ]
        matches = sorted((i, tuple(p), tuple(r)) for i, p, r in store.indexed_results(name))
        seeds = [(i, store.match(f"{name}/{i}")["seed"]) for i, _, _ in matches]
        return {
            "epochs": epochs,
            "tables": store.ladders.tables(name),
            "matches": matches,
            "seeds": seeds,
            "standings": ladder_view(store, name)["standings"],
        }


def start_ladder(
    path: Path, db: Path, flag: str, output: int = subprocess.PIPE
) -> subprocess.Popen:
    """``mallows ladder run PATH --db DB --workers 1 FLAG`` in a session of its own; its output
    (stdout and stderr together, as text) piped, or sent to ``output``."""
    return subprocess.Popen(
        [MALLOWS, "ladder", "run", str(path), "--db", str(db), "--workers", "1", flag],
        cwd=REPO,
        stdout=output,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def test_a_ladder_resumed_after_kill_9_is_the_ladder_never_stopped(tmp_path):
    path = ladder_file(
        tmp_path,
        f"max_matches = 60\nbots = {FIELD!r}\n".replace("'", '"')
        + '[[questions]]\ntype = "order"\ncertainty = 0.99\n',
    )
    whole = keyed_db(tmp_path / "whole.db")
    ran = invoke("ladder", "run", path, "--db", whole, "--workers", "1", "--quiet")
    assert ran.exit_code == 0, ran.output
    reference = state_of(whole)
    total = len(reference["matches"])
    assert total >= 60 and len(reference["epochs"]) >= 2
    cut = keyed_db(tmp_path / "cut.db")
    proc = start_ladder(path, cut, "--quiet", output=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        stored = 0
        while time.monotonic() < deadline and proc.poll() is None:
            if cut.exists():
                with Store(cut, readonly=True) as store:
                    stored = store.count_matches("lad") if store.tournament("lad") else 0
            if stored >= total // 3:
                break
            time.sleep(0.01)
        assert proc.poll() is None, "the ladder ended before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert 0 < state_of(cut)["matches"].__len__() < total
    resumed = invoke("ladder", "run", path, "--db", cut, "--workers", "1", "--quiet")
    assert resumed.exit_code == 0, resumed.output
    assert state_of(cut) == reference


def submit(tmp_path: Path, db: Path, name: str, version: str, *extra: str):
    bot = tmp_path / f"{name}-src"
    if not bot.exists():
        shutil.copytree(REPO / "bots" / "example_python", bot)
    (bot / "version.txt").write_text(version)  # new content: a new version
    ran = invoke("bots", "submit", bot, "--name", name, "--games", "1", "--db", db, *extra)
    assert ran.exit_code == 0, ran.output
    return ran.output.strip().splitlines()[-1]


def start(tmp_path: Path, data: dict):
    db = tmp_path / "l.db"
    store = Store(db)
    store.put_chance_key(data["name"], KEY)
    resolver = Resolver(store)
    ladder = prepare_ladder(parse_ladder(data), store, resolver)
    return store, resolver, ladder


def epoch(store, resolver, ladder, **kw):
    return run_ladder(
        ladder, store, lambda snapshots: InProcessExecutor(), resolver, max_epochs=1, **kw
    )


BASE = {
    "name": "lad",
    "game": "take4",
    "players": 3,
    "seed": 3,
    "bots": FIELD[:3],
    "boost": 3,
    "max_matches": 5000,
    "limits": {"sandbox": "off"},
    "questions": [],
}


def test_a_submitted_version_joins_at_its_boosted_rate_and_a_withdrawn_one_stops(tmp_path):
    store, resolver, ladder = start(tmp_path, {**BASE, "bots": FIELD + ["random:call=0.5"]})
    epoch(store, resolver, ladder)
    shown = submit(tmp_path, store.path, "newbie", "1", "--ladder", "lad", "--sandbox", "off")
    assert shown == "newbie@1"
    assert [e["bot"] for e in store.ladders.events("lad") if e["kind"] == "join"] == ["newbie@1"]
    epoch(store, resolver, ladder)
    (first, second) = store.ladders.epochs("lad")
    assert first["newcomers"] == [] and second["newcomers"] == ["newbie@1"]
    assert "newbie@1" in second["field"]
    tables = store.ladders.tables("lad", epoch=1)
    boosted = [t for t in tables if t["reason"] == "newcomer:newbie@1"]
    base = [t for t in tables if t["reason"] == "base"]
    passes = len(base) // 2  # six bots at three seats: two tables a pass
    assert passes >= 1 and len(base) == 2 * passes
    assert len(boosted) == (ladder.boost - 1) * passes
    assert all("newbie@1" in t["bots"] for t in boosted)
    sits = {b: sum(b in t["bots"] for t in base + boosted) for b in second["field"]}
    others = [v for b, v in sits.items() if b != "newbie@1"]
    assert sits["newbie@1"] == ladder.boost * passes  # its boosted rate: boost x a field bot's
    assert sits["newbie@1"] > 1.5 * sum(others) / len(others)
    view = ladder_view(store, "lad")
    row = next(s for s in view["standings"] if s["bot"] == "newbie@1")
    assert row["matches"] > 0 and row["joined"] == 1
    # withdrawn: no table of the next epoch seats it, and it stays in the standings
    out = invoke("ladder", "withdraw", "lad", "newbie@1", "--db", store.path)
    assert out.exit_code == 0, out.output
    epoch(store, resolver, ladder)
    third = store.ladders.epochs("lad")[2]
    assert "newbie@1" not in third["field"]
    assert all("newbie@1" not in t["bots"] for t in store.ladders.tables("lad", epoch=2))
    row = next(s for s in ladder_view(store, "lad")["standings"] if s["bot"] == "newbie@1")
    assert row["status"] == "withdrawn" and row["matches"] > 0


def test_with_newest_versions_a_new_version_joins_and_the_old_one_retires(tmp_path):
    store, resolver, ladder = start(tmp_path, {**BASE, "submitted": "newest"})
    assert submit(tmp_path, store.path, "nv", "1", "--sandbox", "off") == "nv@1"
    epoch(store, resolver, ladder)
    assert "nv@1" in store.ladders.epochs("lad")[0]["field"]
    assert submit(tmp_path, store.path, "nv", "2", "--sandbox", "off") == "nv@2"
    epoch(store, resolver, ladder)
    second = store.ladders.epochs("lad")[1]
    assert "nv@2" in second["field"] and "nv@1" not in second["field"]
    assert second["newcomers"] == ["nv@2"]
    statuses = {s["bot"]: s["status"] for s in ladder_view(store, "lad")["standings"]}
    assert statuses["nv@1"] == "retired"
    # a submission withdrawn with `bots withdraw` leaves the ladder at the next epoch
    assert invoke("bots", "withdraw", "nv@2", "--db", store.path).exit_code == 0
    from mallows.tournaments.ladder.run import plan_next

    tables, why, _ = plan_next(store, read_state(store, ladder), resolver, None)
    assert tables and why == ""
    third = store.ladders.epochs("lad")[2]
    assert "nv@2" not in third["field"] and "nv@1" not in third["field"]
    assert all("nv@2" not in t.bots for t in tables)


def test_the_questions_stop_the_ladder_at_their_certainty(tmp_path):
    data = {**BASE, "bots": FIELD, "questions": [{"type": "top", "k": 1, "certainty": 0.9}]}
    store, resolver, ladder = start(tmp_path, data)
    result = run_ladder(ladder, store, lambda s: InProcessExecutor(), resolver)
    assert result.finished and result.why == "every question is answered"
    view = ladder_view(store, "lad")
    (q,) = view["questions"]
    assert q["answered"] and q["probability"] >= 0.9 and view["finished"]
    # it stopped at the first epoch that answered it: one epoch fewer left it open
    epochs = store.ladders.epochs("lad")
    assert len(epochs) >= 2
    from mallows.tournaments.ladder.questions import TopK, answer
    from mallows.results.plackett_luce import fit_history
    from mallows.tournaments.ladder.run import restrict

    before = [(p, r) for i, p, r in store.indexed_results("lad") if i < epochs[-1]["first"]]
    field = epochs[-1]["field"]
    fit = restrict(fit_history(before, bots=field), field)
    assert not answer(TopK(1, 0.9), fit).answered
    again = run_ladder(ladder, store, lambda s: InProcessExecutor(), resolver)
    assert again.played == 0 and again.finished  # answered: a rerun plays nothing


def test_finals_freeze_entries_cut_by_rank_and_end_with_a_final_table(tmp_path):
    data = {
        **BASE,
        "bots": FIELD,
        "questions": [],
        "max_matches": 5000,
        "finals": {"cutoffs": [3], "epochs": 1},
    }
    store, resolver, ladder = start(tmp_path, data)
    epoch(store, resolver, ladder)
    out = invoke("ladder", "finals", "lad", "--db", store.path)
    assert out.exit_code == 0, out.output
    late = invoke("ladder", "join", "lad", "random:call=0.2", "--db", store.path)
    assert late.exit_code == 2 and "entries are frozen" in late.output, late.output
    assert not [e for e in store.ladders.events("lad") if e["kind"] == "join"]  # not recorded
    # a join event written anyway (an older mallows recorded them) is refused when read
    store.ladders.add_event("lad", "join", "random:call=0.2", "written by hand")
    result = run_ladder(ladder, store, lambda s: InProcessExecutor(), resolver)
    assert result.finished and result.why.startswith("finals over")
    modes = [e["mode"] for e in store.ladders.epochs("lad")]
    assert modes == ["ladder", "finals:0", "finals:1"]
    stage0, stage1 = store.ladders.epochs("lad")[1:]
    assert len(stage0["field"]) == 4 and len(stage1["field"]) == 3
    state = read_state(store, ladder)
    _, fit = fits(store, state)
    view = ladder_view(store, "lad")
    out_ = [s["bot"] for s in view["standings"] if s["status"] == "eliminated"]
    assert len(out_) == 1 and out_[0] not in stage1["field"]
    assert isinstance(view["final_order_certainty"], float)
    # issue 34 item 2: the final table is the finalists' alone, in the order the certainty is of
    final = view["final_table"]
    assert sorted(r["bot"] for r in final) == sorted(stage1["field"])
    assert [r["rank"] for r in final] == [1, 2, 3]
    assert [r["rating"] for r in final] == sorted((r["rating"] for r in final), reverse=True)
    text = view_text(view).splitlines()
    at = next(i for i, line in enumerate(text) if line.startswith("final table (the finalists"))
    assert f"= {view['final_order_certainty']:.3f}" in text[at]
    table = text[at + 1 : at + 4]
    assert [line.split()[1] for line in table] == [r["bot"] for r in final]
    assert out_[0] not in [line.split()[1] for line in table]
    from mallows.report.site import Site

    html = Site(store, ladders=ladder_view).ladder_page("lad")
    page_table = html.split('id="ladder-final-table"', 1)[1].split("</table>", 1)[0]
    assert [b for b in re.findall(r'data-bot="([^"]+)"', page_table)] == [r["bot"] for r in final]
    assert all(t["reason"] == "finals:1" for t in store.ladders.tables("lad", epoch=2))
    frozen = state.entrants["random:call=0.2"]
    assert frozen.status == "refused" and "frozen" in frozen.note
    assert all("random:call=0.2" not in e["field"] for e in store.ladders.epochs("lad"))


def test_an_entrant_that_fails_the_check_is_refused_and_never_scheduled(tmp_path):
    store, resolver, ladder = start(tmp_path, {**BASE, "bots": FIELD})
    store.ladders.add_event("lad", "join", "random:call=7", "written by hand")  # no such value
    epoch(store, resolver, ladder)
    state = read_state(store, ladder)
    refused = state.entrants["random:call=7"]
    assert refused.status == "refused" and "call" in refused.note
    assert all("random:call=7" not in t["bots"] for t in store.ladders.tables("lad"))
    assert [e["kind"] for e in store.ladders.events("lad")] == ["join", "refuse"]
    assert store.count_matches("lad") == store.ladders.epochs("lad")[0]["count"] > 0


def test_a_gauntlet_seats_its_challenger_at_every_table(tmp_path):
    path = ladder_file(
        tmp_path,
        'kind = "gauntlet"\nchallengers = ["denial"]\n'
        'bots = ["random", "greedy", "random:call=0.9"]\nmax_matches = 30\n',
    )
    db = tmp_path / "g.db"
    ran = invoke("ladder", "run", path, "--db", db, "--workers", "1", "--quiet")
    assert ran.exit_code == 0, ran.output
    assert "place of denial" in ran.output
    with Store(db, readonly=True) as store:
        tables = store.ladders.tables("lad")
        assert tables and all("denial" in t["bots"] for t in tables)
        assert {b for t in tables for b in t["bots"]} == {
            "denial",
            "random",
            "greedy",
            "random:call=0.9",
        }
    status = invoke("ladder", "status", "lad", "--db", db)
    assert status.exit_code == 0 and "recent matches:" in status.output
    as_json = invoke("ladder", "status", "lad", "--db", db, "--json")
    view = json.loads(as_json.output)
    assert view["style"] == "gauntlet"
    assert [q["question"] for q in view["questions"]] == ["exact place of denial at 95%"]
    # beside the raw mean place, the fit's expected place against the whole field, explained
    assert "fit" in status.output.splitlines()[2] and "comparable between bots" in status.output
    fit_places = {s["bot"]: s["fit_place"] for s in view["standings"]}
    assert sorted(fit_places, key=fit_places.get) == [s["bot"] for s in view["standings"]]
    assert all(1.0 < p < 3.0 for p in fit_places.values())
    # the static report includes the ladder: its page and its view as JSON
    site = tmp_path / "site"
    assert invoke("report", "-o", site, "--db", db).exit_code == 0
    from mallows.report.data import slug

    page = (site / "l" / f"{slug('lad')}.html").read_text()
    assert 'id="ladder-standings"' in page and "place of denial" in page and "fit place" in page
    assert 'href="l/' in (site / "index.html").read_text()
    assert json.loads((site / "l" / f"{slug('lad')}.json").read_text())["stored"] == view["stored"]


def test_stop_ends_a_running_ladder_and_run_resumes_it(tmp_path):
    path = ladder_file(tmp_path, f"max_matches = 100000\nbots = {FIELD!r}\n".replace("'", '"'))
    db = tmp_path / "s.db"
    proc = start_ladder(path, db, "--quiet")
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if db.exists():
                with Store(db, readonly=True) as store:
                    if store.tournament("lad") and store.count_matches("lad") >= 3:
                        break
            time.sleep(0.05)
        out = invoke("ladder", "stop", "lad", "--db", db)
        assert out.exit_code == 0, out.output
        output, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 0, output
    assert "stopped (mallows ladder stop)" in output
    with Store(db, readonly=True) as store:
        assert 3 <= store.count_matches("lad") < 1000


@pytest.mark.parametrize(
    "args, words",
    [
        (["ladder", "status", "nosuch"], "no ladder 'nosuch'"),
        (["ladder", "withdraw", "lad", "nobody"], "has no entrant 'nobody'"),
        (["ladder", "finals", "lad"], "has no [finals]"),
        (["ladder", "join", "lad", "no-such-bot"], "cannot load 'no-such-bot'"),
        (["ladder", "join", "lad", "greedy"], "already an entrant"),
        (
            ["bots", "submit", str(REPO / "bots" / "example_python"), "--ladder", "nosuch"],
            "no ladder 'nosuch'",
        ),
    ],
)
def test_bad_ladder_commands_exit_2_naming_the_problem(tmp_path, args, words):
    store, resolver, ladder = start(tmp_path, {**BASE, "questions": []})
    db = store.path
    store.close()
    out = invoke(*args, "--db", db)
    assert out.exit_code == 2, out.output
    assert words in out.output
    bad = ladder_file(tmp_path, 'bots = ["random"]\n', name="bad")
    out = invoke("ladder", "run", bad, "--db", db)
    assert out.exit_code == 2 and "a table needs 3" in out.output


def test_a_changed_file_under_the_same_name_is_refused_but_a_new_cap_continues(tmp_path):
    path = ladder_file(tmp_path, f"max_matches = 6\nbots = {FIELD!r}\n".replace("'", '"'))
    db = tmp_path / "c.db"
    assert invoke("ladder", "run", path, "--db", db, "--workers", "1", "-q").exit_code == 0
    with Store(db, readonly=True) as store:
        first = store.count_matches("lad")
    path.write_text(path.read_text().replace("max_matches = 6", "max_matches = 20"))
    out = invoke("ladder", "run", path, "--db", db, "--workers", "1", "-q")
    assert out.exit_code == 0 and "max_matches (20) reached" in out.output
    with Store(db, readonly=True) as store:
        assert first < 20 <= store.count_matches("lad")
    path.write_text(path.read_text().replace("players = 3", "players = 4"))
    out = invoke("ladder", "run", path, "--db", db, "--workers", "1", "-q")
    assert out.exit_code == 2 and "players: 3 -> 4" in out.output
    assert load_ladder(path).players == 4


def test_before_its_first_epoch_a_ladders_questions_are_open(tmp_path):
    store, resolver, ladder = start(tmp_path, {**BASE, "questions": [{"type": "top", "k": 1}]})
    view = ladder_view(store, "lad")
    assert [s["bot"] for s in view["standings"]] == sorted(FIELD[:3])
    assert [q["answered"] for q in view["questions"]] == [False]
    assert view["stored"] == view["planned"] == 0 and not view["finished"]


def test_max_matches_holds_to_the_match(tmp_path):
    """Issue 34 item 6: the cap is not passed by a whole epoch: the last epoch is cut."""
    store, resolver, ladder = start(
        tmp_path, {**BASE, "max_matches": 25, "questions": [{"type": "order"}]}
    )
    result = run_ladder(ladder, store, lambda s: InProcessExecutor(), resolver)
    assert result.why == "max_matches (25) reached", result.why
    assert store.count_matches("lad") == result.stored == 25
    epochs = store.ladders.epochs("lad")
    assert len(epochs) >= 2 and sum(e["count"] for e in epochs) == 25


def test_epochs_are_numbered_alike_in_the_log_and_the_status(tmp_path):
    """Issue 34 item 4: the run's log and ``ladder status`` count epochs from 1 alike."""
    path = ladder_file(
        tmp_path,
        f"max_matches = 30\nbots = {FIELD[:3]!r}\n".replace("'", '"')
        + '[limits]\nsandbox = "off"\n[[questions]]\ntype = "order"\n',
    )
    db = keyed_db(tmp_path / "n.db")
    ran = invoke("ladder", "run", path, "--db", db, "--workers", "1")
    assert ran.exit_code == 0, ran.output
    logged = [int(n) for n in re.findall(r"^epoch (\d+): ", ran.output, re.M)]
    with Store(db, readonly=True) as store:
        count = len(store.ladders.epochs("lad"))
    assert logged == list(range(1, count + 1)), ran.output
    status = invoke("ladder", "status", "lad", "--db", db)
    assert f"· epoch {count} ·" in status.output, status.output


@pytest.mark.slow
def test_follow_wakes_for_a_join_when_nothing_was_to_play(tmp_path):
    """Issue 34 item 5: a ladder whose only question is ``newcomers``, started with nothing to
    play and following, plans an epoch for a bot that joins (a newcomer, even before the
    first epoch) and ends on ``ladder stop``."""
    path = ladder_file(
        tmp_path,
        f"max_matches = 5000\nbots = {FIELD[:3]!r}\n".replace("'", '"')
        + '[limits]\nsandbox = "off"\n'
        + '[[questions]]\ntype = "newcomers"\ncertainty = 0.95\nwithin = 1\n',
    )
    db = keyed_db(tmp_path / "f.db")
    proc = start_ladder(path, db, "--follow")
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _registered(db):
            time.sleep(0.2)
        time.sleep(3)  # more than one poll of --follow
        assert proc.poll() is None and _epochs(db) == []  # nothing to play: it waits
        joined = invoke("ladder", "join", "lad", "example_python", "--db", db)
        assert joined.exit_code == 0, joined.output
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not _epochs(db):
            time.sleep(0.2)
        epochs = _epochs(db)
        assert epochs and epochs[0]["newcomers"] == ["example_python"], epochs
        stopped = invoke("ladder", "stop", "lad", "--db", db)
        assert stopped.exit_code == 0, stopped.output
        out, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, out
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)


def _registered(db: Path) -> bool:
    if not db.exists():
        return False
    with Store(db, readonly=True) as store:
        return store.tournament("lad") is not None


def _epochs(db: Path) -> list[dict]:
    with Store(db, readonly=True) as store:
        return store.ladders.epochs("lad")


def test_a_newcomer_without_a_match_is_not_rated(tmp_path):
    """Issue 34 item 3: a bot in the field with no match yet shows no rating, no P(1st) and
    no mean place (not 0.00), and does not widen the others' intervals."""
    from mallows.tournaments.ladder.run import plan_next

    store, resolver, ladder = start(tmp_path, {**BASE, "questions": [{"type": "order"}]})
    epoch(store, resolver, ladder)
    before = {s["bot"]: (s["low"], s["high"]) for s in ladder_view(store, "lad")["standings"]}
    joined = invoke("ladder", "join", "lad", "example_python", "--db", store.path)
    assert joined.exit_code == 0, joined.output
    tables, _, _ = plan_next(store, read_state(store, ladder), resolver, "off")
    assert tables  # planned, not played: the newcomer is in the field with no match
    view = ladder_view(store, "lad")
    row = next(s for s in view["standings"] if s["bot"] == "example_python")
    assert row["matches"] == 0 and row["status"] == "newcomer"
    assert row["rating"] is None and row["mean_place"] is None and row["p_top"] == []
    assert view["standings"][-1] is row  # below every rated bot
    after = {s["bot"]: (s["low"], s["high"]) for s in view["standings"] if s["matches"]}
    assert after == before
    line = next(x for x in view_text(view).splitlines() if "example_python" in x)
    assert "no match yet" in line and "0.00" not in line
