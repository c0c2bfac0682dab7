"""Protocol 2 on the platform's side: what a bot that chose it is sent, the same for a bot in
this process and a bot at the end of a pipe.

Owns: the negotiation's vocabulary (``VERSIONS``, the history modes, the observation modes,
``check_choice``), the protocol-2 start info (``start_info``: the protocol-1 info plus
``history`` and the game's keys fixed for the match), and ``Story``, one match's events as the
runner hands them out: for each decision of a protocol-2 seat, the seat's events since its last
message (``"delta"``) or all of them (``"full"``: ``events``) with its protocol-2 observation
(``observe``; both: ``deliver``): the whole current one (``observation: "full"``, the default)
or only what the events do not tell (``"step"``: ``legal_actions`` and the game's
``STEP_KEYS``, for a bot that folds its events); at the end, the remaining events and the final
reveal (``ending``).

The events themselves are the game's (``mallows.games.<id>.events``, an
``mallows.games.events.EventLog``); a game without an event view gives no events, and its
protocol-2 observation is the protocol-1 one without the start info's keys.
"""

from __future__ import annotations

from typing import Any, Mapping

from mallows import PROTOCOL_VERSIONS
from mallows.games import get_game
from mallows.games.events import MATCH_KEYS, slim

__all__ = [
    "VERSIONS",
    "HISTORY_MODES",
    "OBSERVATION_MODES",
    "check_choice",
    "observation_problem",
    "start_info",
    "step_keys",
    "Story",
]

#: the protocol versions this platform speaks, in the order it offers them
VERSIONS = PROTOCOL_VERSIONS
#: protocol 2's history modes: "delta" (default: the events since the seat's last message)
#: or "full" (every event of the match in each message, for a bot that keeps no state)
HISTORY_MODES = ("delta", "full")
#: protocol 2's observation modes: "full" (default: the whole current observation) or "step"
#: (only ``legal_actions`` and the game's ``STEP_KEYS``, whose step it is: everything else
#: follows from the events, which the game's ``SeatRecall`` folds)
OBSERVATION_MODES = ("full", "step")


def check_choice(
    protocol: Any, history: Any, offered: tuple[int, ...] = VERSIONS, observation: Any = "full"
) -> str | None:
    """What is wrong with a bot's choice of ``protocol``, ``history`` and ``observation``
    (None: nothing)."""
    if type(protocol) is not int or protocol not in offered:
        return f"protocol {protocol!r} is not one of {', '.join(map(str, offered))}"
    if protocol >= 2 and history not in HISTORY_MODES:
        return (
            f'history {history!r} is not "delta" (the events since the last message) or '
            f'"full" (every event of the match in each message)'
        )
    if protocol >= 2 and observation not in OBSERVATION_MODES:
        return observation_problem(observation)
    return None


def observation_problem(observation: Any) -> str:
    """Why ``observation`` is not an observation mode, with the two that are."""
    return (
        f'observation {observation!r} is not "full" (the whole current observation in '
        f'each act, the default) or "step" (only legal_actions and whose step it is; the '
        f"rest follows from the events)"
    )


def _events_of(game: str) -> Any:
    module = getattr(get_game(game), "events", None)
    return module if module is not None and hasattr(module, "match_events") else None


def step_keys(game: str) -> tuple[str, ...]:
    """The keys of ``game``'s ``"step"`` observation: ``legal_actions`` and the game's
    ``STEP_KEYS`` (none for a game without an event view)."""
    events = _events_of(game)
    return ("legal_actions",) + tuple(getattr(events, "STEP_KEYS", ()) if events else ())


def start_info(info: Mapping[str, Any], history: str, observation: str = "full") -> dict:
    """The protocol-2 start info: ``info`` (protocol 1's) with ``"protocol": 2``, the bot's
    ``history`` mode, its ``observation`` mode where it chose ``"step"`` (the default start
    info stays as it was), and the observation's keys fixed for the match (Arschmallows'
    ``rules``, Take4's ``squads``), which the protocol-2 observation leaves out."""
    out = dict(info)
    out["protocol"] = 2
    out["history"] = history
    if observation != "full":
        out["observation"] = observation
    events = _events_of(str(info.get("game")))
    static = getattr(events, "static", None) if events is not None else None
    if static is not None and isinstance(info.get("options"), Mapping):
        out.update(static(info["options"]))
    return out


class Story:
    """One match's events for its protocol-2 seats. ``modes[seat]`` is the seat's history mode
    (None for a protocol-1 seat); ``views[seat]`` its observation mode (default: all
    ``"full"``)."""

    def __init__(
        self,
        game: str,
        players: int,
        options: Mapping[str, Any],
        modes: list[str | None],
        views: list[str | None] | None = None,
    ):
        events = _events_of(game)
        self.steps = [v == "step" for v in views] if views is not None else [False] * players
        self._step = getattr(events, "step_observation", None) if events is not None else None
        self._step_keys = step_keys(game)
        self.log = events.match_events(players, options) if events is not None else None
        self.dropped = (
            frozenset(MATCH_KEYS)
            | frozenset(getattr(events, "STATIC_KEYS", ()))
            | frozenset(getattr(events, "HISTORY_KEYS", ()))
        )
        self.modes = modes
        self.sent = [0] * players
        self._observe = getattr(events, "observation", None) if events is not None else None
        self._cache: dict = {}

    def observe(self, seat: int, state: Any) -> dict:
        """``seat``'s protocol-2 observation (built directly where the game can, else the
        protocol-1 one without the start info's keys); for a ``"step"`` seat only its
        ``step_keys``."""
        if self.steps[seat]:
            if self._step is not None:
                return self._step(state, seat)
            obs = state.observation(seat)
            return {k: obs[k] for k in self._step_keys if k in obs}
        if self._observe is not None:
            return self._observe(state, seat, self._cache)
        return slim(state.observation(seat), self.dropped)

    def events(self, seat: int, state: Any) -> list[dict]:
        """``seat``'s events for its next message: since its last one, or all (``full``)."""
        return self._events(seat, state)

    def deliver(self, seat: int, state: Any) -> tuple[dict, list[dict]]:
        """``(observation, events)``: what a decision of ``seat`` is sent."""
        return self.observe(seat, state), self._events(seat, state)

    def _events(self, seat: int, state: Any) -> list[dict]:
        if self.log is None:
            return []
        self.log.feed(state)
        start = 0 if self.modes[seat] == "full" else self.sent[seat]
        out = self.log.for_seat(seat, start)
        self.sent[seat] = len(self.log.public)
        return out

    def ending(self, seat: int, state: Any) -> dict:
        """``{"events", "reveal"}`` for ``seat``'s match-end message."""
        events = self._events(seat, state)
        reveal = self.log.reveal(state) if self.log is not None else {}
        return {"events": events, "reveal": reveal}
