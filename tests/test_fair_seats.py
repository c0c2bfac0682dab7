"""Schedule versions in stored tournaments and comparisons (issue 21): a new one gets the balanced
seat orders (version 2) and says so in its definition; one stored before versions existed
resumes with the schedule it was started with, its replayed matches byte-identical to the ones
it would have played; a file may name a version, and a bad one is refused."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from hypothesis import given, settings, strategies as st
from conftest import MALLOWS, REPO
from mallows.cli import app
from mallows.tournaments.compare.spec import Comparison, make_comparison
from mallows.tournaments.compare.run import run_comparison
from mallows.results.store import Store
from mallows.runner.executor import make_executor
from mallows.tournaments.seating import pair_seats
from mallows.tournaments.roundrobin.schedule import make_schedule
from typer.testing import CliRunner

runner = CliRunner()


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


# the definition of ``v1-take4`` in tests/data/schema-v1.db (written by mallows 0.1.0)
OLD_TAKE4 = """
name = "v1-take4"
game = "take4"
players = 3
deals = 2
seed = 11
bots = ["random", "greedy", "denial", "random:call=0.1"]
"""


def records(db, name: str) -> dict[str, str]:
    return {row["id"]: row["record"] for row in Store(db, readonly=True).export(tournament=name)}


def seats(db, name: str) -> dict[int, tuple]:
    con = sqlite3.connect(db)
    try:
        return {
            idx: tuple(json.loads(p))
            for idx, p in con.execute(
                "SELECT idx, players FROM matches WHERE tournament = ?", [name]
            )
        }
    finally:
        con.close()


def definition(db, name: str) -> dict:
    con = sqlite3.connect(db)
    try:
        return json.loads(
            con.execute("SELECT definition FROM tournaments WHERE name = ?", [name]).fetchone()[0]
        )
    finally:
        con.close()


def test_an_old_database_resumes_its_tournament_with_the_old_schedule(in_repo, tmp_path):
    """A real database of mallows 0.1.0 with a 3-seat tournament, its later matches gone (as
    after a kill): the same file, which names no schedule, plays the missing ones with the
    schedule of the first run, so every record is byte-identical to the one the first run
    stored. Under version 2 the deal-1 matches would be seated in the other cyclic order."""
    db = tmp_path / "old.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    toml = tmp_path / "old.toml"
    toml.write_text(OLD_TAKE4)
    first = records(db, "v1-take4")
    stored_definition = definition(db, "v1-take4")
    assert len(first) == 24 and "schedule" not in stored_definition
    con = sqlite3.connect(db)
    con.execute("DELETE FROM matches WHERE tournament = 'v1-take4' AND idx >= 4")
    con.commit()
    con.close()
    result = invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    assert "played 20 matches (4 already stored)" in result.output
    assert "started under schedule version 1" in result.output
    assert records(db, "v1-take4") == first
    assert definition(db, "v1-take4") == stored_definition  # still no version: version 1
    # the control: a new database gets the current version (3), which seats the deal-1 matches otherwise
    new_db = tmp_path / "new.db"
    assert (
        invoke("tournament", "run", toml, "--db", new_db, "--workers", "1", "--quiet").exit_code
        == 0
    )
    assert definition(new_db, "v1-take4")["schedule"] == 3
    old_seats, new_seats = seats(db, "v1-take4"), seats(new_db, "v1-take4")
    differ = {i for i in old_seats if old_seats[i] != new_seats[i]}
    bots = ["random", "greedy", "denial", "random:call=0.1"]
    expected = {s.index for s in make_schedule(bots, 3, 2, 11) if s.deal == 1}
    assert differ == expected
    for s in make_schedule(bots, 3, 2, 11, version=1):
        assert old_seats[s.index] == s.seats
    for s in make_schedule(bots, 3, 2, 11):
        assert new_seats[s.index] == s.seats


def test_a_file_naming_version_1_replays_an_old_tournament_in_a_new_database(in_repo, tmp_path):
    db = tmp_path / "again.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", tmp_path / "old.db")
    toml = tmp_path / "v1.toml"
    # ... and its seed derivation: 1, unkeyed (tournaments/README.md, "Seeds and secrecy")
    toml.write_text(OLD_TAKE4 + "schedule = 1\nchance = 1\n")
    assert invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet").exit_code == 0
    assert records(db, "v1-take4") == records(tmp_path / "old.db", "v1-take4")
    assert definition(db, "v1-take4") == definition(tmp_path / "old.db", "v1-take4")
    # a file that asks for version 2 of a tournament stored under version 1 is refused
    toml.write_text(OLD_TAKE4 + "schedule = 2\n")
    shutil.copy(tmp_path / "old.db", tmp_path / "mixed.db")
    con = sqlite3.connect(tmp_path / "mixed.db")
    con.execute("DELETE FROM matches WHERE tournament = 'v1-take4' AND idx >= 4")
    con.commit()
    con.close()
    refused = invoke("tournament", "run", toml, "--db", tmp_path / "mixed.db", "--workers", "1")
    assert refused.exit_code == 2 and "schedule: (unset) -> 2" in refused.output


@pytest.mark.parametrize(
    "value, shown", [("4", "4"), ('"2"', "'2'"), ("true", "True"), ("2.0", "2.0")]
)
def test_a_bad_schedule_version_is_refused(in_repo, tmp_path, value, shown):
    toml = tmp_path / "bad.toml"
    toml.write_text(OLD_TAKE4 + f"schedule = {value}\n")
    result = invoke("tournament", "run", toml, "--db", tmp_path / "x.db", "--workers", "1")
    assert result.exit_code == 2, result.output
    assert "`schedule` must be one of 1, 2, 3" in result.output and f"got {shown}" in result.output
    assert "Traceback" not in result.output and not (tmp_path / "x.db").exists()


def test_an_old_comparison_resumes_with_its_old_pairs(in_repo, tmp_path):
    """A 3-seat comparison stored before versions existed (made here with version 1, whose
    definition is byte-for-byte the old one) and capped: the same command with a larger cap
    finds it under the same default name and goes on with version 1's seats."""
    db = tmp_path / "c.db"
    opponents = ["denial", "random:call=0.2", "random:call=0.5"]
    new = make_comparison(
        "greedy", "random", game="take4", players=3, max_matches=40, opponents=opponents
    )
    old = Comparison(**{**new.__dict__, "schedule": 1})
    assert "schedule" not in old.definition() and new.definition()["schedule"] == 3
    with make_executor(1, None) as executor:
        run_comparison(old, Store(db), executor)
    assert "schedule" not in definition(db, new.name)
    command = [
        "compare",
        "greedy",
        "random",
        "--game",
        "take4",
        "--players",
        "3",
        "--opponents",
        ",".join(opponents),
        "--max-matches",
        "80",
        "--workers",
        "1",
    ]
    result = invoke(*command, "--db", db)
    assert result.exit_code == 3, result.output  # no verdict in 40 pairs at delta 0.1
    stored = seats(db, new.name)
    assert len(stored) == 80 and "schedule" not in definition(db, new.name)
    for index, seating in stored.items():
        p, who = divmod(index, 2)
        tested = ("greedy", "random")[who]
        assert seating == pair_seats(tested, opponents, 3, p, 1), index
    # a new database: version 2's seats (they differ from version 1's on some pairs)
    fresh = tmp_path / "fresh.db"
    result = invoke(*command, "--db", fresh)
    assert result.exit_code == 3, result.output
    assert definition(fresh, new.name)["schedule"] == 3
    fresh_seats = seats(fresh, new.name)
    for index, seating in fresh_seats.items():
        p, who = divmod(index, 2)
        assert seating == pair_seats(("greedy", "random")[who], opponents, 3, p, 3)
    assert any(fresh_seats[i] != stored[i] for i in fresh_seats if i in stored)


def test_the_console_script_runs_a_balanced_tournament(tmp_path):
    import subprocess

    toml = tmp_path / "b.toml"
    toml.write_text(OLD_TAKE4.replace("v1-take4", "b"))
    db = tmp_path / "b.db"
    run = subprocess.run(
        [MALLOWS, "tournament", "run", str(toml), "--db", str(db), "--workers", "1", "--quiet"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        cwd=REPO,
    )
    assert run.returncode == 0, run.stderr
    assert definition(db, "b")["schedule"] == 3
    shown = invoke("tournament", "show", "b", "--db", db)
    assert shown.exit_code == 0 and "seed 11 · schedule 3 · 24/24 matches" in shown.output
    bots = ["random", "greedy", "denial", "random:call=0.1"]
    assert seats(db, "b") == {s.index: s.seats for s in make_schedule(bots, 3, 2, 11)}


# -- seat effects in the results (issue 21, item 4) --------------------------------------------


def test_seat_effect_treats_the_deal_as_the_unit():
    from mallows.results.seats import deal_of, seat_effects
    from mallows.results.stats import place_stats

    # two deals, each in its 3 rotations: seat 0 always first on deal 0, last on deal 1
    results = []
    for deal, order in ((0, (0, 1, 2)), (1, (2, 1, 0))):
        for r in range(3):
            bots = ("a", "b", "c")[r:] + ("a", "b", "c")[:r]
            results.append((deal, bots, list(order)))
    effect = seat_effects(results)[3]
    assert effect.deals == 2 and effect.matches == 6
    assert [s.mean for s in effect.seats] == [2.0, 2.0, 2.0] and effect.spread == 0.0
    # a seat that wins every deal: spread 2 places; the interval spans the deals, not matches
    many = [
        (d, ("a", "b", "c")[r:] + ("a", "b", "c")[:r], [0, 1 + d % 2, 2 - d % 2])
        for d in range(40)
        for r in range(3)
    ]
    e = seat_effects(many)[3]
    assert e.seats[0].mean == 1.0 and e.seats[1].mean == e.seats[2].mean == 2.5
    assert e.spread == 1.5 and e.seats[0].half_width == 0.0
    naive = place_stats([(("x",), [rank]) for _, _, ranks in many for rank in ranks[1:2]])
    assert e.seats[1].half_width > naive["x"].half_width  # 3 rotations, one deal: one unit
    assert "seat 0 1.00 ± 0.00" in e.text() and "spread 1.50 places" in e.text()
    assert deal_of({"players": 4}, 11) == 2 and deal_of({"kind": "compare", "players": 4}, 5) == 2


def test_tournament_show_and_the_report_give_the_seat_effect(in_repo, tmp_path):
    from mallows.results.seats import deal_of, seat_effects
    from mallows.results.stats import seat_stats

    db = tmp_path / "old.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    shown = invoke("tournament", "show", "v1-take4", "--db", db)
    assert shown.exit_code == 0, shown.output
    said = " ".join(shown.output.split())  # the caption may be wrapped (COLUMNS)
    assert "mean place by seat" in said and "seat effect of take4 at 3 seats" in said
    assert "seed 11 · schedule 1 · 24/24 matches" in shown.output  # stored before versions
    store = Store(db, readonly=True)
    indexed = [(deal_of({"players": 3}, i), p, r) for i, p, r in store.indexed_results("v1-take4")]
    effect = seat_effects(indexed)[3]
    row = next(line for line in shown.output.splitlines() if line.startswith("every bot"))
    assert row.split()[2:] == [x for c in effect.seats for x in c.text().split()]
    greedy = next(line for line in shown.output.splitlines() if line.startswith("greedy "))
    cells = seat_stats((p, r) for _, p, r in indexed)["greedy"]
    assert greedy.split()[1:] == [x for s in range(3) for x in cells[s].text().split()]
    assert f"over {effect.deals:,} deals" in said and effect.deals == 8
    site = tmp_path / "site"
    assert invoke("report", "--db", db, "--out", site).exit_code == 0
    page = (site / "g" / "take4.html").read_text()
    assert "<h2>Seat effect</h2>" in page
    assert all(f">{c.text()}</td>" in page for c in effect.seats)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 4), st.integers(2, 4), st.randoms(use_true_random=False)),
        min_size=1,
        max_size=30,
    )
)
def test_a_grouped_seat_effect_holds_one_deal_and_gives_the_same_figures(deals):
    """Read by index (every deal's matches together), the seat effect folds each finished deal
    into running totals: the same means and intervals as over every deal held at once, with
    at most one deal open per seat (memory flat in the deals)."""
    from mallows.results.seats import seat_effects
    from mallows.results.stats import Z95

    results = []
    for d, (rotations, seats, rng) in enumerate(deals):
        for _ in range(rotations):
            ranks = list(range(seats))
            rng.shuffle(ranks)
            results.append((d, tuple("abcd"[:seats]), ranks))
    held, grouped = seat_effects(results), seat_effects(results, grouped=True)
    assert held.keys() == grouped.keys()
    for k in held:
        for a, b in zip(held[k].seats, grouped[k].seats):
            assert (a.matches, a.deals, a.mean) == (b.matches, b.deals, b.mean)
            assert (a.half_width is None) == (b.half_width is None)
            assert a.half_width == pytest.approx(b.half_width or 0, rel=1e-12, abs=1e-12) or (
                a.half_width is None
            )
            assert a.text() == b.text() and len(b.counts) <= 1
    for k, effect in held.items():  # the interval as defined: sum_d (S_d - mean n_d)^2
        sums: dict[int, list[int]] = {}
        for d, players, ranks in results:
            if len(players) == k:
                sums.setdefault(d, [0, 0])
                sums[d][0] += ranks[0] + 1
                sums[d][1] += 1
        n, mean = sum(c for _, c in sums.values()), effect.seats[0].mean
        spread = sum((s - mean * c) ** 2 for s, c in sums.values())
        want = None if len(sums) < 2 else Z95 * (len(sums) / (len(sums) - 1) * spread) ** 0.5 / n
        got = effect.seats[0].half_width
        assert got == want if want is None else got == pytest.approx(want, rel=1e-9, abs=1e-12)
