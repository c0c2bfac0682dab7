"""The browser play page of ``mallows serve`` (loopback only): the form that starts a match
against bots, and the match page, drawn on the replay's card table (``static/replay.js``).

Owns ``form_page``, ``match_page`` (each with the session's CSRF token, ``csrf``, which the
form and the page's script send back with every post), ``playable(game)`` (``MissingFace`` for
a game without a web view, which the form page shows as its error) and ``view(observation)``:
the person's seat's observation as one replay frame (the game's web view,
``mallows.games.faces.WebView``: the keys its replay frames have, built from the observation
alone, so the table shows exactly what the seat may see) plus the legal actions in words.
Every function renders and returns: any web server can call them. The matches themselves are
run by ``mallows.runner.human_play`` (called by the
CLI); this module only draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from mallows.errors import MallowsError, MissingFace
from mallows.games import game_ids
from mallows.games.faces import faces_of, replay_view, web_view
from mallows.games.views import action_words
from mallows.report import data
from mallows.report.site import _env, _script_json, game_script


def playable(game: str) -> None:
    """Nothing for a game the page can draw; ``MissingFace`` (or ``GameConfigError`` for an
    unknown id) saying why not, and where it can be played instead."""
    try:
        web_view(game)
        replay_view(game)
    except MissingFace as exc:
        raise MissingFace(
            f"{exc}. Play it at the terminal instead: mallows play {game} --bot human --bot random"
        ) from None


def _playable_games() -> list[str]:
    out = []
    for game in game_ids():
        try:
            playable(game)
        except MallowsError:
            continue
        out.append(game)
    return out


def opponents() -> list[str]:
    """The bots the form suggests: every playable game's reference bots."""
    names: list[str] = []
    for game in _playable_games():
        names += [b for b in faces_of(game).reference_bots if b not in names]
    return names


def meta(game: str, names: Sequence[str], options: Mapping) -> dict:
    return {
        "game": game,
        "players": [data.short_bot(n) for n in names],
        "rounds": options.get("rounds"),
        **replay_view(game).meta(options),
    }


def view(observation: Mapping) -> dict:
    """The seat's table as a replay frame (the game's web view), and its legal actions in
    words."""
    face = web_view(str(observation["game"]))
    frame = face.frame(observation)
    frame["text"] = f"your turn (seat {observation['seat']}): " + face.decision(observation)
    legal = observation["legal_actions"]
    return {
        "frame": frame,
        "actions": [
            {"index": k, "words": action_words(observation, a), "slots": a.get("choose_from")}
            for k, a in enumerate(legal)
        ],
    }


def form_page(error: str | None = None, csrf: str = "") -> str:
    return (
        _env()
        .get_template("play.html")
        .render(
            title="play",
            root="/",
            live=True,
            refresh=None,
            games=_playable_games(),
            opponents=opponents(),
            error=error,
            session=None,
            csrf=csrf,
        )
    )


def match_page(
    session_id: str,
    game: str,
    names: Sequence[str],
    seat: int,
    options: Mapping,
    csrf: str = "",
) -> str:
    return (
        _env()
        .get_template("play.html")
        .render(
            title=f"play {game}",
            root="/",
            live=True,
            refresh=None,
            games=_playable_games(),
            opponents=opponents(),
            error=None,
            session=session_id,
            game=game,
            seat=seat,
            names=[data.short_bot(n) for n in names],
            meta_json=_script_json(meta(game, names, options)),
            seat_views=replay_view(game).seat_views(),
            game_script=game_script(game),
            csrf=csrf,
        )
    )
