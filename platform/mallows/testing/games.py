"""``check_game(game_id)``: does a registered game keep the contract of
``mallows.games.base.Game``? Run it on a new game before anything else, and in its tests.

What it checks, for every rule set, every player count and each seed given:

- the module: every constant and hook is there; options rebuild from a record's options; an
  unknown option and a player count out of range are ``GameConfigError``;
- random play to the end (the game's own ``random_action``), within ``max_decisions``;
- at every decision: the observation is JSON data that names the game and the seat, its
  ``legal_actions`` are the state's, and a seat not to move has none; a kept observation never
  changes when later actions happen; in a simultaneous step, a seat's observation does not move
  when another seat answers first;
- at sampled decisions: every legal action is accepted (as it is, or as the game's random
  policy expands it, e.g. Arschmallows' ``get_rid`` template), and malformed, unknown or
  out-of-turn answers raise ``IllegalAction`` and leave the state as it was; with the optional
  hook ``hidden_variants(state, seat, rng)``, each state it returns (the same game but for
  what ``seat`` may not know) gives ``seat`` the same observation;
- through the real runner (``play_match``): the same seed gives the same record JSON; the
  record replays from its events alone (``replay``) to the same events and result; ``summary``,
  ``describe_event`` and ``describe_result`` accept it.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from typing import Any, Iterable, Iterator, Sequence

from mallows.errors import ConformanceError, GameConfigError, IllegalAction
from mallows.games import get_game
from mallows.games.base import SeededChance, missing

#: answers no game accepts (a seat's malformed replies)
GARBAGE: tuple[Any, ...] = (None, "pass", 3, [], {}, {"type": None}, {"type": "__no_such_action__"})


def _fail(where: str, what: str) -> None:
    raise ConformanceError(f"{where}: {what}")


def _json(value: Any, where: str) -> str:
    try:
        text = json.dumps(value, sort_keys=True, allow_nan=False)
    except (TypeError, ValueError) as exc:
        _fail(where, f"not JSON data ({exc})")
    if json.loads(text) != value:
        _fail(where, "does not survive a JSON round trip unchanged (tuples, non-string keys?)")
    return text


def _copy(state: Any) -> Any:
    """A deep copy of ``state``: pickle's (fast, keeps shared parts shared), else deepcopy's."""
    try:
        return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))
    except Exception:  # noqa: BLE001 - an unpicklable state is still copied
        return copy.deepcopy(state)


def _fingerprint(state: Any) -> str:
    """What the platform can see of a state: who moves, the events (their count and the last
    few), every seat's legal actions and observation. Equal before and after a refused answer,
    or the answer changed something."""
    seats = range(state.players)
    return json.dumps(
        [
            list(state.to_move()),
            state.is_terminal(),
            len(state.events),
            state.events[-4:],
            [state.legal_actions(s) for s in seats],
            [state.observation(s) for s in seats],
        ],
        sort_keys=True,
        default=repr,
    )


def check_game(
    game_id: str,
    seeds: Iterable[int] = (0, 1, 2),
    *,
    players: Sequence[int] | None = None,
    rules: Sequence[str] | None = None,
    max_decisions: int = 20_000,
    sample_every: int = 7,
    max_tried: int = 24,
) -> int:
    """Check ``game_id`` against the contract; return the number of decisions played.

    ``players`` and ``rules`` default to every player count and every rule set; each
    combination is played with each of ``seeds``. Every ``sample_every``-th decision (and the
    first five) has every legal action (at most ``max_tried`` of them, spread over the list)
    and every kind of bad answer tried on a copy of the state.
    """
    game = get_game(game_id)
    lacking = missing(game)
    if lacking:
        _fail(game_id, f"the module lacks {', '.join(lacking)}")
    _check_module(game_id, game)
    decisions = 0
    for where, options, n, seed in tables(game_id, game, seeds, players, rules):
        decisions += _play(where, game, options, n, seed, max_decisions, sample_every, max_tried)
        _check_record(where, game_id, game, options, n, seed)
    return decisions


def tables(
    game_id: str,
    game: Any,
    seeds: Iterable[int],
    players: Sequence[int] | None,
    rules: Sequence[str] | None,
) -> Iterator[tuple[str, dict, int, int]]:
    """``(where, options, players, seed)`` for every rule set (or ``rules``), every player
    count (or ``players``) and each seed: the matches a check plays, ``where`` naming one."""
    seeds = list(seeds)
    for rule_set in rules if rules is not None else list(game.RULE_SETS):
        options = game.make_options(rule_set, {})
        for n in players if players is not None else range(game.MIN_PLAYERS, game.MAX_PLAYERS + 1):
            for seed in seeds:
                yield f"{game_id} ({rule_set}, {n} players, seed {seed})", options, n, seed


def _check_module(where: str, game: Any) -> None:
    if game.NAME != where:
        _fail(where, f"NAME is {game.NAME!r}, not the registered id {where!r}")
    if not 1 <= game.MIN_PLAYERS <= game.MAX_PLAYERS:
        _fail(where, f"MIN_PLAYERS {game.MIN_PLAYERS} / MAX_PLAYERS {game.MAX_PLAYERS}")
    if game.DEFAULT_RULES not in game.RULE_SETS:
        _fail(where, f"DEFAULT_RULES {game.DEFAULT_RULES!r} is not in RULE_SETS")
    for rule_set in game.RULE_SETS:
        options = game.make_options(rule_set, {})
        _json(options, f"{where}: make_options({rule_set!r})")
        if game.make_options(None, options) != options:
            _fail(
                where,
                f"make_options(None, <the effective options of {rule_set!r}>) does "
                f"not give them back: a record's options would not rebuild its game",
            )
    for bad in ({"__no_such_option__": 1},):
        try:
            game.make_options(None, bad)
        except GameConfigError:
            pass
        else:
            _fail(where, f"make_options accepted the unknown option {bad}")
    options = game.make_options()
    for n in (game.MIN_PLAYERS - 1, game.MAX_PLAYERS + 1):
        try:
            game.new_state(options, n, SeededChance(0))
        except GameConfigError:
            pass
        else:
            _fail(
                where,
                f"new_state accepted {n} players (the range is {game.MIN_PLAYERS} to "
                f"{game.MAX_PLAYERS}): it must raise GameConfigError",
            )


def _play(
    where: str,
    game: Any,
    options: dict,
    n: int,
    seed: int,
    max_decisions: int,
    sample_every: int,
    max_tried: int,
) -> int:
    state = game.new_state(options, n, SeededChance(seed))
    rng = random.Random(seed)
    kept: list[tuple[dict, str, str]] = []  # (observation, its JSON then, where)
    decisions = 0
    while not state.is_terminal():
        seats = list(state.to_move())
        if not seats:
            _fail(where, "the state is not terminal but no seat is to move")
        if not game.SIMULTANEOUS and len(seats) != 1:
            _fail(where, f"a sequential game has seats {seats} to move at once")
        step_obs = {s: state.observation(s) for s in seats}
        step_text = {
            s: _json(step_obs[s], f"{where}, decision {decisions + 1}, seat {s}'s observation")
            for s in seats
        }
        for seat in range(n):
            if seat not in seats and state.legal_actions(seat):
                _fail(where, f"seat {seat} is not to move but has legal actions")
        for k, seat in enumerate(seats):
            decisions += 1
            here = f"{where}, decision {decisions}, seat {seat}"
            if decisions > max_decisions:
                _fail(where, f"no end after {max_decisions} decisions of random play")
            obs = step_obs[seat]
            if k > 0 and _json(state.observation(seat), here) != step_text[seat]:
                _fail(
                    here,
                    "the observation changed when another seat answered first in a "
                    "simultaneous step: it shows a pick that is not yet public",
                )
            if obs.get("game") != game.NAME or obs.get("seat") != seat:
                _fail(here, f"the observation must carry game {game.NAME!r} and seat {seat}")
            legal = state.legal_actions(seat)
            if not legal:
                _fail(here, "a seat to move has no legal actions")
            if json.dumps(obs.get("legal_actions"), sort_keys=True) != json.dumps(
                legal, sort_keys=True
            ):
                _fail(here, "the observation's legal_actions are not the state's")
            if decisions <= 5 or decisions % sample_every == 0:
                _try_answers(here, game, state, seat, obs, legal, rng, max_tried)
                _check_hidden(here, game, state, seat, rng)
            kept.append((obs, step_text[seat], here))
            action = game.random_action(obs, rng)
            try:
                state.apply(seat, action)
            except IllegalAction as exc:
                _fail(here, f"the game's random policy chose {action!r}, refused: {exc}")
            if len(kept) % 16 == 0 or state.is_terminal():
                _check_kept(kept)
    _check_kept(kept)
    result = state.result([None] * n)
    _json(result, f"{where}: result")
    ranks = result.get("ranks")
    if not (
        isinstance(ranks, list)
        and len(ranks) == n
        and all(type(r) is int and 0 <= r < n for r in ranks)
        and 0 in ranks
    ):
        _fail(where, f"result['ranks'] must be one rank per seat, 0 first, got {ranks!r}")
    forfeited = state.result(["gave up"] + [None] * (n - 1))["ranks"]
    if n > 1 and not all(forfeited[0] > forfeited[s] for s in range(1, n)):
        _fail(where, f"a forfeited seat 0 must rank below every other seat, got {forfeited}")
    return decisions


def _check_kept(kept: list[tuple[dict, str, str]]) -> None:
    for obs, text, here in kept:
        if json.dumps(obs, sort_keys=True) != text:
            _fail(
                here,
                "this observation changed after it was handed out: a later action "
                "changed a list or dict the bot holds",
            )


def _try_answers(
    here: str,
    game: Any,
    state: Any,
    seat: int,
    obs: dict,
    legal: list,
    rng: random.Random,
    max_tried: int,
) -> None:
    before = _fingerprint(state)
    step = max(1, len(legal) // max_tried)
    for entry in legal[::step][:max_tried]:
        trial = _copy(state)
        try:
            trial.apply(seat, copy.deepcopy(entry))
        except IllegalAction:
            expanded = game.random_action({**obs, "legal_actions": [entry]}, rng)
            try:
                trial.apply(seat, expanded)
            except IllegalAction as exc:
                _fail(
                    here,
                    f"the legal action {entry!r} (expanded by the random policy: "
                    f"{expanded!r}) was refused: {exc}",
                )
    other = next((s for s in range(state.players) if s not in state.to_move()), None)
    attempts = [(seat, bad) for bad in GARBAGE]
    attempts.append((seat, {**legal[0], "__extra_key__": 1}))
    if other is not None:
        attempts.append((other, legal[0]))
    attempts.append((state.players, legal[0]))
    for who, answer in attempts:
        trial = _copy(state)
        try:
            trial.apply(who, answer)
        except IllegalAction:
            pass
        except Exception as exc:  # noqa: BLE001 - any other exception is the failure
            _fail(
                here,
                f"seat {who} answering {answer!r} raised {type(exc).__name__}: {exc}; "
                f"a bad answer must raise IllegalAction",
            )
        else:
            _fail(
                here, f"seat {who} answering {answer!r} was accepted; it must raise IllegalAction"
            )
        if _fingerprint(trial) != before:
            _fail(here, f"seat {who} answering {answer!r} was refused but changed the state")
    if _fingerprint(state) != before:
        _fail(here, "trying answers on copies changed the original state")


def _check_hidden(here: str, game: Any, state: Any, seat: int, rng: random.Random) -> None:
    variants = getattr(game, "hidden_variants", None)
    if variants is None:
        return
    mine = json.dumps(state.observation(seat), sort_keys=True)
    for k, variant in enumerate(variants(state, seat, rng)):
        if json.dumps(variant.observation(seat), sort_keys=True) != mine:
            _fail(
                here,
                f"hidden variant {k} (differing only in what seat {seat} may not know) "
                f"gives the seat another observation: it leaks hidden information",
            )


def _check_record(where: str, game_id: str, game: Any, options: dict, n: int, seed: int) -> None:
    from mallows.agents.policy import random_action
    from mallows.agents.inprocess import InProcessBot
    from mallows.runner.match import play_match

    class _Random:
        def match_start(self, info: dict) -> None:
            self.rng = random.Random(info["seed"])

        def act(self, observation: dict) -> object:
            return random_action(observation, self.rng)

    def one() -> tuple[dict, str]:
        bots = [InProcessBot(_Random(), f"random{s}") for s in range(n)]
        record = play_match(game_id, options, seed, bots)
        return record, json.dumps(record, sort_keys=True)

    record, text = one()
    if one()[1] != text:
        _fail(
            where,
            "the same seed and bots gave another record: the game is not "
            "deterministic (global randomness, a clock, set or dict order?)",
        )
    record = json.loads(text)
    if record["game"] != game_id or record["players"] != [f"random{s}" for s in range(n)]:
        _fail(where, "the record does not name its game and players")
    state = game.replay(record)
    if not state.is_terminal():
        _fail(where, "replay(record) does not reach the end of the match")
    if json.dumps(state.events, sort_keys=True) != json.dumps(record["events"], sort_keys=True):
        _fail(where, "replay(record) rebuilt other events than the record's")
    if state.result(record["result"]["forfeits"]) != record["result"]:
        _fail(where, "replay(record) ends with another result than the record's")
    headers, rows, notes = game.summary(record)
    if any(len(row) != len(headers) for row in rows) or len(rows) != n:
        _fail(where, "summary(record) must give one row per seat, as wide as its headers")
    for event in record["events"]:
        if event["type"] != "forfeit":
            lines = game.describe_event(record, event)
            if lines is not None and not all(isinstance(x, str) for x in lines):
                _fail(where, f"describe_event gave {lines!r} for {event}: a list of strings")
    for s in range(n):
        if not all(isinstance(x, str) for x in game.describe_result(record, s)):
            _fail(where, "describe_result must give a list of strings")
