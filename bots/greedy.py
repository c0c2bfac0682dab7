"""greedy: the one-step greedy bot, one module for both games.

Idea, Take4: take the card that advances the bot's best squad most. Each filled position is
scored by how many different characters its card's squad would then hold (so a squad's fourth
character scores 4 and wins); a character the bot already holds is never picked, since a copy
advances nothing. When every card on the table is one it already holds, it plays the
rulebook's tip and takes the card that would advance an opponent's squad most (denial). Ties
are broken at random from the bot's seat seed, so the same match seed gives the same play.
It ignores races: it does not avoid positions that other seats are likely to pick.

Strength: clearly above ``random`` (it never wastes a pick on a duplicate and finishes squads
it is close to); blind to contention, so below ``denial``. Speed: tens of microseconds a
decision.

Idea, Arschmallows: use what it knows, one decision at a time. An unknown card is valued at
the expectation of the cards it has not seen (``mallows.games.arschmallows.botkit.unseen``: the
deck minus every value its observation shows). It peeks slots 0 and 1; takes the discard pile's
top card when that card beats its worst face-down card (known value, or the expectation) by 2.5
or more, else draws; swaps the held card into the slot where it gains most if it gains more
than 0.5; otherwise refuses it (it never uses an action card), turning face up its lowest known
card (an unknown one if it knows none). It calls when its estimated total (unknowns at the
expectation) is at most 0, or lower than every opponent's estimate by ``margin`` (default 6).

Strength: clearly above ``random``; below ``heuristic`` (no actions, no get_rid, a crude
call). Speed: tens of microseconds a decision.

Parameters: ``greedy:margin=4`` (Arschmallows call margin, points, -100..100).
"""

from __future__ import annotations

import random

from mallows.agents.kit import number_param
from mallows.games.arschmallows.botkit import cheapest_to_lock, expected_unknown, row_estimate


class Bot:
    name = "greedy"
    version = "1.1"  # 1.1: plays Arschmallows too (Take4 play unchanged)
    games = ("arschmallows", "take4")

    def __init__(self, margin: float | str = 6.0) -> None:
        self.margin = number_param("greedy", "margin", margin, -100.0, 100.0)
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, observation: dict) -> dict:
        game = observation.get("game")
        play = _GAMES.get(game)
        if play is None:
            raise ValueError(f"greedy does not play {game!r} yet; it plays {', '.join(_GAMES)}")
        if game == "arschmallows":
            return arschmallows_act(observation, self.margin)
        return play(observation, self.rng)


# --------------------------------------------------------------------------------------------
# Take4
# --------------------------------------------------------------------------------------------


def _take4_squad_of(observation: dict) -> dict[str, str]:
    return {name: squad for squad, members in observation["squads"].items() for name in members}


def _take4_gain(card: str, held: set[str], squad_of: dict[str, str]) -> int:
    """How many different characters of ``card``'s squad ``held`` has after taking it."""
    squad = squad_of[card]
    return 1 + sum(1 for name in held if squad_of[name] == squad)


def take4_act(observation: dict, rng: random.Random) -> dict:
    legal = observation["legal_actions"]
    positions = observation["positions"]
    squad_of = _take4_squad_of(observation)
    seat = observation["seat"]
    mine = set(observation["collections"][seat])

    def best_of(scored: list[tuple[int, dict]]) -> dict:
        top = max(score for score, _ in scored)
        choices = [action for score, action in scored if score == top]
        return choices[rng.randrange(len(choices))] if len(choices) > 1 else choices[0]

    useful = [
        (_take4_gain(positions[a["position"] - 1], mine, squad_of), a)
        for a in legal
        if positions[a["position"] - 1] not in mine
    ]
    if useful:
        return best_of(useful)
    # Every card on the table is one we hold: deny the opponent it helps most.
    others = [set(held) for s, held in enumerate(observation["collections"]) if s != seat]
    denial = []
    for action in legal:
        card = positions[action["position"] - 1]
        denial.append(
            (
                max(
                    (_take4_gain(card, held, squad_of) for held in others if card not in held),
                    default=0,
                ),
                action,
            )
        )
    return best_of(denial)


# --------------------------------------------------------------------------------------------
# Arschmallows
# --------------------------------------------------------------------------------------------


def _best_slot(row: list[dict], value: float, e: float) -> tuple[float, int]:
    """(gain, slot): putting a card of ``value`` in the face-down slot where it gains most."""
    best, where = -99.0, -1
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        gain = (e if s["value"] is None else s["value"]) - value
        if gain > best:
            best, where = gain, i
    return best, where


def _find(legal: list[dict], kind: str) -> dict | None:
    for action in legal:
        if action["type"] == kind:
            return action
    return None


def arschmallows_act(obs: dict, margin: float) -> dict:
    legal = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "peek":
        return {"type": "peek", "slots": [0, 1]}
    seat = obs["seat"]
    row = obs["rows"][seat]
    e = expected_unknown(obs)
    if phase == "take":
        take = _find(legal, "take_discard")
        draw = _find(legal, "draw")
        if take is not None and (draw is None or _best_slot(row, obs["discard"][-1], e)[0] >= 2.5):
            return take
        return draw
    if phase == "use":
        gain, slot = _best_slot(row, obs["held"]["value"], e)
        if gain > 0.5:
            return {"type": "swap", "slot": slot}
        return {"type": "refuse", "slot": cheapest_to_lock(row, e)[1]}
    # end: call when clearly lowest
    mine = row_estimate(row, e)
    others = min(row_estimate(r, e) for p, r in enumerate(obs["rows"]) if p != seat)
    if mine <= 0 or mine + margin <= others:
        return {"type": "call"}
    return {"type": "pass"}


_GAMES = {"take4": take4_act, "arschmallows": arschmallows_act}
