"""Tournament files: TOML -> a validated ``Tournament``.

This module owns the tournament file format (tournaments/README.md) and its validation.
Every problem a user can make in a file (an unknown key, an unknown bot, a bad option, a value
of the wrong type, too few bots) raises ``TournamentError`` (a ``MallowsError``: the CLI prints
it and exits 2) with a message that names the key and says how to fix it.

Keys::

    name = "demo"            # unique in a database; letters, digits, . _ -
    game = "take4"           # or "arschmallows"
    rules = "standard"       # rule set (arschmallows: standard, supermallows); optional
    players = 4              # seats per match
    deals = 10               # deals per table; each is played in every seat rotation
    seed = 2026              # the tournament seed; every match seed derives from it
                             # (optional: left out, a fresh one comes from the OS)
    secret = true            # the deals derive from the seed and the database's secret key
                             # too (optional; default false)
    chance = 2               # optional: the seed derivation (tournaments.secrecy); 1 is the
                             # unkeyed one of tournaments started before it (to replay one)
    bots = ["random", ...]   # at least `players` distinct bot names
    schedule = 2             # optional: the seat-order schedule (tournaments.roundrobin.schedule);
    1 is
                             # the one before balanced orders. Left out: 2 for a new
                             # tournament, the stored one's version when it resumes
    [options]                # rule option overrides, e.g. table_cards = 4
    [limits]                 # decision_seconds, match_seconds, start_seconds, memory_mb,
                             # sandbox = "off" (untrusted bots without their sandbox),
                             # names = "hidden" (bots see player1, player2, ... not names)
    [ratings]                # the rating system's parameters (TrueSkill: mu, sigma, beta,
                             # tau, draw_probability; see mallows.results.ratings)

``Tournament.definition()`` is the canonical JSON-able form that storage keeps, and
``Tournament.digest()`` its hash: a rerun under the same name must have the same definition.

Running one is ``mallows.tournaments.run``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from mallows import seeding
from mallows.errors import MallowsError, TournamentError
from mallows.safetext import control_characters, escape
from mallows.seeding import MAX_SEED
from mallows.games import game_ids, get_game
from mallows.agents.registry import Resolver
from mallows.tournaments.format import (
    NAME_RE,
    canonical_bots,
    check_bots,
    check_limits,
    check_ratings,
    suggest,
    where,
    whole_number,
    read_file,
)
from mallows.tournaments.seating import SCHEDULE_VERSION, SCHEDULE_VERSIONS, stored_version

REQUIRED = ("name", "game", "players", "deals", "bots")
OPTIONAL = ("seed", "secret", "chance", "rules", "schedule", "options", "limits", "ratings")
KEYS = REQUIRED + OPTIONAL

# The largest tournament a file may schedule. The schedule is lazy and resuming walks the
# stored indices in chunks, so memory does not bound it; the disk does (about 1.5 KB a match:
# 10^9 matches is about 1.5 TB) and so does time (10^9 matches at 10,000 a second is 28 hours).
MAX_MATCHES = 1_000_000_000


@dataclass(frozen=True)
class Tournament:
    name: str
    game: str
    rules: str | None
    players: int
    deals: int
    seed: int
    bots: tuple[str, ...]
    options: dict = field(default_factory=dict)  # overrides as written in [options]
    limits: dict = field(default_factory=dict)  # [limits] as written
    ratings: dict = field(default_factory=dict)  # effective TrueSkill parameters
    effective_options: dict = field(default_factory=dict)  # make_options(rules, options)
    source: str = ""
    # where each bot was found when the file was checked (kept in the database's `bots`
    # table; not part of the definition)
    bot_sources: dict = field(default_factory=dict, compare=False)
    # how hidden numbers derive (``seeding``): 2 (keyed with a secret, every new tournament)
    # or 1 (no key: tournaments stored before derivation 2 resume with it); the definition
    # keeps it (absent: 1)
    derivation: int = seeding.KEYED
    # the deals are keyed too: the default for every new tournament (``secret = false`` only
    # with shipped bots); a tournament stored before that default resumes as it was stored
    secret: bool = False
    secret_given: bool = field(default=False, compare=False)  # the file says `secret`
    seed_drawn: bool = False  # no `seed` in the file: ``seed`` came from the OS
    # the derivation with this tournament's key, once ``tournaments.secrecy.settle`` read it
    # from the database (never part of the definition)
    chance: seeding.Chance = field(default=seeding.UNKEYED, compare=False, repr=False)
    # the schedule version (tournaments.roundrobin.schedule); ``schedule_given``: the file says
    # which, so a resume must match it (else the stored tournament's version is kept:
    # ``resumed_as``)
    schedule: int = SCHEDULE_VERSION
    schedule_given: bool = field(default=False, compare=False)

    def definition(self) -> dict:
        """The canonical form: what a rerun under the same name must match."""
        extra: dict = {}
        if self.derivation != seeding.LEGACY:
            extra["chance"] = self.derivation
        if self.secret:
            extra["secret"] = True
        if self.seed_drawn:
            extra["drawn_seed"] = True
        return {
            **extra,
            "name": self.name,
            "game": self.game,
            "rules": self.rules,
            "players": self.players,
            "deals": self.deals,
            "seed": self.seed,
            "bots": list(self.bots),
            "options": dict(sorted(self.options.items())),
            "limits": dict(sorted(self.limits.items())),
            "ratings": dict(sorted(self.ratings.items())),
            # version 1 is written as before versions existed: its definition and digest
            # stay those of a tournament stored then
            **({} if self.schedule == 1 else {"schedule": self.schedule}),
        }

    def resumed_as(self, stored: dict | None) -> Tournament:
        """This tournament with the schedule version of ``stored``, the definition in the
        database under its name (None: a new tournament), unless the file names a version."""
        version = stored_version(stored)
        if version is None or self.schedule_given or version == self.schedule:
            return self
        return dataclasses.replace(self, schedule=version)

    def digest(self) -> str:
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def match_count(self) -> int:
        return math.comb(len(self.bots), self.players) * self.players * self.deals

    # -- what a run of the round robin reads (``format.Spec``) --

    kind: ClassVar[str] = "tournament"

    @property
    def written_names(self) -> tuple[str, ...]:
        return tuple(self.bots)

    @property
    def rating_params(self) -> dict:
        return dict(self.ratings)


def _public_deals_allowed(bots: list[str], src: str) -> None:
    """``secret = false`` (deals anyone can compute from the seed) only for a field of bots
    shipped with the project; else a ``TournamentError`` naming the key and why."""
    from mallows.agents.registry import parse_name, trusted_shipped

    trusted = set(trusted_shipped())
    untrusted = [b for b in bots if parse_name(b)[0] not in trusted]
    if untrusted:
        named = ", ".join(untrusted[:5]) + (", ..." if len(untrusted) > 5 else "")
        raise TournamentError(
            f"{where(src)}`secret = false` with bots not shipped with mallows ({named}): "
            f"unkeyed deals follow from the seed alone, so their authors could compute every "
            f"seat's cards and the draws to come. Leave `secret` out (the deals are then "
            f"keyed with the database's secret key), or keep secret = false for a field of "
            f"shipped bots only"
        )


def check_tournament_bots(
    t: Tournament, resolver: Resolver | None = None, sandbox: str | None = None
) -> Tournament:
    """The check step of ``tournaments.plan.prepare`` for a tournament (``format.check_bots``
    over its bots). Returns ``t`` with ``--sandbox`` applied to its limits and where each bot
    was found (``bot_sources``)."""
    limits, sources = check_bots(t.bots, t.game, t.limits, t.source, resolver, sandbox)
    return dataclasses.replace(t, limits=limits, bot_sources=sources)


def parse_tournament(data: dict, source: str = "") -> Tournament:
    """Validate a parsed TOML document; ``source`` names the file in messages. Pure: it
    starts nothing and looks up no bot (``check_tournament_bots``, the check step of
    ``tournaments.plan.prepare``, does)."""
    src = source
    for key in data:
        if key not in KEYS:
            raise TournamentError(
                f"{where(src)}unknown key `{key}`{suggest(key, KEYS)}: a tournament file "
                f"takes {', '.join(KEYS)} (rule options go under [options])"
            )
    for key in REQUIRED:
        if key not in data:
            raise TournamentError(
                f"{where(src)}missing key `{key}`: add it, for example {_EXAMPLES[key]}"
            )
    name = data["name"]
    if isinstance(name, str) and control_characters(name):
        raise TournamentError(
            f"{where(src)}`name` must be plain text, but {escape(name)!r} "
            f"holds the control character(s) "
            f"{', '.join(control_characters(name))}: for example name = "
            f'"demo"'
        )
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise TournamentError(
            f"{where(src)}`name` must be a short string of letters, digits, '.', '_' or '-' "
            f"(no spaces or '/'), got {name!r}: for example name = \"demo\""
        )
    game = data["game"]
    games = game_ids()  # the game registry
    if not isinstance(game, str) or game not in games:
        raise TournamentError(
            f"{where(src)}`game` must be one of {', '.join(games)}, "
            f"got {game!r}" + (suggest(game, games) if isinstance(game, str) else "")
        )
    module = get_game(game)
    rules = data.get("rules")
    if rules is not None and not isinstance(rules, str):
        raise TournamentError(f"{where(src)}`rules` must be a rule-set name, got {rules!r}")
    rule_sets = getattr(module, "RULE_SETS", {})
    if rules is not None and rule_sets and rules not in rule_sets:
        raise TournamentError(
            f"{where(src)}`rules`: unknown rule set {rules!r} for {game}"
            f"{suggest(rules, rule_sets)}: choose one of {', '.join(rule_sets)} or leave "
            f"`rules` out for {getattr(module, 'DEFAULT_RULES', 'the default')}"
        )
    if rules is None:
        rules = getattr(module, "DEFAULT_RULES", None)
    players = whole_number(
        data,
        "players",
        module.MIN_PLAYERS,
        module.MAX_PLAYERS,
        src,
        f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players",
    )
    deals = whole_number(
        data, "deals", 1, None, src, "every table plays this many deals, e.g. deals = 10"
    )
    if "seed" in data:
        seed = whole_number(
            data,
            "seed",
            0,
            MAX_SEED,
            src,
            "seeds are never negative, e.g. seed = 2026, or leave `seed` out for a fresh one",
        )
    else:
        seed = seeding.fresh_seed()  # kept in the database: a rerun resumes with it
    secret = data.get("secret", data.get("chance", seeding.KEYED) != seeding.LEGACY)
    if not isinstance(secret, bool):
        raise TournamentError(
            f"{where(src)}`secret` must be true or false, got {secret!r}: "
            f"secret = true (the default) keys the deals with the database's secret"
        )
    bots = data["bots"]
    if not isinstance(bots, list) or not all(isinstance(b, str) and b for b in bots):
        raise TournamentError(
            f'{where(src)}`bots` must be a list of bot names, e.g. bots = ["random", "greedy"]'
        )
    bots = canonical_bots(bots, src)
    if len(bots) < players:
        raise TournamentError(
            f"{where(src)}`bots` has {len(bots)} bot{'s' if len(bots) != 1 else ''} but "
            f"`players` = {players}: every match needs {players} different bots, so add bots "
            f"or lower `players`"
        )
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise TournamentError(
            f"{where(src)}`options` must be a table: write [options] "
            f"followed by lines like table_cards = 4"
        )
    try:
        effective = module.make_options(rules, dict(options))
    except MallowsError as exc:
        raise TournamentError(f"{where(src)}[options]: {exc}") from None
    schedule = data.get("schedule", SCHEDULE_VERSION)
    if (
        not isinstance(schedule, int)
        or isinstance(schedule, bool)
        or schedule not in SCHEDULE_VERSIONS
    ):
        raise TournamentError(
            f"{where(src)}`schedule` must be one of {', '.join(map(str, SCHEDULE_VERSIONS))}, "
            f"got {schedule!r}: 2 balances the seat orders (the default), 1 is the schedule of "
            f"tournaments started before it (to replay one)"
        )
    chance = data.get("chance", seeding.KEYED)
    if not isinstance(chance, int) or isinstance(chance, bool) or chance not in seeding.DERIVATIONS:
        raise TournamentError(
            f"{where(src)}`chance` must be one of {', '.join(map(str, seeding.DERIVATIONS))}, "
            f"got {chance!r}: 2 keys the bots' seeds with a secret (the default), 1 is the "
            f"unkeyed derivation of tournaments started before it (to replay one)"
        )
    if chance == seeding.LEGACY and (("secret" in data and secret) or "seed" not in data):
        raise TournamentError(
            f"{where(src)}`chance = 1` replays a tournament started before secret keys: it "
            f"takes the old file's `seed` and no `secret`; leave `chance` out otherwise"
        )
    if data.get("secret") is False:
        _public_deals_allowed(bots, src)
    limits = check_limits(data.get("limits", {}), src)
    ratings = check_ratings(data.get("ratings", {}), src)
    t = Tournament(
        name=name,
        game=game,
        rules=rules,
        players=players,
        deals=deals,
        seed=seed,
        bots=tuple(bots),
        options=dict(options),
        limits=limits,
        ratings=ratings,
        effective_options=effective,
        source=source,
        schedule=schedule,
        schedule_given="schedule" in data,
        secret=secret,
        secret_given="secret" in data,
        seed_drawn="seed" not in data,
        derivation=chance,
    )
    if t.match_count() > MAX_MATCHES:
        from mallows.results.codec import estimated_bytes, human_bytes

        size = human_bytes(estimated_bytes(game, players, t.match_count()))
        raise TournamentError(
            f"{where(src)}this file schedules {t.match_count():,} matches (C({len(bots)}, "
            f"{players}) tables x {players} rotations x {deals} deals), a database of about "
            f"{size}, over the limit of {MAX_MATCHES:,} matches: lower `deals` or split `bots` "
            f"into several tournaments"
        )
    return t


_EXAMPLES = {
    "name": 'name = "my-tournament"',
    "game": 'game = "take4"',
    "players": "players = 4",
    "deals": "deals = 10",
    "bots": 'bots = ["random", "greedy"]',
}


def load_tournament(path: str | Path) -> Tournament:
    """Read and validate a tournament file (``parse_tournament``: nothing is started)."""
    data = read_file(
        path, "tournament file", "the shipped ones are in tournaments/", TournamentError
    )
    return parse_tournament(data, str(path))
