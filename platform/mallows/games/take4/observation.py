"""What a Take4 seat is shown: the observation dict of agent protocol v1 (bots/README.md).

Owns the observation's shape. Everything in Take4 is public except the deck's order (RULES.md
T11), and the picks of the round being decided are not yet made, so a round's observation is
the same for every seat apart from ``seat`` (and ``legal_actions``, which is the same list for
every seat that still has to pick).

Keys: ``protocol``, ``game``, ``options``, ``seat``, ``players``, ``phase`` ("pick"),
``legal_actions``, ``round``, ``positions`` (four entries, a name or null, position 1 first),
``collections`` (by seat, names in the order taken), ``deck`` (cards left, a count),
``history`` (earlier rounds: ``{"round", "positions", "picks", "races"}``), and ``squads``
(squad -> its four characters; fixed, given so a bot in any language needs no table of its own).

Every call returns fresh lists and dicts (a per-round snapshot, rebuilt for each seat): a bot
that mutates its observation cannot reach the game's state or another seat's observation.
"""

from __future__ import annotations

import marshal
import random
from typing import TYPE_CHECKING

from mallows import PROTOCOL_VERSION
from mallows.games.take4.cards import SQUADS

if TYPE_CHECKING:  # pragma: no cover
    from mallows.games.take4.state import Take4State

GAME = "take4"
PHASE = "pick"


def copy_history_entry(entry: dict) -> dict:
    races = entry["races"]
    return {
        "round": entry["round"],
        "positions": entry["positions"][:],
        "picks": entry["picks"][:],
        "races": [
            {"position": r["position"], "contenders": r["contenders"][:], "winner": r["winner"]}
            for r in races
        ]
        if races
        else [],
    }


def public(state: "Take4State") -> dict:
    """Everything a seat is shown apart from ``seat`` (and the legal actions of a seat that has
    already picked, which are none)."""
    return {
        "protocol": PROTOCOL_VERSION,
        "game": GAME,
        "options": dict(state.options),
        "seat": None,
        "players": state.players,
        "phase": PHASE,
        "legal_actions": [{"type": "pick", "position": p} for p in state.legal_positions()],
        "round": state.round,
        "positions": list(state.positions),
        "collections": [list(held) for held in state.collections],
        "deck": len(state.deck),
        "history": list(map(copy_history_entry, state.history)),
        "squads": {squad: list(members) for squad, members in SQUADS.items()},
    }


def snapshot(state: "Take4State") -> bytes:
    """The round's public part, serialised once per round. ``marshal`` round-trips exactly the
    JSON types used here (dict, list, str, int, bool, None) and rebuilds them in C, which makes
    a fresh deep copy per seat cheap."""
    return marshal.dumps(public(state))


def build(state: "Take4State", seat: int) -> dict:
    observation = marshal.loads(state.public_snapshot())
    observation["seat"] = seat
    if seat not in state.to_move():
        observation["legal_actions"] = []
    return observation


def hidden_variants(state: "Take4State", seat: int, rng: random.Random, count: int = 2) -> list:
    """Copies of ``state`` that differ only in what no seat may know, the order of the deck
    (rules.md 2). ``mallows.testing.games`` checks that each gives ``seat`` the same
    observation."""
    import pickle

    variants = []
    for _ in range(count if len(state.deck) > 1 else 0):
        other = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
        rng.shuffle(other.deck)
        other._snapshot = None
        variants.append(other)
    return variants
