"""What each game's narration shares (``mallows.games.<id>.narration``): ``Narration``, the
base of a game's ``Narrator``, which turns one seat's match events into lines of words.

A subclass implements ``lines(event)`` (one event's lines) and may override ``setup()`` (its
own state) and ``final_lines(result)``; ``add(events)`` skips events already told (a ``full`` history
delivers them again) and ``who(seat)`` names a seat for the reader (``you``, ``seat 1
(greedy)``). Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["Narration"]


class Narration:
    """A seat's match events in words. ``seat``: the reader (their own actions say
    ``you``); ``names``: the players' names by seat."""

    def __init__(
        self,
        seat: int,
        players: int,
        options: Mapping[str, Any],
        names: Sequence[str] | None = None,
    ):
        self.seat = seat
        self.players = players
        self.options = options
        self.names = list(names) if names else []
        self.next_n = 0
        self.setup()

    def setup(self) -> None:
        """The game's own state, made when the narration starts (default: none)."""

    def who(self, seat: int) -> str:
        if seat == self.seat:
            return "you"
        if 0 <= seat < len(self.names) and self.names[seat]:
            return f"seat {seat} ({self.names[seat]})"
        return f"seat {seat}"

    def add(self, events: Sequence[Mapping[str, Any]]) -> list[str]:
        """The lines of the events not told yet, in order."""
        out: list[str] = []
        for event in events:
            n = event.get("n")
            if isinstance(n, int):
                if n < self.next_n:  # delivered before (full history)
                    continue
                self.next_n = n + 1
            out.extend(self.lines(event))
        return out

    def lines(self, event: Mapping[str, Any]) -> list[str]:  # pragma: no cover - abstract
        raise NotImplementedError

    def final_lines(self, result: Mapping[str, Any] | None = None) -> list[str]:
        """The match's end, beyond its last event (default: nothing)."""
        return []
