"""Record v1 stays byte-identical: the same seed, bots and options give the same record JSON as
before the game contract and the named chance streams (issue 9). The digests below were
computed by the code on main before that change; a change in dealing, in the random policy, in
the order of events or in the record's keys shows up here."""

from __future__ import annotations

import hashlib
import json
import random
import re

import pytest

from mallows.agents.policy import random_action
from mallows.agents.protocol import InProcessBot
from mallows.games import get_game
from mallows.runner.match import play_match


class _Random:
    """The random policy from the bot's seat seed; with ``quit_at`` it answers garbage at that
    decision, so the runner's fallback policy plays the rest of the seat's match."""

    def __init__(self, quit_at: int | None = None):
        self.quit_at = quit_at
        self.rng = random.Random(0)
        self.decisions = 0

    def match_start(self, info):
        self.rng = random.Random(info["seed"])

    def act(self, observation):
        self.decisions += 1
        if self.decisions == self.quit_at:
            return {"type": "nonsense"}
        return random_action(observation, self.rng)


CASES = [  # game, rules, overrides, seed, players, the decision a seat 1 bot quits at
    ("arschmallows", "standard", {}, 0, 2, None),
    ("arschmallows", "supermallows", {"table_cards": 4}, 2026, 4, 7),
    ("arschmallows", "standard", {"rounds": 2}, 123456789, 6, None),
    ("arschmallows", "standard", {"rounds": 2, "table_cards": 10}, 0, 6, 10),  # reshuffles
    ("take4", None, {}, 0, 2, None),
    ("take4", None, {"rank_losers_by_progress": True}, 2026, 4, 3),
    ("take4", None, {"max_rounds": 5}, 987654321, 3, None),
]

# sha256 of record_json(*case), computed by main's code without the game contract. The cases
# with a forfeit were pinned again when forfeit events gained their ``kind`` (issue 9, item 6);
# the others are unchanged since the first pin.
DIGESTS = [
    "0984a61737426de2fa2af569d2d6be4b84fb3f5fecf3941dd858a2b5809dd0b8",
    "a8df7651828fec526078f1391600d14b9065cd4bd3ab0bb984391f1a7d7f1374",
    "1d114360994dd75bbeaaf2991393dd7955746586cec984673d3fc2986a8cfded",
    "7fc6ebe103c161c0a303267d0094becd131c9c941ae86a8843c8ea51e8e08346",
    "4609c1e6fa9d0aa5b6f267c5627620c36ee234561e9a8a09408631942f96fc2c",
    "6f819c649642a0328686a7a2124eb549e795ead76687e191d84c81428c8dffeb",
    "9b4ad9e6986f12a88ec7da2e71eaca77a174b7c9dbe7fef84ce31ef1bcc66a1b",
]


def record_json(game, rules, overrides, seed, players, quit_at) -> str:
    options = get_game(game).make_options(rules, overrides)
    bots = [
        InProcessBot(_Random(quit_at if seat == 1 else None), f"r{seat}") for seat in range(players)
    ]
    record = play_match(game, options, seed, bots)
    return json.dumps(record, separators=(",", ":"))


def as_first_pinned(text: str) -> str:
    """Forfeit reasons as they were worded when the digests were pinned: ``decision 7, round
    0, phase use`` (the observation's round index) where records now say ``decision 7 in round
    1, phase use`` (counted from 1, as the replay counts; issue 22, item 8). Nothing else of a
    record changed, which this proves."""
    return re.sub(
        r"decision (\d+) in round (\d+)",
        lambda m: f"decision {m.group(1)}, round {int(m.group(2)) - 1}",
        text,
    )


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[3]}" for c in CASES])
def test_record_json_is_byte_identical_to_before(case):
    text = as_first_pinned(record_json(*case))
    assert hashlib.sha256(text.encode()).hexdigest() == DIGESTS[CASES.index(case)]
