"""High card's faces (``mallows.games.faces``), as a game author writes them: one module that
is at once its text view, its replay face (with ``toy_highcard_table.js``), its web play view
and its codec for the learning bridges. ``toy_highcard.FACES`` hands it out.

A replay frame: ``round``, ``cards`` (every seat's card), ``wins``, ``current`` (the seat to
answer, or None), ``winner`` (of the round just ended, or None), and ``text``, ``event``,
``index``, ``actor``. The vector: the seat's card one-hot (10), the round's share of the
rounds, each seat's wins' share (3 seats at most), whether it is to answer: 15 numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import toy_highcard
from mallows.errors import ReplayMismatch
from mallows.games.base import replay_chance
from mallows.games.describe import seat_label

ACTIONS = ("keep", "swap")
SIZE = 10 + 1 + toy_highcard.MAX_PLAYERS + 1

# -- text view ---------------------------------------------------------------------------------


def table_lines(observation: Mapping) -> list[str]:
    o = observation
    return [
        f"round {o['round'] + 1} of {o['options']['rounds']} · your card: {o['card']}",
        "rounds won: " + ", ".join(f"seat {s} {w}" for s, w in enumerate(o["wins"])),
    ]


def action_words(observation: Mapping, action: Mapping) -> str:
    if action.get("type") == "swap":
        return f"swap your {observation['card']} for the next card of the deck"
    return f"keep your {observation['card']}"


def typing_help() -> str:
    return "`keep`, `swap`"


def parse_action(observation: Mapping, text: str) -> Any:
    word = text.strip().lower()
    if word not in ACTIONS:
        raise ValueError("type keep or swap (or the number of an action)")
    return {"type": word}


# -- replay ------------------------------------------------------------------------------------


def _frame(state: Any) -> dict:
    return {
        "round": 0,
        "cards": list(state.cards),
        "wins": list(state.wins),
        "current": state.current,
        "winner": None,
    }


def frames(record: dict) -> list[dict]:
    names = list(record["players"])
    events = record["events"]
    state = toy_highcard.new_state(
        record["options"], len(names), replay_chance(toy_highcard, events)
    )
    out: list[dict] = []
    last = _frame(state)
    for index, event in enumerate(events):
        kind = event.get("type")
        who = seat_label(record, event.get("seat"))
        winner = None
        if kind == "deal":
            frame = dict(
                last, cards=list(event["deck"][: len(names)]), round=event["round"], current=0
            )
            text = f"round {event['round'] + 1}: the ten cards are shuffled and dealt"
        elif kind == "action":
            seat, verb = event["seat"], event["action"]["type"]
            before = state.cards[seat]
            after = state.deck[state.next] if verb == "swap" else before
            state.apply(seat, event["action"])  # the engine judges it (and deals on)
            cards = list(last["cards"])
            cards[seat] = after
            frame = dict(last, cards=cards, current=seat + 1 if seat + 1 < len(names) else None)
            text = (
                f"{who} swaps its {before} for a {after}"
                if verb == "swap"
                else f"{who} keeps its {before}"
            )
        elif kind == "coin":
            frame = dict(last)
            text = f"a coin decides between seats {event['tied']}: seat {event['winner']}"
        elif kind == "round_end":
            winner = event["winner"]
            wins = list(last["wins"])
            wins[winner] += 1
            frame = dict(last, cards=list(event["cards"]), winner=winner, wins=wins)
            text = f"cards {event['cards']}: {seat_label(record, winner)} wins the round"
        elif kind == "forfeit":
            frame = dict(last)
            text = f"{who} forfeits: from here a random policy plays its seat"
        else:
            raise ReplayMismatch(f"event {index}: {event} is not one of high card's")
        frame.update(text=text, event=event, index=index, actor=event.get("seat"))
        out.append(frame)
        last = {k: v for k, v in frame.items() if k not in ("text", "event", "index", "actor")}
        last["winner"] = None
    if not state.is_terminal():
        raise ReplayMismatch("the record ends before the game does: it is cut short")
    if last["wins"] != state.wins:
        raise ReplayMismatch(f"the record's rounds won {last['wins']} are not the engine's")
    return out


def meta(options: Mapping) -> dict:
    return {"highest": 10}


def script() -> str:
    return (Path(__file__).parent / "toy_highcard_table.js").read_text(encoding="utf-8")


def seat_views() -> bool:
    return False


def text_lines(frame: Mapping, names: Sequence[str], viewer: int | None) -> list[str]:
    return ["  " + frame["text"]]


def view_line(names: Sequence[str], viewer: int | None) -> str:
    return "view: every seat's card"


# -- web play view -----------------------------------------------------------------------------


def decision(observation: Mapping) -> str:
    return "play a card"


def frame(observation: Mapping) -> dict:
    o = observation
    cards: list[int | None] = [None] * o["players"]
    cards[o["seat"]] = o["card"]
    return {
        "round": o["round"],
        "cards": cards,
        "wins": list(o["wins"]),
        "current": o["seat"] if o["legal_actions"] else None,
        "winner": None,
    }


# -- the learning bridges ----------------------------------------------------------------------


class Codec:
    size, actions, low = SIZE, len(ACTIONS), 0.0

    def vector(self, observation: Mapping, seat: int) -> np.ndarray:
        o = observation
        out = np.zeros(SIZE, np.float32)
        out[o["card"] - 1] = 1.0
        out[10] = o["round"] / o["options"]["rounds"]
        for s, w in enumerate(o["wins"]):
            out[11 + s] = w / o["options"]["rounds"]
        out[SIZE - 1] = 1.0 if o["legal_actions"] else 0.0
        return out

    def mask(self, observation: Mapping, seat: int) -> np.ndarray:
        legal = {a["type"] for a in observation["legal_actions"]}
        return np.array([1 if a in legal else 0 for a in ACTIONS], np.int8)

    def take(self, observation: Mapping, seat: int, number: int) -> dict | None:
        if not self.mask(observation, seat)[number]:
            raise ValueError(f"action {number} ({ACTIONS[number]}) is not legal now")
        return {"type": ACTIONS[number]}

    def describe(self, number: int) -> str:
        return ACTIONS[number]

    def reset(self) -> None:
        pass

    def numbers(self, observation: Mapping, seat: int, action: Mapping) -> list[int]:
        return [ACTIONS.index(action["type"])]


def codec(players: int, slots: int) -> Codec:
    return Codec()


def chance_kinds() -> tuple:
    return tuple(range(1, 11))


def openspiel_defaults() -> dict[str, Any]:
    return {"players": 2, "rounds": 3}


def openspiel_options(params: Mapping[str, Any]) -> dict[str, Any]:
    return {"rounds": int(params["rounds"])}


def max_game_length(options: Mapping[str, Any], players: int, slots: int) -> int:
    return options["rounds"] * (10 + players + 1)


def decisions(state: Any, event: Mapping) -> list[tuple[int, dict, dict]]:
    if event.get("type") != "action":
        return []
    observation = state.observation(event["seat"])
    state.apply(event["seat"], event["action"])
    return [(event["seat"], observation, event["action"])]
