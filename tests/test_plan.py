"""Issue 18: one plan, one run loop, one leaderboard, one name per program (and issue 20's
lookup side: a path is always that file, a submission shadows nothing).

The bug tests, each failing on the code before the change:
- a comparison resumed after its bot changed is refused, before any match, with the message
  a tournament gives;
- ``compare NAME@2 NAME@1 --db`` resolves the submitted versions;
- two programs under one name get two shown names (and ``compare`` shows a bot by its name);
- no phantom row in ``report`` or ``serve``, and ranks are counted over the rows shown.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import signal
import sqlite3
import subprocess
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest import MALLOWS, REPO, compare_args
from mallows.agents.registry import Resolver
from mallows.agents.roster import Roster, RosterEntry
from mallows.botname import BotName, is_path, short
from mallows.cli import app
from mallows.errors import BotError
from mallows.report.data import slug
from mallows.results.store import Store

runner = CliRunner()

MYBOT = """
import random
from mallows.agents.policy import random_action

class Bot:
    name = "mybot"
    games = ("take4",)

    def __init__(self):
        self.rng = random.Random(0)

    def match_start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation):
        return random_action(observation, self.rng)
"""

TOML = """name = "t"
game = "take4"
players = 2
deals = 1
seed = 3
bots = ["./mybot.py", "greedy", "random"]
"""  # 3 tables x 2 rotations x 1 deal = 6 matches


def invoke(*args, code: int | tuple = 0):
    result = runner.invoke(app, [str(a) for a in args])
    codes = code if isinstance(code, tuple) else (code,)
    assert result.exit_code in codes, result.output
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def here(tmp_path, monkeypatch):
    """A folder with ``mybot.py`` and a tournament file naming it ``./mybot.py``, as cwd."""
    (tmp_path / "mybot.py").write_text(MYBOT)
    (tmp_path / "t.toml").write_text(TOML)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MALLOWS_BOTS_DIR", str(REPO / "bots"))
    return tmp_path


def edit(path: Path) -> None:
    path.write_text(path.read_text() + "\n# changed\n")


def matches(db: Path, name: str) -> int:
    with Store(db, readonly=True) as store:
        return store.count_matches(name)


# -- bug: compare resumed after its bot changed -------------------------------------------------

RESUME = "cannot resume: its first run pinned the code of every bot, and this code has changed"


def test_a_comparison_resumed_after_its_bot_changed_is_refused_like_a_tournament(here):
    db = here / "c.db"
    args = [
        *compare_args("./mybot.py", "greedy", "take4"),
        "--db",
        db,
        "--name",
        "cmp",
    ]
    invoke(*args, "--max-matches", "20", code=(0, 1, 3))
    stored = matches(db, "cmp")
    assert stored > 0
    edit(here / "mybot.py")
    refused = invoke(*args, "--max-matches", "40", code=2)
    assert RESUME in refused.output and "'./mybot.py'" in refused.output
    assert matches(db, "cmp") == stored  # refused before any match
    # a tournament says the same
    invoke("tournament", "run", "t.toml", "--db", here / "t.db", "--workers", "1", "--quiet")
    edit(here / "mybot.py")
    (here / "t.db-journal").unlink(missing_ok=True)
    with sqlite3.connect(here / "t.db") as con:
        con.execute("DELETE FROM matches WHERE idx = 5")
    con.close()
    tour = invoke("tournament", "run", "t.toml", "--db", here / "t.db", "--workers", "1", code=2)

    def tail(text: str) -> str:
        return re.sub(r"\s+", " ", text.split(RESUME, 1)[1].split("pinned", 1)[0])

    assert RESUME in tour.output
    assert tail(tour.output) == tail(refused.output)  # the bot, shown as mybot, from ./mybot.py


# -- bug: compare NAME@2 NAME@1 --db ------------------------------------------------------------


def test_compare_resolves_submitted_versions_from_its_db(here):
    db = here / "league.db"
    for _ in range(2):
        invoke("bots", "submit", "mybot.py", "--name", "mybot", "--db", db, "--games", "1")
        edit(here / "mybot.py")
    result = invoke(
        *compare_args("mybot@2", "mybot@1", "take4", players=3),
        "--max-matches",
        "4",
        "--db",
        db,
        code=(0, 1, 3),
    )
    assert "compare mybot@2 (A) vs mybot@1 (B)" in result.output
    with Store(db, readonly=True) as store:
        name = next(t["name"] for t in store.tournaments())
        shown = {p["bot"]: p["display"] for p in store.pins(name)}
        assert shown["mybot@2"] == "mybot@2" and shown["mybot@1"] == "mybot@1"
        players = {p for ps, _ in store.results(tournament=name) for p in ps}
    assert {"mybot@1", "mybot@2"} <= players


# -- bug: two programs under one name -------------------------------------------------------------


def test_two_programs_never_share_a_shown_name(here):
    db = here / "m.db"
    invoke("tournament", "run", "t.toml", "--db", db, "--workers", "1", "--quiet")
    edit(here / "mybot.py")
    changed = invoke(
        *compare_args("./mybot.py", "greedy", "take4"),
        "--max-matches",
        "4",
        "--db",
        db,
        code=(0, 1, 3),
    )
    assert "compare mybot~2 (A) vs greedy (B)" in changed.output
    # a copy under another file name is shown by its class's name, never by the file's
    (here / "mybot_v1_backup.py").write_text(MYBOT)
    backup = invoke(
        *compare_args("mybot_v1_backup.py", "random", "take4"),
        "--max-matches",
        "4",
        "--db",
        db,
        code=(0, 1, 3),
    )
    head = backup.output.split(" · ")[0]  # the default --name keeps the file name (resumes)
    assert re.fullmatch(r"compare mybot(~\d+)? \(A\) vs random \(B\)", head), head
    rows = json.loads(invoke("ratings", "--game", "take4", "--db", db, "--format", "json").output)
    bots = [r["bot"] for r in rows]
    assert len(bots) == len(set(bots))
    assert {"mybot", "mybot~2", "greedy", "random"} <= set(bots)
    assert not any("/" in b or b.endswith(".py") for b in bots)
    with Store(db, readonly=True) as store:  # each shown name is one program
        codes: dict = {}
        for t in store.tournaments():
            for p in store.pins(t["name"]):
                codes.setdefault(p["display"], set()).add(p["digest"])
    assert all(len(d) == 1 for d in codes.values()), codes


# -- bug: phantom rows, ranks over the rows shown -------------------------------------------------


def _board_bots(html: str) -> list[str]:
    body = html.split('<table class="sortable board">', 1)[1].split("</table>", 1)[0]
    rows = re.findall(r"<tr>(.*?)</tr>", body.split("<tbody>", 1)[1], re.DOTALL)
    return [
        re.sub(r"<[^>]+>", "", re.findall(r"<td[^>]*>(.*?)</td>", r, re.DOTALL)[1]).strip()
        for r in rows
    ]


def test_no_phantom_row_in_report_and_ranks_over_the_rows_shown(here):
    db = here / "m.db"
    invoke("tournament", "run", "t.toml", "--db", db, "--workers", "1", "--quiet")
    rows = json.loads(invoke("ratings", "--tournament", "t", "--db", db, "--format", "json").output)
    assert sorted(r["bot"] for r in rows) == ["greedy", "mybot", "random"]
    assert [r["rank"] for r in rows] == [1, 2, 3] and all(r["matches"] for r in rows)
    out = here / "site"
    invoke("report", "--db", db, "-o", out)
    board = (out / "t" / f"{slug('t')}.html").read_text()
    assert sorted(_board_bots(board)) == ["greedy", "mybot", "random"]
    assert sorted(p.name for p in (out / "b").glob("*.html")) == sorted(
        f"{slug(b)}.html" for b in ("greedy", "mybot", "random")
    )
    for bot in ("greedy", "mybot", "random"):
        page = (out / "b" / f"{slug(bot)}.html").read_text()
        assert re.search(r"rank [123] of 3 ", page), bot


def test_a_table_stored_with_a_phantom_row_is_shown_without_it(here):
    """A database written before this change keeps a row without matches in its stored
    table: every reader shows the played rows, ranked over them."""
    db = here / "m.db"
    invoke("tournament", "run", "t.toml", "--db", db, "--workers", "1", "--quiet")
    with sqlite3.connect(db) as con:
        cols = [r[1] for r in con.execute("PRAGMA table_info(ratings)")]
        row = dict(
            zip(
                cols,
                con.execute(
                    "SELECT * FROM ratings WHERE scope = 'tournament' ORDER BY rank LIMIT 1"
                ).fetchone(),
            )
        )
        con.execute("UPDATE ratings SET rank = rank + 1 WHERE scope = 'tournament'")
        con.execute(
            f"INSERT INTO ratings ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})",
            [
                {**row, "bot": "./mybot.py", "rank": 1, "games": 0, "wins": 0, "mu": 99.0}.get(c)
                for c in cols
            ],
        )
    con.close()
    rows = json.loads(invoke("ratings", "--tournament", "t", "--db", db, "--format", "json").output)
    assert [r["rank"] for r in rows] == [1, 2, 3]
    assert "./mybot.py" not in [r["bot"] for r in rows]


def test_serve_shows_no_phantom_row(here):
    db = here / "m.db"
    invoke("tournament", "run", "t.toml", "--db", db, "--workers", "1", "--quiet")
    proc = subprocess.Popen(
        [MALLOWS, "serve", "--db", str(db), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
    )
    try:
        m = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
        assert m
        base = f"http://127.0.0.1:{m.group(1)}"
        with urllib.request.urlopen(f"{base}/t/{slug('t')}.html", timeout=30) as r:
            board = r.read().decode()
        assert sorted(_board_bots(board)) == ["greedy", "mybot", "random"]
        with urllib.request.urlopen(f"{base}/b/{slug('mybot')}.html", timeout=30) as r:
            assert re.search(r"rank [123] of 3 ", r.read().decode())
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=10)


# -- one name, one value type ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,base,version,params",
    [
        ("ismcts:budget=0.5,seed=3", "ismcts", None, {"budget": "0.5", "seed": "3"}),
        ("mybot@2", "mybot", 2, {}),
        ("mybot@2:depth=3", "mybot", 2, {"depth": "3"}),
        ("./odd@2.py", "./odd@2.py", None, {}),  # a path never names a version
        ("bots/x@3", "bots/x@3", None, {}),
        ("mybot~2", "mybot~2", None, {}),
    ],
)
def test_botname_parses_and_formats_back(text, base, version, params):
    name = BotName.parse(text)
    assert (name.base, name.version, name.param_dict) == (base, version, params)
    assert str(name) == text and BotName.parse(str(name)) == name


def test_botname_refuses_what_cannot_be_a_name():
    for bad in ("random:fast", ":x=1", "random:1x=2"):
        with pytest.raises(BotError):
            BotName.parse(bad)
    assert short("/home/me/bots/mybot.py:depth=3") == "mybot:depth=3"
    assert short("./bots/example_node/bot.toml") == "example_node"
    assert str(BotName.parse("a:z=1,b=2").canonical()) == "a:b=2,z=1"


def test_the_roster_is_one_picklable_value_jobs_carry():
    from mallows.agents.protocol import Limits
    from mallows.runner.executor import Job, play_job

    roster = Roster(
        (("shown-greedy", RosterEntry(load="greedy")), ("shown-random", RosterEntry(load="random")))
    )
    job = Job(0, "take4", {}, 7, ("shown-greedy", "shown-random"), Limits(), roster)
    again = pickle.loads(pickle.dumps(job))
    assert again == job and hash(again.roster) == hash(roster)
    outcome = play_job(again)
    assert outcome.error is None and outcome.players == ["shown-greedy", "shown-random"]
    # the same names without the roster are unknown: nothing global says what they mean
    assert "unknown bot 'shown-greedy'" in play_job(Job(0, "take4", {}, 7, job.seats)).error


def test_no_module_global_or_environment_variable_carries_names():
    from mallows.agents import registry
    from mallows.runner import executor
    from mallows.tournaments import pinning

    assert not hasattr(registry, "ROSTER") and not hasattr(registry, "SUBMITTED")
    assert not hasattr(pinning, "use_database")
    for path in (REPO / "platform" / "mallows").rglob("*.py"):
        assert "MALLOWS_ROSTER" not in path.read_text(), path
    assert not hasattr(executor, "_roster_env")


def test_parsing_a_tournament_file_starts_nothing(tmp_path):
    from mallows.tournaments.roundrobin.spec import (
        check_tournament_bots,
        load_tournament,
        parse_tournament,
    )

    # a bot that does not exist, and one whose start would leave a mark: parsing touches neither
    mark = tmp_path / "started"
    bot = tmp_path / "marks.py"
    bot.write_text(
        f"open({str(mark)!r}, 'w').close()\nclass Bot:\n    def act(self, o):\n"
        f"        return o['legal_actions'][0]\n"
    )
    t = parse_tournament(
        {
            "name": "p",
            "game": "take4",
            "players": 2,
            "deals": 1,
            "seed": 1,
            "bots": [str(bot), "nosuchbot"],
        }
    )
    assert t.bots == (str(bot), "nosuchbot") and not t.bot_sources and not mark.exists()
    (tmp_path / "p.toml").write_text(
        f'name = "p"\ngame = "take4"\nplayers = 2\ndeals = 1\n'
        f'seed = 1\nbots = ["{bot}", "random"]\n'
    )
    assert load_tournament(tmp_path / "p.toml").match_count() == 2 and not mark.exists()
    checked = check_tournament_bots(load_tournament(tmp_path / "p.toml"), sandbox="off")
    assert mark.exists() and set(checked.bot_sources) == {str(bot), "random"}


# -- issue 20 item 3, lookup side: a path is that file; a submission shadows nothing --------------


def _submit_directly(store: Store, name: str, path: Path) -> None:
    """A submission under ``name``, stored as an older version (that did not check names at
    submit time) may have stored it."""
    from mallows.agents.submissions import read_files

    snap = read_files(path, name)
    store.add_submission(
        name,
        snap.digest,
        snap.files,
        {
            "entry": snap.entry,
            "kind": "python",
            "manifest": "",
            "source": str(path),
            "bytes": snap.size,
            "files": len(snap.files),
            "check": "{}",
        },
    )


def test_a_submission_shadows_no_path_and_no_registry_bot(here):
    db = here / "s.db"
    squatter = here / "squat" / "squatter.py"
    squatter.parent.mkdir()
    squatter.write_text(MYBOT.replace('"mybot"', '"squatter"'))
    with Store(db) as store:
        for name in ("example_python", "greedy", "mybot.py", "onlysubmitted"):
            _submit_directly(store, name, squatter)
    with Store(db, readonly=True) as store:
        resolver = Resolver(store)
        assert resolver.load("example_python").origin == "bots"
        assert resolver.load("greedy").source.startswith(str(REPO / "bots"))
        assert resolver.load("mybot.py").origin == "path"  # the local file
        assert resolver.load("./mybot.py").origin == "path"
        assert resolver.load("onlysubmitted").origin == "submission"
        assert resolver.load("onlysubmitted").name == "onlysubmitted@1"
        assert resolver.load("greedy@1").origin == "submission"  # NAME@N: only a submission
        with pytest.raises(BotError, match="no file or folder"):
            resolver.load("./onlysubmitted.py")  # a path never a submission
    played = invoke(
        "play",
        "take4",
        "--bot",
        "mybot.py",
        "--bot",
        "example_python",
        "--db",
        db,
        "--sandbox",
        "off",
    )
    assert "squatter" not in played.output and "onlysubmitted" not in played.output


def test_name_at_version_without_a_database_says_to_give_one():
    with pytest.raises(BotError, match="give the database with --db"):
        Resolver().load("mybot@2")
    assert is_path("x.toml") and is_path("~/b") and not is_path("mybot@2")
