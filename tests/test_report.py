"""``mallows report``: every page exists, the leaderboard is ``mallows ratings``', the replay
data files hold every match with a frame per event of its record (and ``--replay-pages`` a page
per match, as before), and the replay frames follow the record."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from typer.testing import CliRunner

from conftest import MALLOWS, REPO
from report_helpers import cli_json, data_matches, make_db, page_frames, stored_record
from mallows.cli import app
from mallows.report.data import short_bot, slug
from mallows.report.frames import ReplayMismatch, frames, seen


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    db = make_db(folder)
    out = folder / "site"
    proc = subprocess.run(
        [MALLOWS, "report", "--db", str(db), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert proc.returncode == 0, proc.stderr
    assert "index.html" in proc.stdout
    return db, out


def test_every_page_exists(site):
    db, out = site
    index = (out / "index.html").read_text()
    for name in ("arsch-small", "take4-small"):
        page = out / "t" / f"{slug(name)}.html"
        assert page.is_file() and f"t/{slug(name)}.html" in index
        board = json.loads(
            subprocess.run(
                [MALLOWS, "ratings", "--db", str(db), "--tournament", name, "--format", "json"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for row in board:
            bot_page = out / "b" / f"{slug(row['bot'])}.html"
            assert bot_page.is_file(), row["bot"]
            assert f"b/{slug(row['bot'])}.html" in index
        total = {"arsch-small": 6, "take4-small": 12}[name]
        # one replay page per tournament, its matches in data files; no page per match
        assert (out / "m" / f"{slug(name)}.html").is_file()
        assert sorted(data_matches(out, name)) == list(range(total))
        assert not (out / "m" / slug(name)).exists()
    for g in ("arschmallows", "take4"):
        assert (out / "g" / f"{g}.html").is_file()
    assert (out / "404.html").is_file()  # sends an older report's replay links to the new page
    for f in ("style.css", "sort.js", "replay.js"):
        assert (out / "static" / f).is_file()
    # offline: no page loads anything from the network
    for page in out.rglob("*.html"):
        text = page.read_text()
        assert not re.search(r"""(src|href)=["']https?://""", text), page


def _board_cells(html: str) -> list[list[str]]:
    body = html.split('<table class="sortable board">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.S)
    return [re.findall(r'data-sort="([^"]*)"', r) for r in rows]


@pytest.mark.parametrize("name", ["arsch-small", "take4-small"])
def test_leaderboard_matches_ratings_json(site, name):
    db, out = site
    expected = cli_json("ratings", "--db", str(db), "--tournament", name, "--format", "json")
    cells = _board_cells((out / "t" / f"{slug(name)}.html").read_text())
    assert len(cells) == len(expected)
    for row, want in zip(cells, expected):
        rank, bot, mu, sigma, cons, matches, wins, place = row
        assert int(rank) == want["rank"] and bot == short_bot(want["bot"])
        assert float(mu) == want["mu"] and float(sigma) == want["sigma"]
        assert float(cons) == want["conservative"]
        assert int(matches) == want["matches"] and int(wins) == want["wins"]
        assert float(place) == pytest.approx(want["mean_place"], abs=1e-12)


def test_game_leaderboard_matches_ratings_json(site):
    db, out = site
    expected = cli_json("ratings", "--db", str(db), "--game", "take4", "--format", "json")
    cells = _board_cells((out / "g" / "take4.html").read_text())
    assert [(c[1], float(c[2])) for c in cells] == [(r["bot"], r["mu"]) for r in expected]


def test_a_game_page_names_its_game_once(site):
    """Issue 34 item 10: the game page's heading was ``take4 take4 · ...``."""
    _, out = site
    html = (out / "g" / "take4.html").read_text()
    heading = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
    text = re.sub(r"<[^>]+>", " ", heading).split()
    assert text[0] == "take4" and "take4" not in text[1:], heading
    tournament = (out / "t" / f"{slug('take4-small')}.html").read_text()
    assert "take4" in re.search(r"<h1>(.*?)</h1>", tournament, re.S).group(1)


@pytest.mark.parametrize("name,count", [("arsch-small", 6), ("take4-small", 12)])
def test_the_replay_data_holds_every_event_of_every_match(site, name, count):
    """Each match in the data files: the engine's frames, one per event of the stored record
    (less the keys the page does not draw), its players and its result table."""
    from mallows.games import get_game
    from mallows.report.replay_data import UNDRAWN

    db, out = site
    shown = data_matches(out, name)
    assert len(shown) == count
    for i in range(count):
        record = stored_record(db, f"{name}/{i}")
        record = dict(record, players=[short_bot(p) for p in record["players"]])
        got = shown[i]
        assert got["id"] == f"{name}/{i}" and got["players"] == record["players"]
        assert got["seed"] == record["seed"] and got["error"] is None
        want = [{k: v for k, v in f.items() if k not in UNDRAWN} for f in frames(record)]
        assert len(got["frames"]) == len(record["events"]) and got["frames"] == want
        assert all(f["text"] for f in got["frames"])
        headers, rows, _ = get_game(record["game"]).summary(record)
        assert got["headers"] == list(headers) and got["rows"] == [list(r) for r in rows]


def test_replay_pages_option_writes_a_page_per_match(site, tmp_path):
    """``--replay-pages``: a replay page of its own per match (as ``serve`` has them), each
    holding every event of its record; no data files."""
    db, _ = site
    out = tmp_path / "pages"
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--db",
            str(db),
            "-o",
            str(out),
            "--tournament",
            "arsch-small",
            "--replay-pages",
        ],
    )
    assert result.exit_code == 0, result.output
    for i in range(6):
        record = stored_record(db, f"arsch-small/{i}")
        got = page_frames((out / "m" / slug("arsch-small") / f"{i}.html").read_text())
        assert [f["event"] for f in got] == record["events"]
        assert all(f["text"] for f in got)
    assert not (out / "m" / slug("arsch-small") / "6.html").exists()
    board = (out / "t" / f"{slug('arsch-small')}.html").read_text()
    assert f'href="../m/{slug("arsch-small")}/0.html"' in board
    assert not (out / "d").exists() and not (out / "m" / f"{slug('arsch-small')}.html").exists()


def test_arschmallows_frames_follow_the_record(site):
    db, _ = site
    record = cli_json("replay", "arsch-small/0", "--db", str(db), "--json")
    n, t = len(record["players"]), record["options"]["table_cards"]
    fs = frames(record)
    ends = iter(e for e in record["events"] if e["type"] == "round_end")
    for f, e in zip(fs, record["events"]):
        if e["type"] == "deal":  # the rows are the deck's slices, face down; discard shows
            assert [[c[0] for c in row] for row in f["rows"]] == [
                e["deck"][s * t : (s + 1) * t] for s in range(n)
            ]
            assert all(c[1] == 0 for row in f["rows"] for c in row)
            assert f["discard"] == e["deck"][n * t]
            assert f["draw_pile"] == len(e["deck"]) - n * t - 1
        if e["type"] == "round_end":
            end = next(ends)
            assert all(str(score) in f["text"] for score in end["scores"])
            assert f["phase"] == "scored"
            # the scored rows add up to the raw scores (doubling aside)
            raw = [sum(c[0] for c in row) for row in f["rows"]]
            for s in range(n):
                assert end["scores"][s] in (raw[s], 2 * raw[s])
        if e["type"] == "action" and e["action"]["type"] == "peek":
            seat = e["seat"]
            known = [c[0] for c in f["rows"][seat] if c[2] >> seat & 1]
            assert len(known) == 2
            # a peek's words show the values to the peeker only
            assert "?" not in seen(f["text"], seat)
            assert seen(f["text"], (seat + 1) % n).count("?") == 2
            assert all(str(v) in seen(f["text"]) for v in known)


def test_take4_frames_follow_the_record(site):
    db, _ = site
    record = cli_json("replay", "take4-small/0", "--db", str(db), "--json")
    fs = frames(record)
    deck = record["events"][0]["deck"]
    assert fs[0]["positions"] == deck[:4]
    first = next(f for f in fs if f["event"]["type"] == "picks")
    assert first["positions"] == deck[:4]
    assert first["picks"] == first["event"]["picks"]
    assert fs[-1]["collections"] == record["result"]["collections"]
    assert "Benny" not in " ".join(f["text"] for f in fs)


def test_a_tampered_record_does_not_replay(site):
    db, _ = site
    record = cli_json("replay", "arsch-small/0", "--db", str(db), "--json")
    actions = [e for e in record["events"] if e["type"] == "action"]
    actions[3]["action"] = (
        {"type": "call"} if actions[3]["action"]["type"] != "call" else {"type": "pass"}
    )
    with pytest.raises(ReplayMismatch):
        frames(record)
    record = cli_json("replay", "take4-small/0", "--db", str(db), "--json")
    record["events"] = record["events"][:-3]
    with pytest.raises(ReplayMismatch):
        frames(record)


def test_report_one_tournament_and_bad_arguments(site, tmp_path):
    db, _ = site
    out = tmp_path / "one"
    subprocess.run(
        [MALLOWS, "report", "--db", str(db), "-o", str(out), "--tournament", "take4-small"],
        check=True,
        capture_output=True,
    )
    assert (out / "t" / f"{slug('take4-small')}.html").is_file()
    assert not (out / "t" / f"{slug('arsch-small')}.html").exists()
    assert not (out / "m" / f"{slug('arsch-small')}.html").exists()
    assert not (out / "d" / slug("arsch-small")).exists()
    assert (out / "d" / slug("take4-small")).is_dir()
    for args, words in (
        (["--tournament", "nope"], "no tournament 'nope'"),
        (["--game", "chess"], "no 'chess' tournaments"),
    ):
        proc = subprocess.run(
            [MALLOWS, "report", "--db", str(db), "-o", str(out), *args],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr
    proc = subprocess.run(
        [MALLOWS, "report", "--db", str(tmp_path / "none.db"), "-o", str(out)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 2 and "no database" in proc.stderr
    assert not (tmp_path / "none.db").exists()


def test_short_bot_names():
    assert short_bot("random:call=0.2") == "random:call=0.2"
    assert short_bot("/home/me/bots/mybot.py:depth=3") == "mybot:depth=3"
    assert short_bot("./bots/example_node") == "example_node"
    assert slug("a/b:c=1") != slug("a-b-c-1")


def test_a_damaged_record_gets_a_page_without_a_table(site, tmp_path):
    import shutil
    import sqlite3

    db, _ = site
    copy = tmp_path / "damaged.db"
    shutil.copy(db, copy)
    from mallows.results.store import Store

    with Store(copy, readonly=True) as store:  # records are stored compressed: read them here
        record = json.loads(store.record("arsch-small/1"))
    record["events"] = record["events"][:-5]  # cut short
    con = sqlite3.connect(copy)
    with con:  # stored back as plain text (codec NULL), a form the store still reads
        con.execute(
            "UPDATE matches SET record = ?, record_z = NULL, codec = NULL "
            "WHERE id = 'arsch-small/1'",
            [json.dumps(record)],
        )
    con.close()
    out = tmp_path / "site"
    proc = subprocess.run(
        [MALLOWS, "report", "--db", str(copy), "-o", str(out), "--tournament", "arsch-small"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    shown = data_matches(out, "arsch-small")
    assert "does not replay" in shown[1]["error"] or "cut short" in shown[1]["error"]
    assert shown[1]["frames"] == [] and len(shown[1]["lines"]) >= len(record["events"])
    assert any("does not match its digest" in n for n in shown[1]["notes"])
    assert shown[0]["error"] is None and shown[0]["frames"]  # the others replay
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--db",
            str(copy),
            "-o",
            str(out),
            "--tournament",
            "arsch-small",
            "--replay-pages",
        ],
    )
    assert result.exit_code == 0, result.output
    page = (out / "m" / slug("arsch-small") / "1.html").read_text()
    assert "No card table for this match" in page and 'id="frames"' not in page
    assert "does not match its digest" in page  # the stored digest finds the damage
    assert "replay.js" not in page
    assert 'id="frames"' in (out / "m" / slug("arsch-small") / "0.html").read_text()


def test_templates_and_static_files_are_package_data():
    import fnmatch
    import tomllib

    patterns = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-data"
    ]["mallows.report"]
    folder = REPO / "platform" / "mallows" / "report"
    files = [
        p.relative_to(folder).as_posix()
        for sub in ("templates", "static")
        for p in (folder / sub).iterdir()
        if p.is_file()
    ]
    assert files
    for f in files:
        assert any(fnmatch.fnmatch(f, pat) for pat in patterns), f"{f} would not be installed"


def test_replay_data_chunks_cut_by_count_and_by_size(monkeypatch):
    """A data file holds at most CHUNK_MATCHES matches and CHUNK_BYTES of lines (one match
    bigger than that still gets a file of its own); the index lists each file's first and last
    match; the same matches write the same bytes (no time in the gzip header)."""
    import base64
    import gzip

    from mallows.report import replay_data

    def cut(views):
        chunks = replay_data.Chunks("s")
        files = [f for idx, v in views for f in chunks.add(idx, v)] + list(chunks.close())
        return chunks.index, files

    monkeypatch.setattr(replay_data, "CHUNK_MATCHES", 3)
    views = [(i, {"frames": [{"text": f"match {i}"}]}) for i in (0, 1, 2, 3, 5, 6, 7)]
    index, files = cut(views)
    assert index == [[0, 2], [3, 6], [7, 7]]
    assert [p for p, _ in files] == ["d/s/0.js", "d/s/1.js", "d/s/2.js"]
    assert cut(views)[1] == files
    packed = files[1][1].decode().split('"')[-2]
    lines = gzip.decompress(base64.b64decode(packed)).decode().split("\n")
    assert [json.loads(line)["idx"] for line in lines] == [3, 5, 6]
    assert all(line.endswith(f',"idx":{i}}}') for line, i in zip(lines, (3, 5, 6)))
    monkeypatch.setattr(replay_data, "CHUNK_MATCHES", 500)
    monkeypatch.setattr(replay_data, "CHUNK_BYTES", 100)
    big = [(0, {"t": "x" * 30}), (1, {"t": "x" * 30}), (2, {"t": "x" * 300}), (3, {"t": "y"})]
    assert cut(big)[0] == [[0, 1], [2, 2], [3, 3]]


# -- an incremental report (issue 35, item 4) ---------------------------------------------------
TAKE4 = "take4-small"  # 12 matches


@pytest.fixture
def replays(monkeypatch) -> list[str]:
    """Data files of 3 matches; the matches replayed through the engine, as they are."""
    from mallows.report import replay_data
    from mallows.report import site as site_module

    monkeypatch.setattr(replay_data, "CHUNK_MATCHES", 3)
    seen: list[str] = []
    real = site_module.frames

    def counted(record: dict) -> list[dict]:
        seen.append(f"{record['seed']}")
        return real(record)

    monkeypatch.setattr(site_module, "frames", counted)
    return seen


def _tree(folder):
    import hashlib

    return {
        str(p.relative_to(folder)): hashlib.blake2b(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _replays(db, out, over=None) -> None:
    """The Take4 tournament's replay files as ``report`` writes them, into a new ``out``;
    ``over``: the report already there (its data files used again where they can be)."""
    import shutil

    from mallows.report.site import Site
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        site = Site(store, tournament=TAKE4, replay_data=True)
        site.previous = over
        files = dict(site.replay_files(TAKE4))
    shutil.rmtree(out, ignore_errors=True)
    for path, content in files.items():
        (out / path).parent.mkdir(parents=True, exist_ok=True)
        (out / path).write_bytes(content)


def _stored(db, folder, name: str, keep: int | None = None, changed: int | None = None):
    """A copy of ``db``: with only the first ``keep`` Take4 matches (as it was before the
    others were stored), or with match ``changed`` stored again as another record (its own
    digest)."""
    import shutil
    import sqlite3

    from mallows.results.integrity import record_digest

    copy = folder / name
    shutil.copy(db, copy)
    con = sqlite3.connect(copy)
    with con:
        if keep is not None:
            con.execute("DELETE FROM matches WHERE tournament = ? AND idx >= ?", [TAKE4, keep])
        if changed is not None:
            record = stored_record(db, f"{TAKE4}/{changed}")
            record["notes"] = ["stored again"]
            text = json.dumps(record)
            players, ranks = con.execute(
                "SELECT players, ranks FROM matches WHERE id = ?", [f"{TAKE4}/{changed}"]
            ).fetchone()
            con.execute(
                "UPDATE matches SET record = ?, record_z = NULL, codec = NULL, digest = ? "
                "WHERE id = ?",
                [text, record_digest(text, players, ranks), f"{TAKE4}/{changed}"],
            )
    con.close()
    return copy


def test_a_rerun_replays_only_new_and_changed_matches_and_equals_a_report_from_scratch(
    site, tmp_path, replays
):
    """Over the report of an earlier database, only the data files from the first new or
    changed match on are made again; the rest are the old files as they are, and everything,
    cache.json included, is byte for byte what a report from scratch writes."""
    from mallows.report.replay_cache import cache_path

    db, _ = site
    out, scratch = tmp_path / "site", tmp_path / "scratch"
    _replays(_stored(db, tmp_path, "first-7.db", keep=7), out)  # [0-2] [3-5] [6]
    assert len(replays) == 7
    del replays[:]
    _replays(db, out, over=out)  # 5 new: [0-2] [3-5] kept, [6-8] [9-11] made
    assert len(replays) == 6  # match 6 again (its file was cut by the end) and 7-11
    del replays[:]
    _replays(db, scratch)
    assert len(replays) == 12 and _tree(out) == _tree(scratch)
    assert sorted(data_matches(out, TAKE4)) == list(range(12))
    listed = json.loads((out / cache_path(slug(TAKE4))).read_text())
    assert [f[:3] for f in listed["files"]] == [[0, 2, 3], [3, 5, 3], [6, 8, 3], [9, 11, 3]]
    assert listed["files"][-1][4] is None and all(f[3] for f in listed["files"])
    del replays[:]
    _replays(db, out, over=out)  # nothing new: nothing replayed
    assert replays == [] and _tree(out) == _tree(scratch)
    changed = _stored(db, tmp_path, "changed.db", changed=4)
    _replays(changed, out, over=out)
    assert len(replays) == 9  # [0-2] kept; 3-11 again (a file after a changed one may cut anew)
    _replays(changed, scratch)
    assert _tree(out) == _tree(scratch)


@pytest.mark.parametrize("spoil", ["code", "garbage", "empty file", "missing file"])
def test_nothing_unsure_is_used_again(site, tmp_path, replays, monkeypatch, spoil):
    """Another code (an upgrade, a changed replay face), a cache list that does not read, a
    data file gone from the old site: those files are made again, and the site is the same."""
    from mallows.report import replay_cache, replay_data

    db, _ = site
    out, scratch = tmp_path / "site", tmp_path / "scratch"
    _replays(db, out)
    _replays(db, scratch)
    listing = out / replay_cache.cache_path(slug(TAKE4))
    if spoil == "code":
        monkeypatch.setattr(replay_cache, "code_fingerprint", lambda: "another code")
    elif spoil == "garbage":
        listing.write_text('{"format": 1, "code": 5, "files": [[0, "x"]]')
    elif spoil == "empty file":  # this code's list, a file of no match at the front
        listed = json.loads(listing.read_text())
        listing.write_text(json.dumps(dict(listed, files=[[0, 0, 0, "k", None]])))
    else:
        (out / replay_data.chunk_path(slug(TAKE4), 1)).unlink()
    del replays[:]
    _replays(db, out, over=out)
    assert len(replays) == {"code": 12, "garbage": 12, "empty file": 12, "missing file": 9}[spoil]
    if spoil == "code":  # the new code's list names it
        assert json.loads(listing.read_text())["code"] == "another code"
    else:
        assert _tree(out) == _tree(scratch)


def test_a_report_over_the_last_one_writes_the_same_site(site, tmp_path):
    """Through the command: a report written over the first (its data files used again) is
    the first, file for file."""
    import shutil

    from mallows.report.replay_cache import cache_path

    _, first = site
    again = tmp_path / "again"
    shutil.copytree(first, again)
    result = CliRunner().invoke(app, ["report", "--db", str(site[0]), "-o", str(again)])
    assert result.exit_code == 0, result.output
    assert _tree(again) == _tree(first) and (first / cache_path(slug(TAKE4))).is_file()
