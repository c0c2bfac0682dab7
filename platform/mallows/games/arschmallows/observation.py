"""What each seat knows, and the observation dict built from it.

Owns: ``Knowledge``, one view per seat of the current round's cards (card id -> the value if
that seat has seen the card, else None), updated by the state as events happen, so nothing is
ever recomputed from history; and ``build_observation``, the protocol-1 dict for one seat.

What a seat knows (RULES.md 4): its peeks, the cards it drew or spied, every card that is or
was on the discard pile or taken from it, every face-up card, every card a get_rid revealed.
Knowledge follows the card (views are indexed by card id, not by position), and a reshuffle
makes the new draw pile unknown to everyone again.

Observations are plain dicts, lists, ints, bools, strings and None. The top-level dict and the
``rows`` and ``legal_actions`` lists are new each time; the parts inside them that did not change
(a row, a legal action dict, ``options``) are shared with the same seat's earlier observations.
That keeps an observation cheap however long the match runs, and it means bots must treat
observations as read-only (copy what you want to change). The engine never changes a part
once handed out, so a kept observation stays a true snapshot.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from mallows.games.arschmallows.state import ArschmallowsState

PROTOCOL = 1


class Knowledge:
    """Per seat, per card id of this round: the card's value if the seat has seen it, else None.

    It also keeps, per seat, the observation rows it last built and the row versions they were
    built from. The state calls ``touch(p)`` whenever row p changes (a card moves in or out or
    turns face up) or a seat learns a card lying in it; only touched rows are rebuilt, as new
    lists. A built row is never changed afterwards, so earlier observations stay as they were.
    """

    __slots__ = ("values", "views", "version", "built_version", "built")

    def __init__(self, players: int, values: Sequence[int]):
        self.values = values
        self.views: list[list[int | None]] = [[None] * len(values) for _ in range(players)]
        self.version = [0] * players
        self.built_version = [[-1] * players for _ in range(players)]
        self.built: list[list[list]] = [[[] for _ in range(players)] for _ in range(players)]

    def learn(self, seat: int, card: int) -> None:
        """``seat`` alone sees ``card`` (a peek, a draw, a spy)."""
        self.views[seat][card] = self.values[card]

    def show(self, card: int) -> None:
        """Every seat sees ``card`` (discard pile, turned face up, revealed by get_rid)."""
        value = self.values[card]
        for view in self.views:
            view[card] = value

    def forget(self, cards: Sequence[int]) -> None:
        """Nobody knows ``cards`` any more (shuffled into a new draw pile)."""
        for view in self.views:
            for card in cards:
                view[card] = None

    def knows(self, seat: int, card: int) -> bool:
        return self.views[seat][card] is not None

    def touch(self, row: int) -> None:
        """Row ``row`` changed, or someone learned a card in it: rebuild it when next shown."""
        self.version[row] += 1

    def rows(
        self, seat: int, rows: Sequence[Sequence[int]], up: Sequence[bool]
    ) -> list[list[dict]]:
        """``rows`` (card ids by seat and slot) as ``seat`` sees them: ``{"face_up", "value"}``."""
        version = self.version
        built_version = self.built_version[seat]
        built = self.built[seat]
        for p, row in enumerate(rows):
            if built_version[p] != version[p]:
                view = self.views[seat]
                built[p] = [{"face_up": up[c], "value": view[c]} for c in row]
                built_version[p] = version[p]
        return built[:]


def round_base(state: "ArschmallowsState", seat: int) -> dict:
    """The keys of ``seat``'s observations that stay the same for a whole round."""
    return {
        "protocol": PROTOCOL,
        "game": "arschmallows",
        "options": state.seat_options[seat],
        "seat": seat,
        "players": state.players,
        "rules": state.options["rules"],
        "round": state.round,
        "starting_seat": state.starting_seat,
        "scores": list(state.totals),
    }


def build_observation(state: "ArschmallowsState", seat: int, base: dict | None = None) -> dict:
    """The observation for ``seat``: the public state plus exactly what ``seat`` knows.
    ``base``: the keys fixed for the round to start from (default ``state.round_base[seat]``;
    protocol 2 passes it without the keys fixed for the match, ``events.observation``)."""
    obs = (state.round_base[seat] if base is None else base).copy()
    obs["phase"] = state.phase
    obs["legal_actions"] = state.legal_actions(seat)
    obs["rows"] = state.knowledge.rows(seat, state.rows, state.up)
    obs["discard"] = state.discard_values[:]
    obs["draw_pile"] = len(state.draw)
    mine = seat == state.current
    if mine and state.held is not None:
        obs["held"] = {"value": state.values[state.held], "source": state.held_source}
    else:
        obs["held"] = None
    obs["extra_turns"] = state.extra if mine else 0
    obs["caller"] = state.caller
    obs["final_turns"] = state.trigger is not None
    obs["current_seat"] = state.current
    obs["turn"] = state.turns
    return obs


def hidden_variants(
    state: "ArschmallowsState",
    seat: int,
    rng: random.Random,
    count: int = 2,
    keep: "set[int] | frozenset[int]" = frozenset(),
) -> list:
    """Copies of ``state`` that differ only in what ``seat`` may not know: the values of the
    cards it has not seen, shuffled among those cards (other seats' knowledge follows the
    cards); the cards in ``keep`` keep their values. ``mallows.testing.games`` checks that each
    gives ``seat`` the same observation."""
    import pickle

    view = state.knowledge.views[seat]
    unknown = [card for card, value in enumerate(view) if value is None and card not in keep]
    variants = []
    for _ in range(count if len(unknown) > 1 else 0):
        other = pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
        values = [other.values[card] for card in unknown]
        rng.shuffle(values)
        for card, value in zip(unknown, values):
            other.values[card] = value  # the same list as other.knowledge.values
        for known in other.knowledge.views:
            for card in unknown:
                if known[card] is not None:
                    known[card] = other.values[card]
        other.knowledge.version = [v + 1 for v in other.knowledge.version]  # rebuild rows
        variants.append(other)
    return variants
