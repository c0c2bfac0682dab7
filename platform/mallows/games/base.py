"""The game contract, written once: what a game module provides, its state machine, and where
its randomness comes from.

A game is a package under ``mallows.games`` (registered by one line in ``mallows.games.GAMES``)
whose module satisfies ``Game``; its matches are ``State`` objects. A game never does I/O, never
reads a clock, never touches global randomness.

Chance. A game draws every chance event from a ``Chance`` the match hands in, by *named stream*:
``chance.shuffle("deal", round, cards)``, ``chance.choice("race", round, contenders)``, or any
name of its own (lower-case, e.g. ``"dice"``). ``SeededChance`` draws stream (name, round) from
the match seed (``mallows.seeding.stream_draws``: numpy's generator, computed by the
compiled core where there is one), so a stream never depends on what happened
before it or on another stream; within one (name, round) the draws come in order.
``ReplayChance`` reads the draws back from a record's events, so a record replays without its
seed. For that, a game records each draw as an event, in draw order, and declares where in
``CHANCE_EVENTS``: stream name -> the event key holding the outcome. The event's ``type`` is
the stream's name (Arschmallows: ``{"type": "deal", "round": r, "deck": [...]}`` and
``{"type": "reshuffle", "deck": [...]}``, so ``{"deal": "deck", "reshuffle": "deck"}``; Take4:
``{"type": "race", ..., "winner": seat}``, so ``"race": "winner"``).
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any, Callable, Mapping, Protocol, Sequence, TypeVar, runtime_checkable

from mallows import seeding


class State(Protocol):
    """The interface the runner drives. Sequential games have one seat in ``to_move``;
    simultaneous games list every seat that must still answer this step, and every one of them
    gets its observation before any of their answers is applied."""

    game: str
    players: int
    options: dict
    events: list[dict]  # record events so far (the runner inserts forfeit events)

    def to_move(self) -> tuple[int, ...]: ...
    def is_terminal(self) -> bool: ...
    def legal_actions(self, seat: int) -> list[dict]:
        """Every action ``seat`` may answer now (``[]`` when it is not to move). An entry may
        be a template the random policy expands (Arschmallows' ``get_rid``)."""

    def observation(self, seat: int) -> dict:
        """What ``seat`` is shown: JSON data holding nothing the seat may not know, with
        ``game``, ``seat`` and ``legal_actions``. Never changed afterwards by the engine."""

    def apply(self, seat: int, action: Any) -> None:
        """Apply ``seat``'s answer. Any object is accepted as input: a malformed or illegal one
        raises ``IllegalAction`` with a message naming what is wrong, and leaves the state as it
        was."""

    def result(self, forfeits: Sequence[str | None]) -> dict:
        """The record's ``result``: ``ranks`` (0 = first, forfeits applied, see
        ``competition_ranks``), ``forfeits`` and the game's own keys."""

    def record_header(self) -> dict:
        """Extra top-level record keys (Arschmallows: ``{"rules": name}``)."""


@runtime_checkable
class Game(Protocol):
    """A game module (``mallows.games.<id>``): every hook the platform uses.

    Rule sets and options: ``RULE_SETS`` maps each rule-set name to its options' defaults (a
    game without rule sets has one, ``"default"``). ``make_options`` accepts a ``"rules"`` key
    among the overrides when it names the same set. A game with more than one rule set keeps
    ``"rules"`` in its effective options and returns it from ``record_header`` (so a record's
    options rebuild the game); a game with one rule set need not (Take4's records have none).
    """

    NAME: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    SIMULTANEOUS: bool
    RULE_SETS: Mapping[str, Mapping[str, Any]]
    DEFAULT_RULES: str
    CHANCE_EVENTS: Mapping[str, str]

    def make_options(
        self, rules: str | None = None, overrides: Mapping[str, Any] | None = None
    ) -> dict:
        """Every effective option, validated; CLI strings ("4", "true") are coerced. Raises
        ``GameConfigError`` naming the option, its range and the fix."""

    def new_state(self, options: Mapping[str, Any], players: int, chance: "Chance") -> State:
        """A new match at its first decision. ``options`` are validated again; a player count
        out of range is a ``GameConfigError``."""

    def replay(self, record: Mapping) -> State:
        """The final state of ``record`` rebuilt from its events alone (``ReplayChance``)."""

    def summary(self, record: Mapping) -> tuple[list[str], list[list], list[str]]:
        """``(headers, rows, notes)``: the table ``mallows play`` prints for a record."""

    def describe_event(self, record: Mapping, event: Mapping) -> list[str] | None:
        """The lines ``mallows replay`` prints for one of the game's events (None: not one of
        the game's; the runner's ``forfeit`` events are described by the platform)."""

    def describe_result(self, record: Mapping, seat: int) -> list[str]:
        """Short facts about ``seat``'s result for ``mallows replay`` (e.g. ``total 12``)."""

    def random_action(self, observation: Mapping, rng: Any, **params: Any) -> dict:
        """The game's random policy, from the observation alone, drawing only from ``rng`` (a
        ``random.Random``). ``params`` are the random bot's parameters; a game ignores those
        it does not use."""

    # Optional: ``hidden_variants(state, seat, rng) -> list[State]``, copies of ``state`` that
    # differ only in what ``seat`` may not know; ``mallows.testing.games.check_game`` then
    # checks that each gives the seat the same observation (a generic leak test).
    # Optional: ``events``, the module of the game's per-seat events (protocol 2): a
    # ``match_events(players, options)`` giving a ``mallows.games.events.EventLog``, a
    # ``SeatRecall(start_info)`` folding a seat's events, ``STATIC_KEYS``/``HISTORY_KEYS``/
    # ``STEP_KEYS``, and optionally ``static(options)`` (start-info keys) and
    # ``observation(state, seat, cache)`` (the protocol-2 observation, built directly) and
    # ``step_observation(state, seat)`` (the ``"step"`` one: ``legal_actions`` and STEP_KEYS);
    # ``recall_variants(state, seat, rng)`` (default ``hidden_variants``): copies differing in
    # what the seat has never known. ``mallows.testing.events.check_events`` checks them all
    # (perfect recall, secrecy); the platform's protocol 2 uses them (``mallows.agents.history``).


HOOKS = (
    "make_options",
    "new_state",
    "replay",
    "summary",
    "describe_event",
    "describe_result",
    "random_action",
)
CONSTANTS = (
    "NAME",
    "MIN_PLAYERS",
    "MAX_PLAYERS",
    "SIMULTANEOUS",
    "RULE_SETS",
    "DEFAULT_RULES",
    "CHANCE_EVENTS",
)


def missing(module: Any) -> list[str]:
    """The names of ``Game`` that ``module`` lacks (constants, or hooks that are not callable)."""
    out = [name for name in CONSTANTS if not hasattr(module, name)]
    return out + [name for name in HOOKS if not callable(getattr(module, name, None))]


class Chance(Protocol):
    """Where a game's chance events come from (see the module docstring)."""

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:
        """``cards`` in a random order: the next draw of stream ``stream`` in ``round_``."""

    def choice(self, stream: str, round_: int, options: Sequence, at: Any = None) -> Any:
        """One of ``options``: the next draw of stream ``stream`` in ``round_``. ``at`` says
        what the draw is for (Take4: the position raced for); seeded and replayed chance
        ignore it, a scripted chance in a test may answer by it."""


class SeededChance:
    """Chance from a match seed: stream (name, round) is its own generator, drawn in order."""

    def __init__(self, seed: int):
        self.seed = seed
        self._streams: dict[tuple[str, int], Any] = {}

    def _rng(self, stream: str, round_: int) -> Any:
        rng = self._streams.get((stream, round_))
        if rng is None:
            rng = self._streams[(stream, round_)] = seeding.stream_draws(self.seed, stream, round_)
        return rng

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:
        return [cards[i] for i in self._rng(stream, round_).permutation(len(cards))]

    def choice(self, stream: str, round_: int, options: Sequence, at: Any = None) -> Any:
        return options[int(self._rng(stream, round_).integers(len(options)))]


class ReplayChance:
    """Chance read back from a record's events: each stream's draws in the order recorded.

    ``streams`` is the game's ``CHANCE_EVENTS`` (stream name -> the event key holding the
    outcome). A shuffle read back must hold the cards it was asked to shuffle and a choice
    must be one of its options; a record that runs out of draws or breaks either rule is a
    ``ValueError`` naming the stream.
    """

    def __init__(self, events: Sequence[Mapping], streams: Mapping[str, str]):
        self._draws: dict[str, deque] = {name: deque() for name in streams}
        for event in events:
            key = streams.get(event.get("type", ""))
            if key is not None:
                self._draws[event["type"]].append(event[key])

    def _next(self, stream: str, round_: int) -> Any:
        draws = self._draws.get(stream)
        if not draws:
            raise ValueError(
                f"the record has no more {stream!r} events to replay (round "
                f"{round_}): it was not written by this game or was cut short"
            )
        return draws.popleft()

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:
        deck = list(self._next(stream, round_))
        if Counter(map(repr, deck)) != Counter(map(repr, cards)):
            raise ValueError(
                f"the record's {stream!r} event of round {round_} is not a "
                f"shuffle of the {len(cards)} cards the game holds"
            )
        return deck

    def choice(self, stream: str, round_: int, options: Sequence, at: Any = None) -> Any:
        value = self._next(stream, round_)
        if value not in options:
            raise ValueError(
                f"the record's {stream!r} event of round {round_} chose "
                f"{value!r}, which is not one of {list(options)}"
            )
        return value


def replay_chance(module: Any, events: Sequence[Mapping], cls: type = ReplayChance) -> Any:
    """The game's ``ReplayChance`` (or ``cls``, a subclass) over ``events``, on the chance
    streams the game names in ``CHANCE_EVENTS``."""
    return cls(events, module.CHANCE_EVENTS)


S = TypeVar("S", bound="State")


def replay_actions(
    game: Game, record: Mapping, apply: Callable[[S, Mapping], None] | None = None
) -> S:
    """``Game.replay`` for the usual record: a new state on ``ReplayChance``, then every
    ``{"type": "action", "seat", "action"}`` event applied in order (or, with ``apply``, every
    event handed to it, for a game that records its actions differently)."""
    events = record["events"]
    state: Any = game.new_state(
        record["options"],
        len(record["players"]),  # the game's own
        ReplayChance(events, game.CHANCE_EVENTS),
    )  # State class: S
    for event in events:
        if apply is not None:
            apply(state, event)
        elif event["type"] == "action":
            state.apply(event["seat"], event["action"])
    return state


def competition_ranks(keys: Sequence, forfeits: Sequence[str | None] = ()) -> list[int]:
    """Standard competition ranks (0 = first; ties share the better rank; 0, 0, 2).

    ``keys``: one sort key per seat, lower is better. A forfeited seat ranks below every seat that
    did not forfeit, and forfeited seats tie among themselves.
    """
    forfeited = [bool(forfeits[s]) if s < len(forfeits) else False for s in range(len(keys))]
    full = [(forfeited[s], () if forfeited[s] else keys[s]) for s in range(len(keys))]
    return [sum(1 for other in full if other < mine) for mine in full]
