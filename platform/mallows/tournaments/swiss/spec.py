"""A Swiss file as data: ``Swiss``, its checks (``parse_swiss``) and its reading
(``load_swiss``). Pure: it starts nothing and looks up no bot.

A Swiss file is a tournament file with ``format = "swiss"`` and ``rounds = N``: ``name``,
``game``, ``players``, ``deals``, ``bots``, ``seed`` (required: the pairing's ties are drawn
from it), ``rules``, ``[options]``, ``[limits]`` and ``[ratings]`` as in a round robin.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from mallows import seeding
from mallows.errors import MallowsError, TournamentError
from mallows.games import game_ids, get_game
from mallows.seeding import MAX_SEED
from mallows.tournaments.format import (
    NAME_RE,
    canonical_bots,
    check_limits,
    check_ratings,
    suggest,
    where,
    whole_number,
    read_file,
)

KIND = "swiss"
REQUIRED = ("format", "name", "game", "players", "deals", "seed", "rounds", "bots")
KEYS = REQUIRED + ("rules", "options", "limits", "ratings")
MAX_ROUNDS = 10_000


@dataclass(frozen=True)
class Swiss:
    name: str
    game: str
    rules: str | None
    players: int
    deals: int
    seed: int
    rounds: int
    bots: tuple[str, ...]
    options: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)
    ratings: dict = field(default_factory=dict)
    effective_options: dict = field(default_factory=dict)
    source: str = ""
    bot_sources: dict = field(default_factory=dict, compare=False)
    chance: seeding.Chance = field(default=seeding.UNKEYED, compare=False, repr=False)
    # what ``secrecy.settle`` reads: keyed bots' seeds and deals (secret, as every new run's
    # deals are: a Swiss file has no `secret` key), the seed from the file
    derivation: int = seeding.KEYED
    secret: bool = True
    secret_given: bool = False
    seed_drawn: bool = False

    kind: ClassVar[str] = KIND

    @property
    def written_names(self) -> tuple[str, ...]:
        return self.bots

    @property
    def rating_params(self) -> dict:
        return dict(self.ratings)

    @property
    def tables(self) -> int:
        """Tables in each round (the bots left over sit out)."""
        return len(self.bots) // self.players

    def round_matches(self) -> int:
        return self.tables * self.deals * self.players

    def match_count(self) -> int:
        return self.rounds * self.round_matches()

    def definition(self) -> dict:
        return {
            "kind": KIND,
            "chance": self.derivation,
            "name": self.name,
            "game": self.game,
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "seed": self.seed,
            "rounds": self.rounds,
            "bots": list(self.bots),
            "options": dict(sorted(self.options.items())),
            "limits": dict(sorted(self.limits.items())),
            "ratings": dict(sorted(self.ratings.items())),
            "secret": self.secret,  # stored: a resumed run keys its deals as its first did
        }

    def digest(self) -> str:
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


def parse_swiss(data: dict, source: str = "") -> Swiss:
    """Validate a parsed Swiss file; ``source`` names the file in messages."""
    src = source
    for key in data:
        if key not in KEYS:
            raise TournamentError(
                f"{where(src)}unknown key `{key}`{suggest(key, KEYS)}: a Swiss file takes "
                f"{', '.join(KEYS)}"
            )
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise TournamentError(
            f"{where(src)}missing key `{missing[0]}`: a Swiss file needs "
            f"{', '.join(REQUIRED)}, e.g. rounds = 5"
        )
    name = data["name"]
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise TournamentError(
            f"{where(src)}`name` must be a short string of letters, digits, '.', '_' or '-', "
            f'got {name!r}: for example name = "swiss"'
        )
    game = data["game"]
    if not isinstance(game, str) or game not in game_ids():
        raise TournamentError(
            f"{where(src)}`game` must be one of {', '.join(game_ids())}, got {game!r}"
        )
    module: Any = get_game(game)
    rules = data.get("rules", getattr(module, "DEFAULT_RULES", None))
    span = f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players"
    players = whole_number(data, "players", module.MIN_PLAYERS, module.MAX_PLAYERS, src, span)
    deals = whole_number(data, "deals", 1, None, src, "each table plays this many deals")
    seed = whole_number(data, "seed", 0, MAX_SEED, src, "e.g. seed = 2026")
    rounds = whole_number(data, "rounds", 1, MAX_ROUNDS, src, "a Swiss plays N rounds, e.g. 5")
    bots = data["bots"]
    if not isinstance(bots, list) or not all(isinstance(b, str) and b for b in bots):
        raise TournamentError(f'{where(src)}`bots` must be a list of bot names, e.g. ["random"]')
    bots = canonical_bots(bots, src)
    if len(bots) < players:
        raise TournamentError(
            f"{where(src)}`bots` has {len(bots)} bots but `players` = {players}: a table "
            f"needs {players} different bots, so add bots or lower `players`"
        )
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise TournamentError(f"{where(src)}`options` must be a table: write [options]")
    try:
        effective = module.make_options(rules, dict(options))
    except MallowsError as exc:
        raise TournamentError(f"{where(src)}[options]: {exc}") from None
    return Swiss(
        name=name,
        game=game,
        rules=rules,
        players=players,
        deals=deals,
        seed=seed,
        rounds=rounds,
        bots=tuple(bots),
        options=dict(options),
        limits=check_limits(data.get("limits", {}), src),
        ratings=check_ratings(data.get("ratings", {}), src),
        effective_options=effective,
        source=source,
    )


def load_swiss(path: str | Path) -> Swiss:
    """Read and validate a Swiss file."""
    data = read_file(path, "Swiss file", "the format is in tournaments/README.md", TournamentError)
    return parse_swiss(data, str(path))
