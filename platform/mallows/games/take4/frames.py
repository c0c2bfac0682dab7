"""Take4's replay face (``mallows.games.faces.ReplayView``): a record replayed through the
engine, one frame per event; ``table.js`` beside it draws a frame in the browser, ``meta``
gives it the squads, and ``text_lines`` prints a frame for ``mallows replay``.

Owns ``frames(record)``: for every event of the record, in order, the table just after it:
``round``, ``positions`` (the four positions of the round on show: a character or None),
``picks`` (by seat, the position it picked, on a round's ``picks`` frame), ``took`` (by seat,
the character it took that round, or None), ``collections`` (by seat, in the order taken),
``deck`` (cards left), ``winners``, and ``text``: the event in plain words. The engine
(``mallows.games.take4``) plays the picks, with the deal and races read back; nothing here
re-implements a rule. Everything in Take4 is public, so every seat's view is the same.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from typing import TYPE_CHECKING

from mallows.errors import ReplayMismatch
from mallows.games import take4
from mallows.games.base import replay_chance
from mallows.games.describe import seen
from mallows.games.take4 import narration
from mallows.games.take4.cards import SQUAD_OF, SQUADS, completed_squads
from mallows.safetext import brief

if TYPE_CHECKING:
    from mallows.games.take4.state import Take4State

__all__ = ["frames", "meta", "script", "seat_views", "text_lines", "view_line"]


_and = narration.and_list


def _who(names: Sequence[str], seat: int) -> str:
    return f"seat {seat} ({names[seat]})" if 0 <= seat < len(names) else f"seat {seat}"


def _snapshot(
    state: Take4State,
    positions: Sequence[str | None],
    picks: object = None,
    took: object = None,
) -> dict:
    return {
        "round": state.round,
        "positions": list(positions),
        "picks": picks,
        "took": took,
        "collections": [list(c) for c in state.collections],
        "deck": len(state.deck),
        "winners": list(state.winners),
    }


def frames(record: dict) -> list[dict]:
    names = list(record["players"])
    n = len(names)
    events = record["events"]
    state = take4.new_state(record["options"], n, replay_chance(take4, events))
    out: list[dict] = []
    last = _snapshot(state, state.positions)
    races_left: list[dict] = []
    forfeited: set = set()
    for index, event in enumerate(events):
        kind = event.get("type")
        if kind == "deal":
            frame = dict(last)
            shown = ", ".join(f"{p} {c}" for p, c in enumerate(state.positions, 1) if c)
            text = f"the {len(event['deck'])} cards are shuffled; round 1 lays out {shown}"
        elif kind == "picks":
            if event.get("round") != state.round:
                raise ReplayMismatch(
                    f"event {index}: picks for round {event.get('round')}, "
                    f"but the engine is in round {state.round}"
                )
            positions = list(state.positions)
            picks = list(event["picks"])
            start = len(state.history)
            for seat, position in enumerate(picks):
                state.apply(seat, {"type": "pick", "position": position})
            if len(state.history) != start + 1:
                raise ReplayMismatch(
                    f"event {index}: the picks did not finish round {event.get('round')}"
                )
            races_left = [dict(r) for r in state.history[-1]["races"]]
            winner_of = {r["position"]: r["winner"] for r in races_left}
            took = []
            for seat, p in enumerate(picks):
                won = winner_of.get(p, seat) == seat
                took.append(positions[p - 1] if won else None)
            frame = _snapshot(state, positions, picks, took)
            frame["round"] = event["round"]
            text = narration.picks_text(
                event["round"], positions, picks, set(winner_of), lambda s: names[s]
            )
        elif kind == "race":
            expected = races_left.pop(0) if races_left else None
            if expected != {k: event.get(k) for k in ("position", "contenders", "winner")}:
                raise ReplayMismatch(
                    f"event {index}: the record's race {event} is not the engine's {expected}"
                )
            frame = dict(last)
            card = frame["positions"][event["position"] - 1]
            text = narration.race_text(
                card,
                event["position"],
                event["contenders"],
                event["winner"],
                lambda s: _who(names, s),
            )
        elif kind == "game_end":
            frame = dict(last)
            frame["winners"] = list(event.get("winners", []))
            winners = event.get("winners", [])
            reason = narration.end_reason(event["reason"])
            fair = [s for s in winners if s not in forfeited]
            lost = [s for s in winners if s in forfeited]

            held = frame["collections"]

            def done(seats: list[int], held: list = held) -> list[str]:
                return [
                    f"{_who(names, s)} with {'/'.join(completed_squads(held[s]))}" for s in seats
                ]

            text = f"the game ends: {reason}. " + (
                ("Winner: " if len(fair) == 1 else "Winners: ") + _and(done(fair))
                if fair
                else "Nobody completed a squad"
                if not lost
                else ""
            )
            if lost:  # a forfeited seat ranks below every other seat, squad or not
                text += (
                    (". " if fair else "")
                    + _and(done(lost))
                    + " completed a squad but had forfeited, so "
                    + ("it ranks" if len(lost) == 1 else "they rank")
                    + " below every seat that did not forfeit"
                )
        elif kind == "forfeit":
            forfeited.add(event.get("seat"))
            frame = dict(last)
            what = f"forfeits ({event['kind']})" if event.get("kind") else "forfeits"
            text = (
                f"{_who(names, event['seat'])} {what}: {brief(str(event.get('reason', '')))}. From "
                f"here a random policy plays its seat"
            )
        else:
            frame = dict(last)
            text = str(event)
        frame.update(
            text=text,
            event=event,
            index=index,
            actor=event.get("seat") if kind == "forfeit" else None,
        )
        out.append(frame)
        last = {k: v for k, v in frame.items() if k not in ("text", "event", "index", "actor")}
        if kind == "picks":
            last.update(picks=None, took=None)
    if not state.is_terminal():
        raise ReplayMismatch("the record ends before the game does: it is cut short")
    return out


# -- the rest of the replay face (mallows.games.faces.ReplayView) ------------------------------


def meta(options: Mapping) -> dict:
    """The squads, for the table's collections."""
    return {"squads": [[s, list(m)] for s, m in SQUADS.items()], "squad_of": SQUAD_OF}


def script() -> str:
    return resources.files(__package__).joinpath("table.js").read_text(encoding="utf-8")


def seat_views() -> bool:
    return False  # everything in Take4 is public


def view_line(names: Sequence[str], viewer: int | None) -> str:
    return "view: everything is public in take4"


def text_lines(frame: Mapping, names: Sequence[str], viewer: int | None) -> list[str]:
    """A frame for ``mallows replay``: a round's picks head it, unindented."""
    text = seen(frame["text"], viewer)
    return [text] if frame["event"].get("type") == "picks" else ["  " + text]
