"""A new game's faces live with the game: the toy game of the test tree (``toy_highcard``, its
faces in ``toy_highcard_faces``) registered by its one ``GAMES`` line passes every surface:
a tournament whose report replays it as a card table (its frames, its table script) and
``mallows replay``, the play page of ``mallows serve`` (its web view; the routes in this
process), ``--bot human`` at the terminal (its text view), ``mallows export --trajectories``,
PettingZoo's ``api_test`` and ``seed_test`` and OpenSpiel's ``random_sim_test`` (its codec).
The same game without its faces gets, on each surface, a message naming the missing face
instead of a crash. (The replay and play pages in Chromium: ``test_new_game_browser.py``.)"""

from __future__ import annotations

import json
import random
import time

import pytest

import toy_highcard
from conftest import invoke
from mallows.errors import MissingFace


@pytest.fixture
def highcard(monkeypatch, in_repo):
    from mallows.games import GAMES

    monkeypatch.setitem(GAMES, "highcard", "toy_highcard")  # the one line
    return "highcard"


@pytest.fixture
def faceless(highcard, monkeypatch):
    monkeypatch.delattr(toy_highcard, "FACES")
    return highcard


def run_tournament(tmp_path, players: int = 2):
    toml = tmp_path / "hc.toml"
    toml.write_text(
        f'name = "hc"\ngame = "highcard"\nplayers = {players}\ndeals = 2\nseed = 9\n'
        'bots = ["random", "random:call=0.5", "random:call=0.9"]\n[options]\nrounds = 3\n'
    )
    db = tmp_path / "r.db"
    result = invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet")
    assert result.exit_code == 0, result.output
    return db


@pytest.mark.slow
def test_the_report_replays_the_toy_as_a_card_table(highcard, tmp_path):
    from report_helpers import data_matches

    db = run_tournament(tmp_path, players=3)
    site = tmp_path / "site"
    result = invoke("report", "--db", db, "-o", site)
    assert result.exit_code == 0, result.output
    matches = data_matches(site, "hc")
    # one table of 3 seats: 2 deals x 3 seat rotations
    assert len(matches) == 6 and not any(m["error"] for m in matches.values())
    first = matches[0]["frames"]
    assert first[0]["cards"] and len(first[0]["cards"]) == 3
    assert any("wins the round" in f.get("text", "") for f in first)
    # the game's table script is written beside the page that loads it
    script = (site / "static" / "game-highcard.js").read_text()
    assert "mallowsTables" in script and "highcard" in script
    from mallows.report.data import slug

    page = (site / "m" / f"{slug('hc')}.html").read_text()
    assert "static/game-highcard.js" in page

    result = invoke("replay", "hc/0", "--db", db)
    assert result.exit_code == 0, result.output
    assert "view: every seat's card" in result.output and "wins the round" in result.output

    result = invoke("export", "--db", db, "--trajectories")
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert rows and {r["game"] for r in rows} == {"highcard"}
    assert all(len(r["vector"]) == 15 and r["actions"][0] in (0, 1) for r in rows)


def test_without_its_replay_face_the_report_tells_the_events_in_words(faceless, tmp_path):
    from report_helpers import data_matches

    db = run_tournament(tmp_path)
    site = tmp_path / "site"
    assert invoke("report", "--db", db, "-o", site).exit_code == 0
    match = data_matches(site, "hc")[0]
    assert "game 'highcard' has no replay table" in match["error"]
    assert not (site / "static" / "game-highcard.js").exists()


def _play(routes, game: str, seed: int) -> tuple[list[dict], dict]:
    """A whole match on the play page's routes, answering the first legal action."""
    code, _, body = routes.post(
        "/play/new",
        json.dumps({"game": game, "opponents": "random", "seat": "1", "seed": str(seed)}).encode(),
        "application/json",
        "127.0.0.1",
    )
    assert code == 200, body
    sid = json.loads(body)["id"]
    code, _, page = routes.get(f"/play/{sid}", "", "127.0.0.1")
    assert code == 200 and b"/static/game-highcard.js" in page
    views, after = [], -1
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        state = json.loads(routes.get(f"/play/{sid}/state", f"after={after}", "127.0.0.1")[2])
        if state.get("over"):
            return views, state
        if state.get("view") is None:
            continue
        views.append(state["view"])
        after = state["decision"]
        answer = json.loads(
            routes.post(f"/play/{sid}/act", b'{"index": 0}', "application/json", "127.0.0.1")[2]
        )
        assert answer == {"ok": True}, answer
    raise AssertionError("the match did not end")


@pytest.mark.slow
def test_the_play_page_plays_the_toy(highcard, tmp_path):
    from mallows.server.play import PlayRoutes

    routes = PlayRoutes(tmp_path / "play.db", "127.0.0.1")
    try:
        code, _, form = routes.get("/play.html", "", "127.0.0.1")
        assert code == 200 and b'<option value="highcard">' in form
        views, over = _play(routes, "highcard", seed=5)
    finally:
        routes.close()
    assert len(views) == 3  # one decision a round, seat 1 of 2
    frame = views[0]["frame"]
    assert frame["cards"][0] is None and isinstance(frame["cards"][1], int)  # its own card only
    assert [a["words"] for a in views[0]["actions"]] == [
        f"keep your {frame['cards'][1]}",
        f"swap your {frame['cards'][1]} for the next card of the deck",
    ]
    assert "you placed" in over["result"] and over["replay"].startswith("/m/")


def test_without_a_web_view_the_play_page_says_so(faceless, tmp_path):
    from mallows.server.play import PlayRoutes

    routes = PlayRoutes(tmp_path / "play.db", "127.0.0.1")
    try:
        form = routes.get("/play.html", "", "127.0.0.1")[2]
        assert b'<option value="highcard">' not in form  # not offered
        body = json.dumps({"game": "highcard", "opponents": "random"}).encode()
        code, _, answer = routes.post("/play/new", body, "application/json", "127.0.0.1")
        assert code == 400
        error = json.loads(answer)["error"]
        assert "game 'highcard' has no web view" in error
        assert "mallows play highcard --bot human" in error
        code, _, page = routes.post(
            "/play/new",
            b"game=highcard&opponents=random",
            "application/x-www-form-urlencoded",
            "127.0.0.1",
        )
        assert code == 400 and b"has no web view" in page  # the form page, with the reason
    finally:
        routes.close()


def test_a_person_plays_the_toy_at_the_terminal(highcard):
    result = invoke(
        "play",
        "highcard",
        "--bot",
        "human",
        "--bot",
        "random",
        "--seed",
        "4",
        "--option",
        "rounds=2",
        input="?\nkeep\nswap\n",
    )
    assert result.exit_code == 0, result.output
    assert "your card:" in result.output and "swap your" in result.output
    assert "or type an action: `keep`, `swap`, or the action as JSON" in result.output
    assert "human" in result.output and "wins" in result.output


def test_without_a_text_view_a_person_answers_in_json(faceless):
    result = invoke(
        "play",
        "highcard",
        "--bot",
        "human",
        "--bot",
        "random",
        "--seed",
        "4",
        "--option",
        "rounds=1",
        input='{"type": "keep"}\n',
    )
    assert result.exit_code == 0, result.output
    assert '"card":' in result.output  # the observation shown as JSON


@pytest.mark.parametrize("players", [2, 3])
def test_pettingzoos_own_tests_pass_on_the_toy(highcard, players):
    pytest.importorskip("pettingzoo", reason="the [pettingzoo] extra is not installed")
    from pettingzoo.test import api_test, seed_test

    from mallows.interop import pettingzoo as mpz

    api_test(mpz.env("highcard", players), num_cycles=200)
    seed_test(lambda: mpz.env("highcard", players), num_cycles=200)


def test_openspiels_own_test_passes_on_the_toy_and_its_matches_replay(highcard):
    pyspiel = pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")
    from mallows.interop import openspiel as mos

    mos.register("highcard")
    for name in ("mallows_highcard", "mallows_highcard(players=3,rounds=2)"):
        game = pyspiel.load_game(name)
        pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)
    game = mos.load("highcard", players=3, rounds=2)
    state = game.new_initial_state()
    rng = random.Random(2)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes())
            state.apply_action(rng.choice(outcomes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    engine = state.engine
    record = {"game": "highcard", "options": engine.options, "players": ["p"] * 3}
    ranks = toy_highcard.replay(dict(record, events=engine.events)).result([None] * 3)["ranks"]
    assert state.returns() == [1 - r for r in ranks]  # places onto [-1, 1]
    assert "your card:" in str(state)  # the text view


def test_without_a_codec_the_bridges_say_so(faceless):
    with pytest.raises(MissingFace, match="game 'highcard' has no codec for the learning"):
        from mallows.interop.table import Table

        Table("highcard", 2)
    pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed")
    from mallows.interop import openspiel as mos

    with pytest.raises(MissingFace, match="game 'highcard' has no codec"):
        mos.register("highcard")


FACE_PROTOCOLS = {
    "text": ("table_lines", "action_words", "parse_action", "typing_help"),
    "replay": ("frames", "meta", "script", "seat_views", "text_lines", "view_line"),
    "web": ("decision", "frame"),
    "interop": (
        "codec",
        "chance_kinds",
        "openspiel_defaults",
        "openspiel_options",
        "max_game_length",
        "decisions",
    ),
}


@pytest.mark.parametrize("game", ["arschmallows", "take4", "highcard"])
def test_every_game_here_gives_every_face_with_its_members(highcard, game):
    from mallows.games import faces

    for face, members in FACE_PROTOCOLS.items():
        protocol = {"text": faces.TextView, "replay": faces.ReplayView}.get(face)
        protocol = protocol or {"web": faces.WebView, "interop": faces.Interop}[face]
        declared = {n for n in vars(protocol) if not n.startswith("_")}
        assert declared == set(members), f"{protocol.__name__} changed: update this list"
        given = getattr(faces.faces_of(game), face)()
        lacking = [m for m in members if not callable(getattr(given, m, None))]
        assert not lacking, f"{game}'s {face} face lacks {lacking}"
    codec = faces.interop_of(game).codec(2, 24)
    assert {"size", "actions", "low"} <= set(vars(codec)) | set(vars(type(codec)))
    assert faces.faces_of(game).reference_bots  # compare's default opponents


def test_a_sequential_game_has_no_parallel_environment(highcard):
    pytest.importorskip("pettingzoo", reason="the [pettingzoo] extra is not installed")
    from mallows.errors import GameConfigError
    from mallows.interop import pettingzoo as mpz

    assert mpz.env("highcard").metadata["is_parallelizable"] is False
    assert mpz.env("take4").metadata["is_parallelizable"] is True
    assert mpz.parallel_env("take4", 3).metadata["name"] == "mallows_take4_parallel_v0"
    with pytest.raises(GameConfigError, match="highcard is played one seat at a time"):
        mpz.parallel_env("highcard")
