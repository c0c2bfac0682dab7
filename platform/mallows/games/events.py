"""The story of a match as each seat may see it: match events, numbered match-wide, each with
a public part every seat gets and, where a seat sees more, a private part for that seat alone.

Owns ``EventLog``, the base of every game's event view (``mallows.games.<id>.events``): it is
fed the state after each transition (``feed``), reads the engine's own record events that
arrived since (``state.events``) and translates each into one match event through the game's
``translate``; and ``slim``, the protocol-2 observation (the protocol-1 observation without the
keys fixed for the whole match, which the start info carries once).

A match event, as a seat gets it, is a plain dict: ``{"n": 12, "type": "draw", "seat": 1}``
for every seat, ``{"n": 12, "type": "draw", "seat": 1, "private": {"value": 7}}`` for the
seat that drew. ``n`` counts from 0 over the whole match and every seat gets every event, so a
seat's events are ``n`` = 0, 1, 2, ... without a gap. The dicts are shared between seats and
between the deliveries of ``full`` history: read-only for bots (copy before changing).

Pure: no I/O, no clock, no randomness; a view only reads the state it is fed.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping, Sequence

__all__ = ["EventLog", "slim", "MATCH_KEYS"]

#: Keys of every protocol-1 observation that never change in a match and are in the start info
#: (``protocol``, ``game``, ``options``, ``seat``, ``players``): a protocol-2 observation leaves
#: them out (with the game's own ``STATIC_KEYS`` and ``HISTORY_KEYS``).
MATCH_KEYS = ("protocol", "game", "options", "seat", "players")


def slim(observation: Mapping[str, Any], dropped: Iterable[str]) -> dict:
    """The protocol-2 observation: ``observation`` without ``dropped`` keys (a new top-level
    dict; the values inside are the observation's own, shared)."""
    drop = dropped if isinstance(dropped, frozenset) else frozenset(dropped)
    return {k: v for k, v in observation.items() if k not in drop}


class EventLog:
    """The match events of one match, for every seat. Subclasses implement ``translate``
    (one engine event -> ``emit`` calls) and may override ``reveal`` and ``begin_batch``.

    ``public[k]`` is event k's public dict (with ``n`` and ``type``); ``private[k]`` maps a
    seat to its private part, or is None. ``for_seat(seat, start)`` renders a seat's events
    from ``start`` on (cached per seat: each dict is built once).
    """

    def __init__(self, players: int, options: Mapping[str, Any]):
        self.players = players
        self.options = options
        self.public: list[dict] = []
        self.private: list[dict[int, dict] | None] = []
        self.cursor = 0  # how many of state.events were read
        self._rendered: list[list[dict]] = [[] for _ in range(players)]

    # -- building -------------------------------------------------------------------------
    def emit(self, type_: str, public: dict, private: Mapping[int, dict] | None = None) -> None:
        """Add the next match event: ``public`` keys for every seat, ``private[seat]`` for a
        seat that sees more."""
        self.public.append({"n": len(self.public), "type": type_, **public})
        self.private.append(private or None)  # type: ignore[arg-type]  # read-only

    def feed(self, state: Any) -> int:
        """Translate the engine events ``state`` recorded since the last feed; returns the
        number of match events so far."""
        events = state.events
        start, self.cursor = self.cursor, len(events)
        if start < self.cursor:
            batch = events[start : self.cursor]
            self.begin_batch(batch, state)
            for event in batch:
                if event.get("type") == "forfeit":  # the runner's, in every game
                    self.forfeit(event, state)
                else:
                    self.translate(event, state)
            self.end_batch(state)
        return len(self.public)

    def begin_batch(self, batch: Sequence[dict], state: Any) -> None:
        """Called before a batch of engine events is translated (default: nothing)."""

    def end_batch(self, state: Any) -> None:
        """Called after a batch was translated (default: nothing)."""

    def forfeit(self, event: dict, state: Any) -> None:
        """The runner's forfeit event: public, with its seat and kind (not its reason)."""
        self.emit("forfeit", {"seat": event["seat"], "kind": event.get("kind")})

    def translate(self, event: dict, state: Any) -> None:  # pragma: no cover - abstract
        raise NotImplementedError

    def reveal(self, state: Any) -> dict:
        """What every seat is shown when the match is over (default: nothing more)."""
        return {}

    # -- reading --------------------------------------------------------------------------
    def for_seat(self, seat: int, start: int = 0) -> list[dict]:
        """Seat ``seat``'s events ``start``, ``start + 1``, ... up to the newest."""
        rendered = self._rendered[seat]
        public, privates = self.public, self.private
        for k in range(len(rendered), len(public)):
            private = privates[k]
            mine = private.get(seat) if private is not None else None
            rendered.append(public[k] if mine is None else {**public[k], "private": mine})
        return rendered[start:] if start else rendered[:]
