"""Adding a game is its package plus one line in the game registry: a toy game from the test
tree (``toy_highcard``, a few dozen lines) registered by that one line is played through
``mallows play``, a tournament (in-process executor, a real SQLite file), ``mallows ratings``,
and ``mallows replay``, with no other edit. (``mallows bots check`` runs its bot in a
subprocess, which sees the registry as written in ``mallows/games/__init__.py``, not this
test's in-process registration; it reads the same registry.) It also passes
``check_game``, and broken copies of it fail there, each for the reason it is broken. Without
its faces (``toy_highcard.FACES``) the report tells its matches in words; with them it passes
every surface (``test_new_game_faces.py``)."""

from __future__ import annotations

import json
import sqlite3
import sys

import pytest

import toy_highcard
from conftest import invoke as run_app
from mallows.errors import GameConfigError
from mallows.games import GAMES, game_ids, get_game
from mallows.testing import ConformanceError, check_game


@pytest.fixture
def highcard(monkeypatch, in_repo):
    monkeypatch.setitem(GAMES, "highcard", "toy_highcard")  # the one line
    return "highcard"


def invoke(*args):
    result = run_app(*args)
    return result.exit_code, result.output


def test_the_toy_game_keeps_the_contract(highcard):
    assert check_game(highcard, seeds=(0, 1, 2, 3)) > 0


def test_a_registered_game_is_known_everywhere(highcard, tmp_path):
    assert "highcard" in game_ids()
    from mallows.agents.registry import load_bot

    assert "highcard" in load_bot("random").games  # the random bot plays every game
    manifest = tmp_path / "b" / "bot.toml"
    manifest.parent.mkdir()
    manifest.write_text(
        'name = "b"\nversion = "1"\ncommand = ["python", "b.py"]\ngames = ["highcard"]\n'
    )
    assert load_bot(str(manifest.parent)).games == ("highcard",)


def test_play_tournament_ratings_replay_and_bots_check(highcard, tmp_path, monkeypatch):
    # the game as its engine alone, without its faces (toy_highcard.FACES; every surface
    # with them: test_new_game_faces.py): everything but the card table works
    monkeypatch.delattr(toy_highcard, "FACES")
    record = tmp_path / "m.json"
    code, out = invoke(
        "play",
        "highcard",
        "--bot",
        "random",
        "--bot",
        "random:call=0.5",
        "--bot",
        "random",
        "--seed",
        "4",
        "--record",
        record,
        "--option",
        "rounds=5",
    )
    assert code == 0, out
    data = json.loads(record.read_text())
    assert data["game"] == "highcard" and data["options"] == {"rounds": 5}
    assert sum(data["result"]["wins"]) == 5 and "wins" in out

    code, out = invoke(
        "play", "highcard", "--bot", "random", "--bot", "random", "--option", "rounds=12"
    )
    assert code == 2 and "rounds, a whole number from 1 to 9" in out

    toml = tmp_path / "hc.toml"
    toml.write_text(
        'name = "hc"\ngame = "highcard"\nplayers = 2\ndeals = 3\nseed = 9\n'
        'bots = ["random", "random:call=0.5", "random:call=0.9"]\n'
        "[options]\nrounds = 4\n"
    )
    db = tmp_path / "r.db"
    code, out = invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet")
    assert code == 0, out
    with sqlite3.connect(db) as conn:
        assert (
            conn.execute("select count(*) from matches").fetchone()[0] == 18
        )  # 3 pairs x 3 deals x 2 seatings

    code, out = invoke("ratings", "--db", db, "--format", "json")
    assert code == 0, out
    board = json.loads(out)
    assert {r["game"] for r in board} == {"highcard"}
    assert sorted(r["bot"] for r in board) == ["random", "random:call=0.5", "random:call=0.9"]

    code, out = invoke("replay", "hc/0", "--db", db)
    assert code == 0, out
    assert "match hc/0 · highcard" in out and "wins the round" in out
    assert "round(s) won" in out and "place 1:" in out

    # the HTML report: leaderboards as for any game; a replay without a card table tells the
    # events in the game's own words
    site = tmp_path / "site"
    code, out = invoke("report", "--db", db, "-o", site)
    assert code == 0, out
    from report_helpers import data_matches

    from mallows.report.data import slug

    assert (site / "g" / "highcard.html").is_file() and (
        site / "m" / f"{slug('hc')}.html"
    ).is_file()
    matches = data_matches(site, "hc")  # the replay data the one replay page reads
    assert sorted(matches) == list(range(18))
    assert matches[0]["error"] and any("wins the round" in line for line in matches[0]["lines"])
    code, out = invoke("report", "--db", db, "-o", tmp_path / "pages", "--replay-pages")
    assert code == 0, out
    pages = sorted((tmp_path / "pages" / "m").glob("*/*.html"))
    assert len(pages) == 18
    page = pages[0].read_text()
    assert "No card table for this match" in page and "wins the round" in page


def test_an_unregistered_or_incomplete_game_is_a_clear_error(monkeypatch, in_repo):
    with pytest.raises(GameConfigError, match="unknown game 'highcard'"):
        get_game("highcard")
    incomplete = type(sys)("toy_incomplete")
    incomplete.NAME = "incomplete"
    monkeypatch.setitem(sys.modules, "toy_incomplete", incomplete)
    monkeypatch.setitem(GAMES, "incomplete", "toy_incomplete")
    with pytest.raises(GameConfigError, match="lacks MIN_PLAYERS.*random_action"):
        get_game("incomplete")
    code, out = invoke("play", "incomplete", "--bot", "random", "--bot", "random")
    assert code == 2 and "does not fulfil the game contract" in out


# -- check_game can fail: broken copies of the toy, each for its own reason --------------------

OBSERVATION, APPLY = toy_highcard.State.observation, toy_highcard.State.apply


def _leaky_observation(self, seat):
    obs = OBSERVATION(self, seat)
    obs["next_card"] = self.deck[self.next]  # hidden: the next card of the deck
    return obs


def _held_observation(self, seat):
    obs = OBSERVATION(self, seat)
    obs["wins"] = self.wins  # the engine's own list, which it goes on changing
    return obs


def _lenient_apply(self, seat, action):
    if not isinstance(action, dict) or action.get("type") not in ("keep", "swap"):
        self.events.append({"type": "ignored"})  # changes the state before refusing
    return APPLY(self, seat, action)


def _global_random_action(observation, rng, **_):
    import random

    return random.choice(observation["legal_actions"])  # not the rng it was given


def _hidden_variants(state, seat, rng):
    import copy

    other = copy.deepcopy(state)
    rng.shuffle(other.deck)
    other.cards[:] = other.deck[: len(other.cards)]
    other.cards[seat] = state.cards[seat]
    return [other]


@pytest.mark.parametrize(
    "patch, message",
    [
        (("State.observation", _held_observation), "changed after it was handed out"),
        (("State.apply", _lenient_apply), "refused but changed the state"),
        (("random_action", _global_random_action), "not deterministic"),
        (("State.observation", _leaky_observation), "leaks hidden information"),
    ],
)
def test_check_game_catches_a_broken_game(highcard, monkeypatch, patch, message):
    target, value = patch
    monkeypatch.setattr(toy_highcard, "hidden_variants", _hidden_variants, raising=False)
    owner = toy_highcard.State if target.startswith("State.") else toy_highcard
    monkeypatch.setattr(owner, target.split(".")[-1], value)
    with pytest.raises(ConformanceError, match=message):
        check_game(highcard, seeds=(0, 1, 2, 3, 4, 5))


@pytest.fixture
def highcard_plugin(tmp_path, monkeypatch, in_repo):
    """The toy game installed as a distribution of its own: an entry point in the group
    ``mallows.games``, no line in the project at all."""
    from mallows.games import plugin_games

    info = tmp_path / "site" / "mallows_highcard-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mallows-highcard\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[mallows.games]\nhighcard = toy_highcard\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    plugin_games(refresh=True)
    yield "highcard"
    monkeypatch.undo()
    plugin_games(refresh=True)


def test_a_game_from_an_installed_distribution_is_registered_by_its_entry_point(
    highcard_plugin, tmp_path
):
    assert "highcard" in game_ids() and "highcard" not in GAMES
    assert get_game("highcard") is toy_highcard
    code, out = invoke("play", "highcard", "--bot", "random", "--bot", "random", "--seed", "1")
    assert code == 0, out
    assert check_game("highcard", seeds=(1,)) > 0


def test_a_game_in_games_wins_over_an_entry_point_of_the_same_name(highcard_plugin, monkeypatch):
    monkeypatch.setitem(GAMES, "highcard", "mallows.games.take4")
    assert get_game("highcard").NAME == "take4"
