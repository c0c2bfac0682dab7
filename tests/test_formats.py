"""Tournament formats (``mallows.tournaments.format``): every registered format loads and is
what the plan and the run loop call, a spec holds data and its format does the work, and a new
format is its module plus one line in ``FORMATS``: the toy king of the hill of this tree
(``toy_format``, an epoch format) registered by that line is checked, registered, pinned, planned
epoch after epoch from its stored results and resumed after a kill, by the shared core alone."""

from __future__ import annotations

import ast
import inspect

import pytest

from mallows.errors import TournamentError
from mallows.results.store import Store
from mallows.runner.executor import InProcessExecutor
from mallows.tournaments import format as formats
from mallows.tournaments.compare.spec import Comparison
from mallows.tournaments.format import EpochFormat, Format, get_format, kind_of
from mallows.tournaments.ladder.spec import Ladder
from mallows.tournaments.plan import prepare
from mallows.tournaments.roundrobin.spec import Tournament
from mallows.tournaments.run import execute, run_epochs
from mallows.tournaments.swiss.spec import Swiss

import toy_format
from conftest import REPO

SPECS = {"tournament": Tournament, "compare": Comparison, "ladder": Ladder, "swiss": Swiss}
#: what a spec used to do itself and its format does now
SERVICES = ("register", "with_chance", "check_bots", "schedule_for", "settle")


@pytest.mark.parametrize("kind", sorted(formats.FORMATS))
def test_every_registered_format_loads_and_is_its_kind(kind):
    fmt = get_format(kind)
    assert isinstance(fmt, Format) and fmt.kind == kind
    package = formats.FORMATS[kind].split(".")
    assert package[:2] == ["mallows", "tournaments"] and package[-1] == "format"
    assert (REPO / "platform" / "/".join(package[:-1]) / "__init__.py").exists()
    assert SPECS[kind].kind == kind  # the spec names its format


def test_an_unknown_format_is_refused_naming_the_known_ones():
    with pytest.raises(TournamentError, match="unknown format 'knockout'.*compare, ladder"):
        get_format("knockout")
    assert kind_of({"name": "t"}) == "tournament" and kind_of({"kind": "ladder"}) == "ladder"


@pytest.mark.parametrize("kind", sorted(SPECS))
def test_a_spec_holds_data_and_its_format_does_the_work(kind):
    cls = SPECS[kind]
    kept = [name for name in SERVICES if hasattr(cls, name)]
    assert not kept, f"{cls.__name__} still has the services {kept}: they belong to its format"
    # no method of the data class is handed a store, a resolver or a sandbox
    tree = ast.parse(inspect.getsource(cls))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            args = {a.arg for a in node.args.args + node.args.kwonlyargs}
            assert not args & {"store", "resolver", "sandbox"}, f"{cls.__name__}.{node.name}"


def hill(name: str = "hill", rounds: int = 4) -> toy_format.Hill:
    return toy_format.Hill(
        name=name,
        game="take4",
        bots=("random", "greedy", "random:call=0.2"),
        seed=7,
        rounds=rounds,
        limits={"sandbox": "off"},
    )


def stored(db) -> list:
    store = Store(db, readonly=True)
    try:
        return list(store.indexed_results("hill"))
    finally:
        store.close()


def test_a_new_format_joins_with_one_line_and_runs_on_the_shared_core(tmp_path, monkeypatch):
    with pytest.raises(TournamentError, match="unknown format 'hill'"):
        prepare(hill(), Store(tmp_path / "none.db"))
    monkeypatch.setitem(formats.FORMATS, "hill", "toy_format")  # the one line
    assert isinstance(get_format("hill"), EpochFormat)

    db = tmp_path / "whole.db"
    store = Store(db)
    plan = prepare(hill(), store)
    assert plan.kind == "hill" and len(plan.schedule) == 2  # the first epoch only
    summary = run_epochs(plan, store, InProcessExecutor())
    assert summary.played == 8 and not summary.stopped
    row = store.tournament("hill")
    assert row["finished"] and kind_of(__import__("json").loads(row["definition"])) == "hill"
    store.close()
    whole = stored(db)
    assert [i for i, _, _ in whole] == list(range(8))
    # every epoch seats the holder the stored results gave the hill to
    results = {i: (players, ranks) for i, players, ranks in whole}
    planned = toy_format.pairs(hill().bots, results, 4)
    for e, (holder, challenger) in enumerate(planned):
        assert set(results[2 * e][0]) == set(results[2 * e + 1][0]) == {holder, challenger}

    # killed after its first epoch, then run again: the very matches of the whole run
    db = tmp_path / "killed.db"
    store = Store(db)
    first = prepare(hill(), store)
    execute(first, store, InProcessExecutor())
    store.close()
    assert len(stored(db)) == 2
    store = Store(db)
    again = run_epochs(prepare(hill(), store), store, InProcessExecutor())
    store.close()
    assert again.already == 2 and again.played == 6
    assert stored(db) == whole
    # and once done, a rerun plays nothing
    store = Store(db)
    assert run_epochs(prepare(hill(), store), store, InProcessExecutor()).played == 0
    store.close()


def test_a_format_that_plans_no_epochs_is_not_run_as_one(tmp_path):
    from mallows.tournaments.roundrobin.spec import parse_tournament

    t = parse_tournament(
        {
            "name": "t",
            "game": "take4",
            "players": 2,
            "deals": 1,
            "seed": 1,
            "bots": ["random", "greedy"],
        }
    )
    store = Store(tmp_path / "t.db")
    plan = prepare(t, store)
    with pytest.raises(TypeError, match="plans no epochs"):
        run_epochs(plan, store, InProcessExecutor())
    store.close()


def test_execute_stops_where_the_formats_stop_rule_decides(tmp_path, in_repo):
    from mallows.tournaments.compare.spec import make_comparison

    c = make_comparison("greedy", "random", game="take4", players=2, delta=0.3, max_matches=400)
    store = Store(tmp_path / "c.db")
    plan = prepare(c, store)
    # no stop rule given: the comparison's own (its sequential test) ends the run at its verdict
    summary = execute(plan, store, InProcessExecutor())
    assert summary.stopped and 0 < summary.played < plan.total
    store.close()
