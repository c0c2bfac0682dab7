"""A report's boards as one fold, kept beside the report so its next run rates only the new
matches (issue 35, item 4): a fold stopped anywhere and continued from its JSON state is the
fold of everything, figure for figure; the fold is the platform's own pure tables; and a rerun
over a report is byte for byte a report from scratch whatever happened to the database or to
the kept state in between."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from mallows.report import board_cache, fold
from mallows.report.data import slug
from mallows.report.fold import MAX_POINTS, BoardFold, step
from mallows.results.ratings import head_to_head, leaderboard
from mallows.results.seats import deal_of, seat_effects
from mallows.results.stats import place_stats, seat_stats
from report_helpers import make_db

BOTS = ["a", "b", "c", "d", "human"]
DEFINITIONS = {"t1": {"players": 3}, "t2": {"kind": "compare"}}


@st.composite
def stored_results(draw):
    """Results as ``rated_rows`` gives them: (tournament, index, players, ranks), indexes
    rising within each tournament, 2-4 seats, competition ranks with ties."""
    out = []
    for tournament in ("t1", "t2"):
        for index in range(draw(st.integers(0, 40))):
            k = draw(st.integers(2, 4))
            players = draw(st.lists(st.sampled_from(BOTS), min_size=k, max_size=k))
            scores = draw(st.lists(st.integers(0, 2), min_size=k, max_size=k))
            ranks = [sum(s > mine for s in scores) for mine in scores]
            out.append((tournament, index, players, ranks))
    return out


def _fold(rows, humans: bool, stop: int | None = None) -> BoardFold:
    """One fold over ``rows``; with ``stop``: stopped there, its state through JSON, and a
    new fold from that state goes on with the rest."""
    params = {"mu": 25.0, "sigma": 25 / 3, "beta": 25 / 6, "tau": 0.0, "draw_probability": 0.02}
    f = BoardFold(params, DEFINITIONS, humans)
    for i, row in enumerate(rows):
        if i == stop:
            state = json.loads(json.dumps(f.state()))
            f = BoardFold.from_state(state, params, DEFINITIONS, humans)
        f.add(*row)
    return f


def _figures(f: BoardFold) -> tuple:
    effects = {
        k: (e.matches, e.deals, [(m.mean, m.half_width) for m in e.seats])
        for k, e in f.effects.effects().items()
    }
    return (f.rows(), f.h2h.table(), f.progression(), f.seats, effects, f.number)


#: After these four results ``a``'s mu and sigma, read back from its rating (which keeps pi and
#: tau), make a rating one bit off: a state that kept them resumed the fifth result wrongly.
ROUND_TRIP = [
    ("t1", i, p, r)
    for i, (p, r) in enumerate(
        [(["c", "a"], [0, 0]), (["a", "b"], [0, 0]), (["a", "a"], [0, 0]), (["b", "a"], [0, 0])]
        + [(["a", "c"], [0, 1])]
    )
]


@settings(max_examples=60, deadline=None)
@given(stored_results(), st.integers(0, 90), st.booleans())
@example(ROUND_TRIP, 4, False)
def test_a_fold_stopped_anywhere_and_continued_from_its_state_is_the_whole_fold(rows, stop, humans):
    assert _figures(_fold(rows, humans, stop)) == _figures(_fold(rows, humans))


@settings(max_examples=60, deadline=None)
@given(stored_results())
def test_the_fold_is_the_platforms_own_tables(rows):
    """Every table of the fold is what the pure functions give over the same results (a game's
    board leaves people's matches out, as ``results`` reads it)."""
    f = _fold(rows, humans=False)
    kept = [(t, i, p, r) for t, i, p, r in rows if "human" not in p]
    plain = [(p, r) for _, _, p, r in kept]
    assert f.places == place_stats(plain) and f.seats == seat_stats(plain)
    assert f.h2h.table() == head_to_head(plain)
    assert [(r.bot, r.mu, r.sigma) for r in f.rater.rows()] == [
        (r.bot, r.mu, r.sigma) for r in leaderboard(plain)
    ]
    pure = seat_effects(
        (((t, deal_of(DEFINITIONS[t], i)), p, r) for t, i, p, r in kept), grouped=True
    )
    got = f.effects.effects()
    assert got.keys() == pure.keys()
    for k in pure:
        assert [(m.mean, m.half_width, m.deals) for m in got[k].seats] == [
            (m.mean, m.half_width, m.deals) for m in pure[k].seats
        ]


@pytest.mark.parametrize("matches", [1, 2, 299, 300, 301, 600, 601, 1234, 5000])
def test_a_progression_keeps_every_step_th_point_and_the_last(matches):
    """``step(n)`` is the least power of two at which n matches make at most MAX_POINTS
    points; a bot shows those points and the one after its last match, no more."""
    s = step(matches)
    assert s & (s - 1) == 0 and -(-matches // s) <= MAX_POINTS
    assert s == 1 or -(-matches // (s // 2)) > MAX_POINTS
    f = _fold([("t1", i, ["a", "b"], [i % 2, 1 - i % 2]) for i in range(matches)], True)
    numbers = [n for n, _, _ in f.progression()["a"]]
    wanted = sorted({k + 1 for k in range(0, matches, s)} | {matches})
    assert numbers == wanted and len(numbers) <= MAX_POINTS + 1


# -- a report over a report --------------------------------------------------------------------
TAKE4 = "take4-small"  # 12 matches; the other tournament: arsch-small


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return make_db(tmp_path_factory.mktemp("boards"))


@pytest.fixture
def folded(monkeypatch) -> list[str]:
    """Each row folded, by its tournament."""
    seen: list[str] = []
    real = fold.BoardFold.add

    def counted(self, tournament, index, players, ranks):
        seen.append(tournament)
        return real(self, tournament, index, players, ranks)

    monkeypatch.setattr(fold.BoardFold, "add", counted)
    return seen


def _report(db, out) -> None:
    from mallows.report.site import Site
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        Site(store, replay_data=True).write(out)


def _tree(folder) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def _copy(db, folder, name, sql: str = "", args: tuple = ()):
    copy = folder / name
    shutil.copy(db, copy)
    con = sqlite3.connect(copy)
    with con:
        if sql:
            con.execute(sql, args)
    con.close()
    return copy


def _restored(db, folder, name: str, match: str, ranks: list[int]):
    """A copy of ``db`` with ``match`` stored again with other ranks (in its record too,
    under its own digest: a match stored anew, not a damaged one)."""
    from mallows.results.integrity import record_digest
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        record = json.loads(store.match(match)["record"])
    record["result"]["ranks"] = ranks
    text = json.dumps(record)
    copy = _copy(db, folder, name)
    con = sqlite3.connect(copy)
    with con:
        (players,) = con.execute("SELECT players FROM matches WHERE id = ?", [match]).fetchone()
        con.execute(
            "UPDATE matches SET ranks = ?, record = ?, record_z = NULL, codec = NULL, digest = ? "
            "WHERE id = ?",
            [json.dumps(ranks), text, record_digest(text, players, json.dumps(ranks)), match],
        )
    con.close()
    return copy


def test_a_rerun_folds_only_the_new_matches_and_is_a_report_from_scratch(db, tmp_path, folded):
    out, scratch = tmp_path / "site", tmp_path / "scratch"
    first = _copy(
        db,
        tmp_path,
        "first-7.db",
        "DELETE FROM matches WHERE tournament = ? AND idx >= 7",
        (TAKE4,),
    )
    _report(first, out)
    assert folded.count(TAKE4) == 2 * 7  # the tournament's board and the game's
    arsch = len(folded) - folded.count(TAKE4)
    assert arsch > 0
    del folded[:]
    _report(db, out)
    assert folded == [TAKE4] * 2 * 5  # 5 new matches, on each of its two boards; arsch: none
    kept = json.loads((out / board_cache.path("tournament", TAKE4)).read_text())
    assert kept["rows"] == 12 and (out / board_cache.path("game", "take4")).is_file()
    del folded[:]
    _report(db, scratch)
    assert len(folded) == 2 * 12 + arsch
    assert _tree(out) == _tree(scratch)
    del folded[:]
    _report(db, out)  # nothing new: nothing folded, the same site
    assert folded == [] and _tree(out) == _tree(scratch)


@pytest.mark.parametrize(
    "change",
    ["an earlier match's result", "a match stored between older ones", "a match deleted"],
)
def test_a_changed_past_is_folded_from_the_first_match(db, tmp_path, folded, change):
    out, scratch = tmp_path / "site", tmp_path / "scratch"
    if change == "a match stored between older ones":  # the report saw 0-11 without 4
        seen = _copy(db, tmp_path, "seen.db", "DELETE FROM matches WHERE id = ?", (f"{TAKE4}/4",))
        now = db
    elif change == "an earlier match's result":
        seen, now = db, _restored(db, tmp_path, "now.db", f"{TAKE4}/3", [2, 1, 0])
    else:
        seen = db
        now = _copy(db, tmp_path, "now.db", "DELETE FROM matches WHERE id = ?", (f"{TAKE4}/3",))
    _report(seen, out)
    del folded[:]
    _report(now, out)
    assert folded.count(TAKE4) == 2 * (12 if change != "a match deleted" else 11)
    _report(now, scratch)
    assert _tree(out) == _tree(scratch)


@pytest.mark.parametrize(
    "spoil",
    [
        "not JSON",
        "a list",
        "another key",
        "more rows than stored",
        "a state of strings",
        "a state without its rater",
        "a hash of other rows",
        "gone",
    ],
)
def test_nothing_unsure_is_gone_on_from(db, tmp_path, folded, spoil):
    """A kept state that does not read, belongs to another board or version, or does not
    match the stored rows: the board is folded from its first match and the site is the
    same as a report from scratch; never an error."""
    out, scratch = tmp_path / "site", tmp_path / "scratch"
    _report(db, out)
    _report(db, scratch)
    kept = out / board_cache.path("tournament", TAKE4)
    state = json.loads(kept.read_text())
    spoiled = {
        "not JSON": '{"key": ',
        "a list": "[]",
        "another key": json.dumps(dict(state, key="0" * 32)),
        "more rows than stored": json.dumps(dict(state, rows=13)),
        "a state of strings": json.dumps(dict(state, state={k: "x" for k in state["state"]})),
        "a state without its rater": json.dumps(
            dict(state, state={k: v for k, v in state["state"].items() if k != "rater"})
        ),
        "a hash of other rows": json.dumps(dict(state, chain="0" * 32)),
        "gone": None,
    }[spoil]
    if spoiled is None:
        kept.unlink()
    else:
        kept.write_text(spoiled)
    del folded[:]
    _report(db, out)
    assert folded.count(TAKE4) == 12 + 0  # its tournament board again; the game's went on
    assert _tree(out) == _tree(scratch)


def test_the_kept_state_names_its_board(db, tmp_path):
    """One file per board, named by the tournament's slug or the game, in ``cache/``."""
    out = tmp_path / "site"
    _report(db, out)
    names = sorted(p.name for p in (out / "cache").iterdir())
    assert names == sorted(
        [f"t-{slug('arsch-small')}.json", f"t-{slug(TAKE4)}.json"]
        + [f"g-{slug(g)}.json" for g in ("arschmallows", "take4")]
    )
