"""What every tournament format shares: the checks of its file and of its bots.

A format (``roundrobin``, ``ladder``, ``compare``: one package each under ``tournaments/``)
reads its own file or command line, but the words it checks them with are the same: a name
(``NAME_RE``), whole numbers in a range (``whole_number``), the ``[limits]`` table
(``check_limits``: ``Limits.from_dict`` is the one validator), the ``[ratings]`` table
(``check_ratings``: the rating system owns its parameters), a list of bots each in its one
spelling (``canonical_bots``), the bots themselves resolved, built and checked to play the
game with the sandbox decided once (``check_bots``: the check step of ``plan.prepare``), a
suggestion for a misspelt key (``suggest``), and what changed between a stored definition and
a new one (``diff_definitions``). Every problem is a ``TournamentError`` naming the file
(``where``) and the fix.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import re
from collections.abc import Iterable
from typing import Any

from mallows.agents.protocol import Limits
from mallows.agents.registry import BotSpec, Resolver
from mallows.errors import MallowsError, TournamentError
from mallows.results.ratings import TRUESKILL as RATING_SYSTEM
from mallows.tournaments.plan import decide_sandbox, ready_all, resolve_all, sandbox_limits

#: a tournament's, ladder's or comparison's name: unique in a database
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


def suggest(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices``, or nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean {close[0]!r}?)" if close else ""


def where(source: str) -> str:
    """The prefix naming the file a message is about (nothing without one)."""
    return f"{source}: " if source else ""


def whole_number(data: dict, key: str, low: int, high: int | None, src: str, hint: str) -> int:
    """``data[key]``, a whole number from ``low`` to ``high`` (None: no upper bound)."""
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise TournamentError(f"{where(src)}`{key}` must be a whole number, got {value!r}: {hint}")
    if value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise TournamentError(f"{where(src)}`{key}` must be {span}, got {value}: {hint}")
    return value


def available_bots() -> list[str]:
    """The names of every bot the registry can find (for error messages)."""
    from mallows.agents.registry import list_bots

    return sorted(b.name for b in list_bots())


def check_bots(
    bots: Iterable[str],
    game: str,
    limits: dict,
    source: str = "",
    resolver: Resolver | None = None,
    sandbox: str | None = None,
) -> tuple[dict, dict]:
    """The check step of ``plan.prepare`` for a file's ``bots``: every bot resolved once
    (``resolver``: default the registry alone), built once with its parameters or asked for its
    hello (the isolated ones in their sandbox unless ``sandbox``, the command line's
    ``--sandbox``, or the file says "off"), checked to play ``game``; the first problem, in the
    file's order, is the error. Returns the limits with ``--sandbox`` applied and where each
    bot was found, after refusing bots that need a sandbox none can make here."""
    src = source
    resolver = resolver if resolver is not None else Resolver()
    limits = sandbox_limits(limits, sandbox)
    mode = limits.get("sandbox", "on")
    loaded = resolve_all(bots, resolver)

    def fail(name: str, spec: Any, message: str | None) -> None:
        if not isinstance(spec, BotSpec):
            known = available_bots()
            listing = f"; bots found: {', '.join(known)}" if known else ""
            raise TournamentError(
                f"{where(src)}`bots`: cannot load {name!r}: {spec}{listing}. Fix the name in "
                f"`bots = [...]` or add the bot to bots/"
            ) from None
        if message is not None:
            raise TournamentError(
                f"{where(src)}`bots`: {message}. Fix the bot's parameters in `bots = [...]`"
            ) from None
        if spec.games and game not in spec.games:  # None: not declared, so not checked
            raise TournamentError(
                f"{where(src)}`bots`: {name!r} plays {', '.join(spec.games)}, not {game}: "
                f"remove it from `bots`"
            )

    ready_all(loaded, mode, fail)
    specs = [s for s in loaded.values() if isinstance(s, BotSpec)]
    for spec in specs:  # the games of an isolated bot are known after its hello
        fail(spec.name, spec, None)
    sources = {n: s.source for n, s in loaded.items() if isinstance(s, BotSpec)}
    decide_sandbox(specs, Limits.from_dict(limits))
    return limits, sources


def check_limits(limits: Any, src: str) -> dict:
    """``[limits]`` as written, checked by ``Limits.from_dict`` (the one validator)."""
    if not isinstance(limits, dict):
        raise TournamentError(
            f"{where(src)}`limits` must be a table: write [limits] "
            f"followed by lines like decision_seconds = 1.0"
        )
    names = [f.name for f in dataclasses.fields(Limits)]
    for key in limits:
        if key not in names:
            raise TournamentError(
                f"{where(src)}unknown key `limits.{key}`{suggest(key, names)}: [limits] "
                f"takes {', '.join(names)}"
            )
    try:
        checked = Limits.from_dict(limits)
    except MallowsError as exc:
        raise TournamentError(f"{where(src)}[limits]: {exc}") from None
    # sandbox = "on" and names = "shown" are the defaults and are not stored: such a
    # definition stays as it was
    return {
        key: getattr(checked, key)
        for key in limits
        if not (key == "sandbox" and checked.sandbox == "on")
        and not (key == "names" and checked.names == "shown")
    }


def check_ratings(ratings: Any, src: str) -> dict:
    """The rating system's parameters: it owns their defaults, ranges and messages."""
    if not isinstance(ratings, dict):
        raise TournamentError(
            f"{where(src)}`ratings` must be a table: write [ratings] "
            f"followed by lines like draw_probability = 0.02"
        )
    names = [p.name for p in RATING_SYSTEM.params]
    for key in ratings:
        if key not in names:
            raise TournamentError(
                f"{where(src)}unknown key `ratings.{key}`{suggest(key, names)}: "
                f"[ratings] takes {', '.join(names)}"
            )
    try:
        return RATING_SYSTEM.check_params(ratings)
    except ValueError as exc:
        raise TournamentError(f"{where(src)}{exc}") from None


def canonical_bots(bots: list[str], src: str) -> list[str]:
    """Each name in its one spelling (``agents.checks.canonical_name``); two names for one bot
    are refused."""
    from mallows.agents.checks import canonical_name

    seen: dict[str, str] = {}
    out = []
    for bot in bots:
        try:
            canon = canonical_name(bot)
        except MallowsError as exc:
            raise TournamentError(f"{where(src)}`bots`: {exc}") from None
        if canon in seen:
            same = (
                "twice"
                if seen[canon] == bot
                else f"twice, as {seen[canon]!r} and {bot!r} (one bot: {canon!r})"
            )
            raise TournamentError(
                f"{where(src)}`bots` lists {canon!r} {same}: list each bot "
                f"once (give a variant its own parameters, e.g. "
                f'"{canon.split(":")[0]}:call=0.1")'
            )
        seen[canon] = bot
        out.append(canon)
    return out


def diff_definitions(old: dict, new: dict) -> list[str]:
    """Human-readable differences ``key: old -> new`` between two definitions."""
    out = []
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            for sub in sorted(set(a) | set(b)):
                if a.get(sub) != b.get(sub):
                    out.append(f"{key}.{sub}: {_show(a.get(sub))} -> {_show(b.get(sub))}")
        else:
            out.append(f"{key}: {_show(a)} -> {_show(b)}")
    return out


def _show(value: Any) -> str:
    return "(unset)" if value is None else json.dumps(value)
