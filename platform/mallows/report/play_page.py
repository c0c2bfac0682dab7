"""The browser play page of ``mallows serve`` (loopback only): the form that starts a match
against bots, and the match page, drawn on the replay's card table (``static/replay.js``).

Owns ``form_page``, ``match_page`` and ``view(observation, names)``: the person's seat's
observation as one replay frame (the same keys ``frames_*`` give a replay, built from the
observation alone, so the table shows exactly what the seat may see) plus the legal actions in
words. The matches themselves are run by ``mallows.runner.human_play`` (called by the
CLI); this module only draws.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mallows.games import game_ids
from mallows.games.views import action_words
from mallows.report import data
from mallows.report.site import _env, _script_json

OPPONENTS = ("random", "greedy", "heuristic", "denial", "ismcts")


def _arsch_frame(obs: Mapping) -> dict:
    me = obs["seat"]
    rows = [
        [
            [
                c["value"] if c["value"] is not None else 0,
                1 if c["face_up"] else 0,
                (1 << me) if c["value"] is not None else 0,
            ]
            for c in row
        ]
        for row in obs["rows"]
    ]
    held = obs.get("held")
    discard = obs.get("discard") or []
    return {
        "rows": rows,
        "discard": discard[-1] if discard else None,
        "discard_size": len(discard),
        "draw_pile": obs["draw_pile"],
        "held": dict(held, seat=me) if held else None,
        "current": obs.get("current_seat"),
        "phase": obs.get("phase"),
        "round": obs["round"],
        "totals": list(obs["scores"]),
        "caller": obs.get("caller"),
        "final_turns": bool(obs.get("final_turns")),
    }


def _take4_frame(obs: Mapping) -> dict:
    return {
        "positions": list(obs["positions"]),
        "picks": None,
        "took": None,
        "deck": obs["deck"],
        "round": obs["round"],
        "collections": obs["collections"],
        "winners": [],
    }


def meta(game: str, names: Sequence[str], options: Mapping) -> dict:
    out: dict[str, Any] = {
        "game": game,
        "players": [data.short_bot(n) for n in names],
        "rounds": options.get("rounds"),
    }
    if game == "take4":
        from mallows.games.take4.cards import SQUAD_OF, SQUADS

        out["squads"] = [[s, list(m)] for s, m in SQUADS.items()]
        out["squad_of"] = SQUAD_OF
    return out


def view(observation: Mapping) -> dict:
    """The seat's table as a replay frame, and its legal actions in words."""
    frame = (
        _arsch_frame(observation)
        if observation["game"] == "arschmallows"
        else _take4_frame(observation)
    )
    frame["text"] = f"your turn (seat {observation['seat']})"
    legal = observation["legal_actions"]
    return {
        "frame": frame,
        "actions": [
            {"index": k, "words": action_words(observation, a), "slots": a.get("choose_from")}
            for k, a in enumerate(legal)
        ],
    }


def form_page(error: str | None = None) -> str:
    return (
        _env()
        .get_template("play.html")
        .render(
            title="play",
            root="/",
            live=True,
            refresh=None,
            games=game_ids(),
            opponents=OPPONENTS,
            error=error,
            session=None,
        )
    )


def match_page(
    session_id: str, game: str, names: Sequence[str], seat: int, options: Mapping
) -> str:
    return (
        _env()
        .get_template("play.html")
        .render(
            title=f"play {game}",
            root="/",
            live=True,
            refresh=None,
            games=game_ids(),
            opponents=OPPONENTS,
            error=None,
            session=session_id,
            game=game,
            seat=seat,
            names=[data.short_bot(n) for n in names],
            meta_json=_script_json(meta(game, names, options)),
        )
    )
