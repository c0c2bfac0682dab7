"""One match: a game, a bot handle per seat, a seed -> the match record v1.

The runner owns the bots: it starts them, asks each for its decisions with only the observation
the game built for its seat, turns every failure (``BotFailure`` from the handle,
``IllegalAction`` from the game) into a forfeit event ``{"type": "forfeit", "seat", "reason",
"kind"}`` (``kind``: one of ``agents.protocol.KINDS``, ``"illegal"`` for the game's refusal;
an added key of record v1, so older records without it stay valid), lets the random policy
play the forfeited seat from its own stream (so the deals are untouched), and closes every bot
whatever happens.
"""

from __future__ import annotations

import json
import marshal
import random
from typing import Any, Sequence

from mallows import PROTOCOL_VERSION, seeding
from mallows.safetext import REASON_BYTES, cap
from mallows.agents.history import Story
from mallows.agents.protocol import BotFailure, BotHandle, hidden_names
from mallows.errors import IllegalAction
from mallows.games import get_game
from mallows.games.base import SeededChance
from mallows.agents.policy import random_action

RECORD_VERSION = 1  # the match record's format version, kept in every record
MAX_SHOWN = 600  # characters of an answer or of the legal actions quoted in a forfeit reason


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, separators=(",", ":"))
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= MAX_SHOWN else text[:MAX_SHOWN] + f"... ({len(text)} chars)"


def forfeit_count(record: dict) -> int:
    """How many seats of a record forfeited (the store's ``forfeits`` column)."""
    return sum(1 for reason in record["result"].get("forfeits") or () if reason)


def decision_context(number: int, observation: dict) -> str:
    """Where a forfeit happened, for its reason: ``decision 4 in round 4, phase pick``. The
    round is counted from 1, as ``mallows replay`` and the summaries count it (the observation's
    ``round`` is an index from 0). Records made before this wording read ``decision 4, round
    3, phase pick``: that round is the index from 0, and the reason is kept as recorded."""
    where = f"decision {number}"
    r = observation.get("round")
    if isinstance(r, int) and not isinstance(r, bool):
        where += f" in round {r + 1}"
    elif "round" in observation:
        where += f" in round {r}"
    if "phase" in observation:
        where += f", phase {observation['phase']}"
    return where


def play_match(
    game: str,
    options: dict,
    seed: int,
    bots: Sequence[BotHandle],
    names: Sequence[str] | None = None,
    chance: seeding.Chance = seeding.UNKEYED,
    hide_names: bool = False,
) -> dict:
    """Play one match and return its record. ``options`` must be the game's effective options
    (``make_options``); the handles are closed before this returns. ``chance`` derives the
    bots' and the fallback policy's seeds from ``seed`` (``seeding.Chance``: keyed with a
    secret in every tournament since derivation 2; unkeyed, derivation 1, by default)."""
    n = len(bots)
    names = list(names) if names is not None else [b.name for b in bots]
    seen_names = hidden_names(n) if hide_names else names
    try:
        module = get_game(game)
        state = module.new_state(options, n, SeededChance(seed))
        forfeits: list[str | None] = [None] * n
        fallbacks: list[random.Random | None] = [None] * n
        opening: list[dict] = []

        def forfeit(seat: int, reason: str, kind: str, events: list[dict]) -> None:
            reason = cap(reason, REASON_BYTES)  # it may quote the bot's own text: bounded
            forfeits[seat] = reason
            fallbacks[seat] = random.Random(chance.fallback_seed(seed, seat))
            events.append({"type": "forfeit", "seat": seat, "reason": reason, "kind": kind})

        for seat, bot in enumerate(bots):
            info = {
                "protocol": PROTOCOL_VERSION,
                "game": game,
                "options": dict(state.options),  # options are flat: scalars only
                "seat": seat,
                "players": n,
                "seed": chance.bot_seed(seed, seat),
                "names": list(seen_names),
            }
            try:
                bot.start(info)
            except BotFailure as exc:
                forfeit(seat, f"before the first deal: {exc}", exc.kind, opening)
        state.events[0:0] = opening
        # Protocol 2 (the seats whose bot chose it): their events and observations
        modes = [
            getattr(bot, "history", None) if getattr(bot, "protocol", 1) == 2 else None
            for bot in bots
        ]
        views = [
            getattr(bot, "observation_mode", None) if mode else None
            for bot, mode in zip(bots, modes)
        ]
        story = Story(game, n, state.options, modes, views) if any(modes) else None

        decisions = [0] * n
        while not state.is_terminal():
            seats = state.to_move()
            batches: dict[int, list] = {}  # protocol-2 seats: their events, taken step-wise
            if story is None:
                observations = [state.observation(s) for s in seats]
            else:
                observations = []
                for s in seats:
                    if modes[s] is not None and forfeits[s] is None:
                        obs, batches[s] = story.deliver(s, state)
                    else:
                        obs = state.observation(s)
                    observations.append(obs)
            for seat, obs in zip(seats, observations):
                decisions[seat] += 1
                if forfeits[seat] is None:
                    answer: Any = None
                    try:
                        if seat in batches:  # protocol 2: the observation and its events
                            answer = bots[seat].act(obs, batches[seat])
                        else:
                            answer = bots[seat].act(obs)
                        state.apply(seat, answer)
                        continue
                    except BotFailure as exc:
                        reason = f"{decision_context(decisions[seat], obs)}: {exc}"
                        kind = exc.kind
                    except IllegalAction as exc:
                        kind = "illegal"
                        reason = (
                            f"{decision_context(decisions[seat], obs)}: answered "
                            f"{_short(answer)}, which is illegal: {exc}. Legal actions "
                            f"were {_short(obs['legal_actions'])}"
                        )
                    forfeit(seat, reason, kind, state.events)
                    obs = state.observation(seat)  # the failed bot may have altered its copy
                state.apply(seat, random_action(obs, fallbacks[seat]))
        result = state.result(forfeits)
        record = {
            "record_version": RECORD_VERSION,
            "game": game,
            "options": state.options,
            "seed": seed,
            "players": names,
        }
        isolation = [getattr(b, "isolation", "in-process") for b in bots]
        if "process" in isolation:  # a seat ran without its sandbox (--sandbox off): say so
            record["isolation"] = isolation  # per seat: "in-process", "sandbox", "process"
        record.update(state.record_header())
        record["events"] = state.events
        record["result"] = result
        frozen = marshal.dumps(result)  # plain JSON data: each bot gets its own copy
        for seat, bot in enumerate(bots):
            try:
                end = {"seat": seat, "result": marshal.loads(frozen)}
                if story is not None and modes[seat]:
                    end.update(story.ending(seat, state))
                bot.end(end)
            except BotFailure:
                pass  # an end hook's failure is not a forfeit
        return record
    finally:
        for bot in bots:
            try:
                bot.close()
            except Exception:
                pass
