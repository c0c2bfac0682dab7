"""One rating seam: TrueSkill (online, in schedule order, the default) and the whole-history
Plackett-Luce fit are both ``RatingSystem``s found by name (``ratings.system``); ``mallows
ratings --system trueskill|plackett-luce`` shows either, and the report's leaderboard and bot
pages draw whatever columns the system names (the templates write none by hand)."""

from __future__ import annotations

import csv
import io
import json
import random

import pytest

from conftest import field_results, invoke
from mallows.results.history_rating import PLACKETT_LUCE
from mallows.results.interface import RatingSystem
from mallows.results.plackett_luce import fit_history
from mallows.results.ratings import SYSTEMS, TRUESKILL, system


def results(n: int = 40, seed: int = 5) -> list:
    return field_results(n, seed)


def test_both_systems_are_found_by_name_and_trueskill_is_the_default():
    assert list(SYSTEMS) == ["trueskill", "plackett-luce"]
    assert system() is TRUESKILL and system("trueskill") is TRUESKILL
    assert system("plackett-luce") is PLACKETT_LUCE
    assert (TRUESKILL.kind, PLACKETT_LUCE.kind) == ("online", "history")
    with pytest.raises(ValueError, match="no rating system 'elo': choose trueskill or plackett"):
        system("elo")
    members = [n for n in RatingSystem.__annotations__] + [
        n for n in vars(RatingSystem) if not n.startswith("_")
    ]
    for found in SYSTEMS.values():
        lacking = [m for m in members if not hasattr(found, m)]
        assert not lacking, f"{found.name} lacks {lacking}"
        keys = {c.key for c in found.columns}
        row = found.row_dict(found.leaderboard(results())[0])
        assert keys <= set(row) and set(found.stored) <= keys


def test_the_history_system_is_the_fit_whatever_the_order():
    res = results()
    rows = PLACKETT_LUCE.leaderboard(res)
    assert [r.bot for r in rows] == fit_history(res).order() == ["strong", "mid", "weak", "worst"]
    shuffled = list(res)
    random.Random(2).shuffle(shuffled)
    assert PLACKETT_LUCE.leaderboard(shuffled) == rows
    rater = PLACKETT_LUCE.rater()
    for index, (players, ranks) in enumerate(res):
        rater.add(index, players, ranks)
        rater.add(index, players, ranks)  # an index seen twice counts once
    assert rater.rated == len(res) and rater.rows() == rows
    assert sum(r.wins for r in rows) == len(res) and rows[0].rank_low >= 1
    assert rater.leader() == ("strong", rows[0].rating)


def test_the_history_systems_parameters_are_checked():
    assert PLACKETT_LUCE.check_params({}) == {"prior_sd": 3.0}
    wide = PLACKETT_LUCE.leaderboard(results(6), {"prior_sd": 30.0})
    narrow = PLACKETT_LUCE.leaderboard(results(6), {"prior_sd": 0.3})
    assert abs(wide[0].rating) > abs(narrow[0].rating)  # the prior pulls toward the mean
    with pytest.raises(ValueError, match="`ratings.prior_sd` must be above 0"):
        PLACKETT_LUCE.check_params({"prior_sd": 0})
    with pytest.raises(ValueError, match="unknown key `ratings.mu`"):
        PLACKETT_LUCE.check_params({"mu": 1})


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("systems")
    toml = folder / "t.toml"
    toml.write_text(
        'name = "t"\ngame = "take4"\nplayers = 3\ndeals = 3\nseed = 4\n'
        'bots = ["greedy", "random", "random:call=0.5", "denial"]\n'
    )
    path = folder / "r.db"
    assert (
        invoke("tournament", "run", toml, "--db", path, "--workers", "1", "--quiet").exit_code == 0
    )
    return path


def test_ratings_shows_either_system(db):
    default = invoke("ratings", "--db", db, "--format", "json")
    named = invoke("ratings", "--db", db, "--format", "json", "--system", "trueskill")
    assert default.exit_code == named.exit_code == 0 and default.output == named.output
    assert {"mu", "sigma", "conservative"} <= set(json.loads(default.output)[0])

    fitted = invoke("ratings", "--db", db, "--format", "json", "--system", "plackett-luce")
    assert fitted.exit_code == 0, fitted.output
    rows = json.loads(fitted.output)
    assert {"rating", "sd", "low", "high", "ranks"} <= set(rows[0]) and "mu" not in rows[0]
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        expected = fit_history(list(store.results(game="take4"))).order()
    assert [r["bot"] for r in rows] == expected
    assert all(r["low"] <= r["rating"] <= r["high"] for r in rows)

    table = invoke("ratings", "--db", db, "--system", "plackett-luce", "--tournament", "t")
    assert table.exit_code == 0, table.output
    assert "t (take4) · plackett-luce" in table.output and "ranks" in table.output
    out = invoke("ratings", "--db", db, "--system", "plackett-luce", "--format", "csv").output
    header = next(csv.reader(io.StringIO(out)))
    assert header[:6] == ["scope", "name", "rank", "bot", "rating", "sd"]
    md = invoke("ratings", "--db", db, "--system", "plackett-luce", "--format", "markdown")
    assert "| rank | bot | rating | sd |" in md.output

    bad = invoke("ratings", "--db", db, "--system", "elo")
    assert bad.exit_code == 2
    assert "--system 'elo': no rating system 'elo': choose trueskill or plackett-luce" in bad.output


def test_the_report_draws_the_columns_its_system_names(db):
    from mallows.report import data
    from mallows.report.site import _env
    from mallows.results.stats import PlaceStats

    macros = _env().get_template("macros.html").module
    rows = [
        dict(PLACKETT_LUCE.row_dict(r), matches=r.matches, place=PlaceStats())
        for r in PLACKETT_LUCE.leaderboard(results())
    ]
    board = data.Board(
        "game",
        "g",
        "take4",
        rows,
        {},
        {},
        40,
        columns=data.rating_columns(PLACKETT_LUCE),
        sorted_by=PLACKETT_LUCE.sorted_by,
    )
    html = str(macros.leaderboard(board, "/"))
    assert ">rating</th>" in html and ">ranks</th>" in html and ">mu<" not in html
    assert f'data-sort="{rows[0]["rating"]}">{rows[0]["rating"]:.2f}<' in html
    # the default board: TrueSkill's columns, as they always were
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        shown = data.board(store, "game", "take4")
    html = str(macros.leaderboard(shown, "/"))
    assert ">mu</th>" in html and ">sigma</th>" in html
    assert 'title="mu - 3 sigma: the conservative rating the table sorts by">mu − 3σ<' in html
    assert shown.sorted_by == "mu − 3σ"


def test_the_progression_is_the_online_raters_estimate_named_by_its_system(db):
    from mallows.report import data
    from mallows.results.ratings import Rater
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        shown = data.board(store, "game", "take4")
        results = list(store.results(game="take4"))
    assert shown.estimate == TRUESKILL.estimate == ("TrueSkill mu", "sigma")
    rater = Rater()
    for players, ranks in results:
        rater.add(None, players, ranks)
    last = {bot: points[-1][1:] for bot, points in shown.progression.items()}
    assert last == {bot: rater.estimate(bot) for bot in last}
