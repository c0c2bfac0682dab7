"""The Take4 state machine: one match from the deal to the result (RULES.md).

Owns the mutable game: the deck (top first), the four positions, every seat's collection, the
round number, the picks still pending this round, the history and the record's events. All
picks of a round are collected first (``to_move`` lists the seats still to answer, and nothing
a seat is shown depends on another seat's pending pick); the round is resolved when the last
pick arrives. The rulings themselves live in ``rules.py``; the observation's shape in
``observation.py``.
"""

from __future__ import annotations

from typing import Any, Sequence

from mallows.errors import IllegalAction
from mallows.games.base import Chance
from mallows.games.take4 import observation as _observation
from mallows.games.take4 import rules
from mallows.games.take4.cards import DECK, POSITIONS

# One dict per position, built once; handed out as fresh copies (see legal_actions).
_PICK = {p: {"type": "pick", "position": p} for p in POSITIONS}
_KEYS = frozenset(("type", "position"))


class Take4State:
    game = "take4"

    def __init__(self, options: dict, players: int, chance: Chance):
        self.options = options
        # The rules read their own copies: ``options`` is handed to bots by the runner, and a
        # bot that mutates it must not change the game it is playing.
        self._max_rounds = int(options["max_rounds"])
        self._by_progress = bool(options["rank_losers_by_progress"])
        self.players = players
        self.chance = chance
        deck = list(chance.shuffle("deal", 0, list(DECK)))
        if sorted(deck) != sorted(DECK):
            raise ValueError("the deal is not a permutation of the 64 Take4 cards")
        self.events: list[dict] = [{"type": "deal", "deck": list(deck)}]
        self.deck: list[str] = deck
        self.round = 0
        self.positions: list[str | None] = [None] * len(POSITIONS)
        self.collections: list[list[str]] = [[] for _ in range(players)]
        self.history: list[dict] = []
        self.winners: list[int] = []
        self.reason: str | None = None
        self._pending: list[int | None] = [None] * players
        self._to_move: tuple[int, ...] = ()
        self._legal: tuple[int, ...] = ()
        self._snapshot: bytes | None = None
        self._start_round()

    # -- the runner's interface -------------------------------------------------------------

    def to_move(self) -> tuple[int, ...]:
        return self._to_move

    def is_terminal(self) -> bool:
        return self.reason is not None

    def legal_actions(self, seat: int) -> list[dict]:
        if self.reason is not None or seat not in self._to_move:
            return []
        return [dict(_PICK[p]) for p in self._legal]

    def observation(self, seat: int) -> dict:
        return _observation.build(self, seat)

    def legal_positions(self) -> tuple[int, ...]:
        """The positions that can be picked this round (the filled ones); none once over."""
        return self._legal

    def public_snapshot(self) -> bytes:
        """The round's public observation, serialised once per round (see observation.py)."""
        if self._snapshot is None:
            self._snapshot = _observation.snapshot(self)
        return self._snapshot

    def apply(self, seat: int, action: Any) -> None:
        position = self._check(seat, action)
        self._pending[seat] = position
        self._to_move = tuple(s for s in self._to_move if s != seat)
        if not self._to_move:
            self._resolve()

    def result(self, forfeits: Sequence[str | None] = ()) -> dict:
        forfeits = [forfeits[s] if s < len(forfeits) else None for s in range(self.players)]
        return {
            "ranks": rules.ranks(self.winners, self.collections, forfeits, self._by_progress),
            "winners": list(self.winners),
            "collections": [list(held) for held in self.collections],
            "forfeits": forfeits,
        }

    def record_header(self) -> dict:
        return {}

    # -- the round ----------------------------------------------------------------------------

    def _check(self, seat: Any, action: Any) -> int:
        """The position ``action`` picks, or ``IllegalAction`` saying what is wrong."""
        if self.reason is not None:
            raise IllegalAction("the game is over: no more picks")
        if not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalAction(f"there is no seat {seat!r} in a {self.players}-player game")
        if seat not in self._to_move:
            raise IllegalAction(f"seat {seat} has already picked in round {self.round + 1}")
        if not isinstance(action, dict):
            raise IllegalAction(
                f'an action is a dict like {{"type": "pick", "position": 1}}, '
                f"not {type(action).__name__}"
            )
        if action.get("type") != "pick":
            raise IllegalAction(f'take4 knows one action type, "pick", not {action.get("type")!r}')
        if action.keys() != _KEYS:  # the usual pick skips building the set of extra keys
            extra = sorted(set(action) - _KEYS)
            if extra:
                raise IllegalAction(f"a pick has the keys type and position only, not {extra}")
        position = action.get("position")
        if type(position) is not int:
            raise IllegalAction(f"position must be an integer 1..4, not {position!r}")
        if position not in self._legal:
            if position in POSITIONS:
                raise IllegalAction(
                    f"position {position} is empty (the deck ran short): "
                    f"choose one of {list(self._legal)}"
                )
            raise IllegalAction(
                f"position {position} does not exist: choose one of {list(self._legal)}"
            )
        return position

    def _start_round(self) -> None:
        self.positions, self.deck = rules.fill_positions(self.deck)
        self._legal = rules.legal_positions(self.positions)
        self._pending = [None] * self.players
        self._to_move = tuple(range(self.players))
        self._snapshot = None

    def _resolve(self) -> None:
        picks = [int(p) for p in self._pending]  # type: ignore[arg-type]  # all answered
        r = self.round
        takes, races, leftovers = rules.resolve(
            self.positions,
            picks,
            lambda position, seats: self.chance.choice("race", r, seats, at=position),
        )
        self.events.append({"type": "picks", "round": r, "picks": list(picks)})
        for race in races:
            self.events.append(
                {
                    "type": "race",
                    "position": race["position"],
                    "contenders": list(race["contenders"]),
                    "winner": race["winner"],
                }
            )
        for seat, card in takes:
            self.collections[seat].append(card)
        self.deck.extend(leftovers)
        self.history.append(
            {"round": r, "positions": list(self.positions), "picks": picks, "races": races}
        )
        self.positions = [None] * len(POSITIONS)
        self._pending = [None] * self.players
        self._to_move = ()
        self._legal = ()
        self._snapshot = None
        self.winners = rules.winners(self.collections, sorted({seat for seat, _ in takes}))
        reason = rules.end_reason(self.winners, len(self.deck), r + 1, self._max_rounds)
        if reason is not None:
            self.reason = reason
            self.events.append(
                {"type": "game_end", "reason": reason, "winners": list(self.winners)}
            )
            return
        self.round = r + 1
        self._start_round()
