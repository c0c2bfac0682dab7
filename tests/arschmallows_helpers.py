"""Test helpers for Arschmallows: fixed decks, a recording bot, and an independent model of
what each seat knows, rebuilt from a match record's events alone.

The knowledge model does not use the engine: it replays the record (deals, actions,
reshuffles) with its own small bookkeeping of where each card lies and who has seen it, as
RULES.md 4 "What a seat knows" says, and predicts the rows every observation must show.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any, Iterable, Sequence

from mallows.games import get_game
from mallows.games.arschmallows.cards import VALUES
from mallows.agents.policy import random_action

GAME = get_game("arschmallows")
ACTION_VALUES = {9, 10, 11}


# --------------------------------------------------------------------------- scenario decks
def deck_for(rows: Sequence[Sequence[int]], discard: int, draw: Iterable[int] = ()) -> list[int]:
    """A full 62-card deck, top first, that deals ``rows`` (values by seat and slot), turns
    ``discard`` up as the first discard card and has ``draw`` on top of the draw pile (top
    first); the cards left over follow, lowest value first."""
    head = [v for row in rows for v in row] + [discard] + list(draw)
    left = Counter(VALUES)
    for v in head:
        left[v] -= 1
        assert left[v] >= 0, f"the deck has not that many {v}s"
    return head + sorted(left.elements())


class FixedChance:
    """A Chance that deals the given decks (round r gets ``decks[min(r, last)]``) and reshuffles
    with ``reshuffle(cards)`` (default: keeps the order it is given)."""

    def __init__(self, *decks: Sequence[int], reshuffle=None):
        self.decks = [list(d) for d in decks]
        self.reshuffles: list[list[int]] = []
        self._reshuffle = reshuffle or list

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:
        if stream == "deal":
            return list(self.decks[min(round_, len(self.decks) - 1)])
        assert stream == "reshuffle", f"arschmallows has no {stream!r} stream"
        self.reshuffles.append(list(cards))
        return list(self._reshuffle(list(cards)))

    def choice(self, stream, round_, options, at=None):  # pragma: no cover - no such draw
        raise AssertionError("arschmallows draws no choices")


def options(rules: str = "standard", **overrides: Any) -> dict:
    return GAME.make_options(rules, overrides)


def scenario(
    rows,
    discard,
    draw=(),
    players=None,
    rules="standard",
    more_decks=(),
    reshuffle=None,
    **overrides,
):
    """A new state dealt from ``deck_for(rows, discard, draw)`` (table_cards from the rows)."""
    overrides.setdefault("table_cards", len(rows[0]))
    chance = FixedChance(deck_for(rows, discard, draw), *more_decks, reshuffle=reshuffle)
    return GAME.new_state(options(rules, **overrides), players or len(rows), chance)


def peek_all(state, slots=(0, 1)) -> None:
    """Every seat peeks ``slots`` (the peek phase of the current round)."""
    while state.phase == "peek":
        state.apply(state.current, {"type": "peek", "slots": list(slots)})


def play(state, *actions: dict) -> None:
    """Apply ``actions`` in order, each by the seat to move."""
    for action in actions:
        state.apply(state.current, action)


def turn(state, take: dict, use: dict, end: dict | None = None) -> None:
    """One turn of the seat to move: take, use and (if offered) the end decision."""
    play(state, take, use)
    if end is not None:
        assert state.phase == "end", state.phase
        play(state, end)


DRAW, TAKE = {"type": "draw"}, {"type": "take_discard"}
CALL, PASS = {"type": "call"}, {"type": "pass"}


def swap(i):
    return {"type": "swap", "slot": i}


def refuse(i):
    return {"type": "refuse", "slot": i}


def values_rows(state) -> list[list[int]]:
    """The rows' true values, by seat (engine internals, for scenario checks)."""
    return [[state.values[c] for c in row] for row in state.rows]


# --------------------------------------------------------------------------- bots
class RecordingBot:
    """Wraps a bot: appends ``(seat, observation)`` for every observation it is sent to
    ``log`` (share one log between the seats to keep the match's order)."""

    def __init__(self, bot, seat: int, log: list):
        self.bot = bot
        self.seat = seat
        self.log = log

    def match_start(self, info):
        hook = getattr(self.bot, "match_start", None)
        if hook:
            hook(info)

    def act(self, observation):
        self.log.append((self.seat, observation))
        return self.bot.act(observation)


class RandomBot:
    """The random policy with a chosen call probability; half the time it gets rid of own
    face-down cards it knows to be equal. ``patient`` bots re-pick once when the random pick is
    a refuse, so rows stay face down longer and rounds run long enough to reshuffle."""

    def __init__(self, call: float = 0.05, seed: int = 0, patient: bool = False):
        self.call = call
        self.patient = patient
        self.rng = random.Random(seed)

    def match_start(self, info):
        self.rng = random.Random(info["seed"] * 7 + int(self.call * 1000))

    def act(self, observation):
        if observation["phase"] == "use":
            known = known_groups(observation)
            if known and self.rng.random() < 0.5:
                return {"type": "get_rid", "slots": self.rng.choice(known)}
        action = random_action(observation, self.rng, self.call)
        if self.patient and action["type"] == "refuse":
            action = random_action(observation, self.rng, self.call)
        return action


def known_groups(obs) -> list[list[int]]:
    """Own face-down slots holding the same known value, where a get_rid would succeed."""
    legal = [a for a in obs["legal_actions"] if a["type"] == "get_rid"]
    if not legal:
        return []
    by_value: dict = {}
    for i in legal[0]["choose_from"]:
        v = obs["rows"][obs["seat"]][i]["value"]
        if v is not None:
            by_value.setdefault(v, []).append(i)
    return [
        slots for v, slots in by_value.items() if len(slots) >= (2 if v in ACTION_VALUES else 3)
    ]


class GreedyishBot:
    """A different, deterministic player: swaps a low held card for its highest known or
    unknown card, refuses high ones, never calls. Plays differently from RandomBot."""

    def match_start(self, info):
        pass

    def act(self, obs):
        legal = obs["legal_actions"]
        types = {a["type"]: a for a in legal}
        if obs["phase"] == "peek":
            return legal[-1]
        if obs["phase"] == "take":
            top = obs["discard"][-1] if obs["discard"] else None
            return (
                types["take_discard"]
                if top is not None and top <= 2 and "take_discard" in types
                else legal[0]
            )
        if obs["phase"] == "end":
            return types["pass"]
        held = obs["held"]["value"]
        swaps = [a for a in legal if a["type"] == "swap"]
        if held <= 4 and swaps:
            return swaps[-1]
        refusals = [a for a in legal if a["type"] == "refuse"]
        return refusals[0] if refusals else legal[0]


# --------------------------------------------------------------------------- the model
class KnowledgeModel:
    """What every seat has seen, replayed from record events (independent of the engine).

    A card is a small dict ``{"v": value, "up": bool, "seen": set of seats}``; rows, the draw
    pile (top first) and the discard pile (bottom first) hold these dicts, so what a seat has
    seen follows the card wherever it goes.
    """

    def __init__(self, players: int, table_cards: int):
        self.n = players
        self.t = table_cards
        self.everyone = set(range(players))

    def card(self, v, seen=()):
        return {"v": v, "up": False, "seen": set(seen)}

    def deal(self, deck):
        n, t = self.n, self.t
        cards = [self.card(v) for v in deck]
        self.rows = [cards[s * t : (s + 1) * t] for s in range(n)]
        self.discard = [cards[n * t]]
        self.discard[0]["seen"] = set(self.everyone)
        self.draw = cards[n * t + 1 :]
        self.held = None

    def reshuffle(self, deck):
        pool = {}
        for c in self.discard:
            pool.setdefault(c["v"], []).append(c)
        cards = [pool[v].pop() for v in deck]
        for c in cards:
            c["seen"] = set()
        cards[0]["seen"] = set(self.everyone)
        self.discard = [cards[0]]
        self.draw = cards[1:]

    def to_discard(self, c):
        c["seen"] = set(self.everyone)
        self.discard.append(c)

    def act(self, seat, a):
        """Apply one action event; returns "success" or "mistake" for a get_rid, else None."""
        kind = a["type"]
        row = self.rows[seat]
        outcome = None
        if kind == "peek":
            for i in a["slots"]:
                row[i]["seen"].add(seat)
        elif kind == "draw":
            self.held = self.draw.pop(0)
            self.held["seen"].add(seat)
        elif kind == "take_discard":
            self.held = self.discard.pop()
        elif kind == "swap":
            old = row[a["slot"]]
            row[a["slot"]] = self.held
            self.to_discard(old)
        elif kind == "refuse":
            self.to_discard(self.held)
            c = row[a["slot"]]
            c["up"] = True
            c["seen"] = set(self.everyone)
        elif kind == "spy":
            self.rows[a["player"]][a["slot"]]["seen"].add(seat)
            self.to_discard(self.held)
        elif kind == "exchange":
            other = self.rows[a["player"]]
            row[a["slot"]], other[a["their_slot"]] = other[a["their_slot"]], row[a["slot"]]
            self.to_discard(self.held)
        elif kind == "play_twice":
            self.to_discard(self.held)
        elif kind == "get_rid":
            listed = [row[i] for i in a["slots"]]
            first = listed[0]["v"]
            same = True
            for c in listed:
                c["seen"] = set(self.everyone)
                if c["v"] != first:
                    same = False
                    break
            if same and len(listed) >= (2 if first in ACTION_VALUES else 3):
                for c in listed:
                    self.to_discard(c)
                gone = set(a["slots"][1:])
                self.rows[seat] = [
                    self.held if i == a["slots"][0] else c
                    for i, c in enumerate(row)
                    if i not in gone
                ]
                outcome = "success"
            else:
                row.append(self.held)
                outcome = "mistake"
        if kind not in ("peek", "draw", "take_discard", "call", "pass"):
            self.held = None
        return outcome

    def expected_rows(self, seat):
        return [
            [
                {"face_up": c["up"], "value": c["v"] if (c["up"] or seat in c["seen"]) else None}
                for c in row
            ]
            for row in self.rows
        ]

    def expected_public(self, seat):
        held = None
        if self.held is not None:
            held = self.held["v"]
        return {
            "discard": [c["v"] for c in self.discard],
            "draw_pile": len(self.draw),
            "held_value": held,
        }


def _first_difference(shown, expected) -> str:
    if len(shown) != len(expected):
        return f"{len(shown)} rows shown, {len(expected)} expected"
    for p, (a, b) in enumerate(zip(shown, expected)):
        if len(a) != len(b):
            return f"seat {p}'s row has {len(a)} slots shown, {len(b)} expected"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return f"seat {p} slot {i}: shown {x}, the model says {y}"
    return "?"


def check_observations(record: dict, observations: Sequence[tuple[int, dict]]) -> Counter:
    """Replay ``record`` through the model and compare, in order, every observation a seat was
    sent (``(seat, observation)``, one per action event) with what the model says that seat
    knows: the rows exactly (every value it knows shown, every other hidden), the discard pile,
    the draw pile's size and the held card. Returns what happened, counted: action types,
    ``get_rid success``/``get_rid mistake``, ``reshuffle``, ``end <reason>``, ``observations``."""
    n = len(record["players"])
    model = KnowledgeModel(n, record["options"]["table_cards"])
    it = iter(observations)
    seen: Counter = Counter()
    for event in record["events"]:
        kind = event["type"]
        if kind == "deal":
            model.deal(event["deck"])
        elif kind == "reshuffle":
            model.reshuffle(event["deck"])
            seen["reshuffle"] += 1
        elif kind == "round_end":
            seen["end " + event["reason"]] += 1
        elif kind == "action":
            seat, obs = next(it)
            assert seat == event["seat"] == obs["seat"]
            expected = model.expected_rows(seat)
            if obs["rows"] != expected:
                raise AssertionError(
                    f"observation {seen['observations']} (seat {seat}): "
                    f"{_first_difference(obs['rows'], expected)}"
                )
            public = model.expected_public(seat)
            assert obs["discard"] == public["discard"]
            assert obs["draw_pile"] == public["draw_pile"]
            assert (obs["held"] or {}).get("value") == public["held_value"]
            in_play = sum(len(r) for r in obs["rows"]) + len(obs["discard"]) + obs["draw_pile"]
            assert in_play + (obs["held"] is not None) == 62
            seen["observations"] += 1
            seen[event["action"]["type"]] += 1
            outcome = model.act(seat, event["action"])
            if outcome:
                seen["get_rid " + outcome] += 1
    assert next(it, None) is None, "more observations than action events"
    return seen


def recorded_match(
    seed: int,
    players: int = 4,
    rules: str = "standard",
    table_cards: int = 6,
    call: float = 0.05,
    max_turns: int = 500,
    bots=None,
    patient: bool = False,
):
    """Play one match through the runner with recording bots (``RandomBot(call)`` unless
    ``bots`` is given); returns ``(record, [(seat, observation), ...])``."""
    from mallows.agents.protocol import InProcessBot
    from mallows.runner.match import play_match

    o = options(rules, table_cards=table_cards, max_turns_per_round=max_turns)
    log: list = []
    bots = bots if bots is not None else [RandomBot(call, patient=patient) for _ in range(players)]
    handles = [InProcessBot(RecordingBot(b, s, log), f"bot{s}") for s, b in enumerate(bots)]
    return play_match("arschmallows", o, seed, handles), log


def step_randomly(state, rng: random.Random, call: float = 0.05):
    """Yield after every decision of a random game played directly on ``state``."""
    while not state.is_terminal():
        seat = state.to_move()[0]
        state.apply(seat, random_action(state.observation(seat), rng, call))
        yield state
