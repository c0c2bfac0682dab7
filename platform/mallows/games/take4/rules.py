"""Take4's rulings as pure functions (RULES.md in this folder; T-numbers cite its rulings).

Owns every decision the rules make, with no state of its own: filling the positions from the
top of the deck, which positions are contested, who takes what (one Benny race per contested
position, in position order), where the leftovers go, who has won, why the game ends, and how
the seats rank. ``state.py`` strings these together round by round.
"""

from __future__ import annotations

from typing import Callable, Sequence

from mallows.games.base import competition_ranks
from mallows.games.take4.cards import POSITIONS, completed_squads, progress

REASON_SQUAD = "squad"
REASON_DECK_EMPTY = "deck_empty"
REASON_ROUND_LIMIT = "round_limit"


def fill_positions(deck: Sequence[str]) -> tuple[list[str | None], list[str]]:
    """T4: positions 1..4 take the deck's top cards in order; a short deck leaves the
    last positions empty (``None``). Returns (positions, the rest of the deck, top first)."""
    k = min(len(POSITIONS), len(deck))
    positions: list[str | None] = list(deck[:k]) + [None] * (len(POSITIONS) - k)
    return positions, list(deck[k:])


def legal_positions(positions: Sequence[str | None]) -> tuple[int, ...]:
    """T4: a filled position can be picked, an empty one cannot (1-based)."""
    return tuple(p for p, card in zip(POSITIONS, positions) if card is not None)


def contenders_by_position(picks: Sequence[int]) -> dict[int, list[int]]:
    """Position -> the seats that picked it (ascending), for every picked position, in
    position order."""
    out: dict[int, list[int]] = {}
    for seat, position in enumerate(picks):
        out.setdefault(position, []).append(seat)
    return {p: out[p] for p in sorted(out)}


def resolve(
    positions: Sequence[str | None], picks: Sequence[int], race: Callable[[int, list[int]], int]
) -> tuple[list[tuple[int, str]], list[dict], list[str]]:
    """T6, T7 and T8 for one round.

    ``race(position, contenders)`` draws a contested position's winner; it is called once per
    contested position, in position order. Returns ``(takes, races, leftovers)``: ``takes`` is
    a list of (seat, card) in position order, ``races`` the list of
    ``{"position", "contenders", "winner"}``, ``leftovers`` the cards nobody picked, in position
    order (they go to the bottom of the deck).
    """
    takes: list[tuple[int, str]] = []
    races: list[dict] = []
    picked = contenders_by_position(picks)
    for position in picked:
        if positions[position - 1] is None:
            raise ValueError(f"position {position} is empty and cannot be picked")
    leftovers: list[str] = []
    for position, card in zip(POSITIONS, positions):
        if card is None:
            continue
        seats = picked.get(position)
        if not seats:
            leftovers.append(card)
        elif len(seats) == 1:
            takes.append((seats[0], card))
        else:
            winner = race(position, list(seats))
            if winner not in seats:
                raise ValueError(
                    f"race at position {position} won by seat {winner!r}, "
                    f"who is not one of its contenders {seats}"
                )
            races.append({"position": position, "contenders": list(seats), "winner": winner})
            takes.append((winner, card))
    return takes, races, leftovers


def winners(collections: Sequence[Sequence[str]], seats: Sequence[int] | None = None) -> list[int]:
    """T9: every seat holding four different characters of one squad (shared win).
    ``seats`` limits the check to the seats whose collections changed (ascending)."""
    seats = range(len(collections)) if seats is None else seats
    return [seat for seat in seats if completed_squads(collections[seat])]


def end_reason(
    winning_seats: Sequence[int], deck_left: int, rounds_played: int, max_rounds: int
) -> str | None:
    """T9/T10: why the game ends after a round, or None if it goes on."""
    if winning_seats:
        return REASON_SQUAD
    if deck_left == 0:
        return REASON_DECK_EMPTY
    if rounds_played >= max_rounds:
        return REASON_ROUND_LIMIT
    return None


def ranks(
    winning_seats: Sequence[int],
    collections: Sequence[Sequence[str]],
    forfeits: Sequence[str | None],
    by_progress: bool,
) -> list[int]:
    """The game's result (T12), 0-based competition ranks.

    Winners share rank 0; everyone else shares the next place (rank = number of winners that
    did not forfeit); with no winner everyone shares rank 0. With ``by_progress`` the
    non-winners are ordered among themselves by (best squad's distinct count, total distinct
    count), more first. Forfeited seats rank below every other seat and tie among themselves.
    """
    won = set(winning_seats)
    keys: list[tuple[int, ...]] = []
    for seat, held in enumerate(collections):
        if seat in won:
            keys.append((0,))
        elif by_progress:
            best, total = progress(held)
            keys.append((1, -best, -total))
        else:
            keys.append((1,))
    return competition_ranks(keys, forfeits)
