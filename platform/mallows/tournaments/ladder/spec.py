"""Ladder files: TOML -> a validated ``Ladder`` (tournaments/README.md, "Ladders").

Keys::

    name = "take4-ladder"     # unique in a database; letters, digits, . _ -
    kind = "ladder"           # or "gauntlet": challengers against a fixed field
    game = "take4"
    rules = "standard"        # optional
    players = 4               # seats per match
    seed = 2026               # optional (a fresh one from the OS otherwise, kept in the database)
    deals = 1                 # deals per table; each deal is played in every seat rotation
    passes = 1                # base passes an epoch (at least: ``run.epoch_passes``)
    boost = 3                 # a newcomer plays this many tables an epoch until its place is known
    max_matches = 20000       # the ladder stops here whatever its questions say
    bots = ["greedy", "random", "mybot@2", "./bots/x.py"]   # the entrants as written
    submitted = "none"        # "newest": each submitted name's newest version joins (and an
                              # older one retires); "every": every submitted version joins
    challengers = ["mybot"]   # kind = "gauntlet" only: the bots under test (bots = the field)
    [options] [limits]        # as in a tournament file
    [[questions]]             # what the ladder answers; it stops when all are answered
    type = "top"              # "order" (the full order), "top" (who the top k are), "place"
    k = 3                     # (where ``bot`` belongs, within ``within`` places), "newcomers"
    certainty = 0.95          # (the place of every bot that joins later); the probability the
                              # answer must reach (``mallows.tournaments.ladder.questions``)
    [finals]                  # optional: ``mallows ladder finals NAME`` switches to it
    cutoffs = [8, 4]          # after each stage only the top N play on
    epochs = 4                # epochs a stage

Pure: nothing is started and no bot is looked up (``Ladder.check_bots`` does, through the
tournaments' check).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Mapping

from mallows import seeding
from mallows.agents.registry import Resolver
from mallows.errors import LadderError, MallowsError
from mallows.games import game_ids, get_game
from mallows.results.ratings import DEFAULT_PARAMS
from mallows.seeding import MAX_SEED
from mallows.tournaments.format import (
    NAME_RE,
    canonical_bots,
    check_bots,
    check_limits,
    suggest,
    where,
    read_file,
)
from mallows.tournaments.seating import SCHEDULE_VERSION

KIND = "ladder"
KINDS = ("ladder", "gauntlet")
SUBMITTED = ("none", "newest", "every")
KEYS = (
    "name",
    "kind",
    "game",
    "rules",
    "players",
    "seed",
    "deals",
    "passes",
    "boost",
    "max_matches",
    "bots",
    "challengers",
    "submitted",
    "options",
    "limits",
    "questions",
    "finals",
)
DEFAULT_MAX_MATCHES = 20_000
MAX_MATCHES = 10_000_000


@dataclass(frozen=True)
class Finals:
    cutoffs: tuple[int, ...]
    epochs: int


@dataclass(frozen=True)
class Ladder:
    name: str
    game: str
    rules: str | None
    players: int
    seed: int
    bots: tuple[str, ...]  # the entrants as written (a gauntlet: the field)
    challengers: tuple[str, ...] = ()  # a gauntlet's bots under test
    style: str = "ladder"  # "ladder" or "gauntlet"
    deals: int = 1
    passes: int = 1
    boost: int = 3
    max_matches: int = DEFAULT_MAX_MATCHES
    submitted: str = "none"
    questions: tuple[dict, ...] = ()  # [[questions]] as written (checked)
    finals: Finals | None = None
    options: dict = field(default_factory=dict)
    effective_options: dict = field(default_factory=dict)
    limits: dict = field(default_factory=dict)
    source: str = ""
    seed_drawn: bool = False
    schedule: int = SCHEDULE_VERSION  # the seat orders' version (a stored ladder keeps its own)
    bot_sources: dict = field(default_factory=dict, compare=False)
    chance: seeding.Chance = field(default=seeding.UNKEYED, compare=False, repr=False)

    kind: ClassVar[str] = KIND

    def definition(self) -> dict:
        """The canonical form the database keeps; a rerun under the same name must match."""
        return {
            "kind": KIND,
            "style": self.style,
            "name": self.name,
            "game": self.game,
            "rules": self.rules,
            "players": self.players,
            "seed": self.seed,
            "deals": self.deals,
            "passes": self.passes,
            "boost": self.boost,
            "max_matches": self.max_matches,
            "bots": list(self.bots),
            "challengers": list(self.challengers),
            "submitted": self.submitted,
            "questions": [dict(q) for q in self.questions],
            "finals": (
                None
                if self.finals is None
                else {"cutoffs": list(self.finals.cutoffs), "epochs": self.finals.epochs}
            ),
            "options": dict(sorted(self.options.items())),
            "limits": dict(sorted(self.limits.items())),
            "ratings": dict(DEFAULT_PARAMS),
            "chance": seeding.KEYED,
            **({"drawn_seed": True} if self.seed_drawn else {}),
            "schedule": self.schedule,  # the balanced cyclic orders of the round robin
        }

    def digest(self) -> str:
        text = json.dumps(self.definition(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def entrants(self) -> tuple[str, ...]:
        """Every bot the file names: the challengers first (a gauntlet), then the field."""
        return tuple(self.challengers) + tuple(b for b in self.bots if b not in self.challengers)

    # -- what a run of the ladder reads (``format.Spec``) --

    @property
    def written_names(self) -> tuple[str, ...]:
        return self.entrants

    @property
    def rating_params(self) -> dict:
        return dict(DEFAULT_PARAMS)

    def match_count(self) -> int:
        """At most ``max_matches`` (a ladder ends when its questions are answered)."""
        return self.max_matches

    def stored_seed(self, stored: Mapping | None) -> Ladder:
        """A file without ``seed`` resumes with the seed drawn at its first run, and every
        ladder with the schedule version it was started with (its seat orders)."""
        out = self
        if stored is not None and self.seed_drawn and stored.get("drawn_seed"):
            out = dataclasses.replace(out, seed=int(stored["seed"]))
        if stored is not None and int(stored.get("schedule", self.schedule)) != self.schedule:
            out = dataclasses.replace(out, schedule=int(stored["schedule"]))
        return out


def check_ladder_bots(
    ladder: Ladder,
    resolver: Resolver | None = None,
    sandbox: str | None = None,
    names: tuple[str, ...] | None = None,
) -> Ladder:
    """The tournaments' check step (``format.check_bots``) over ``names`` (default: every
    entrant of the file): resolved once, built or asked for their hello, checked to play the
    game; the sandbox decided once. Returns the ladder with ``--sandbox`` applied and where each
    was found."""
    names = ladder.entrants if names is None else names
    limits, sources = check_bots(
        names, ladder.game, ladder.limits, ladder.source, resolver, sandbox
    )
    return dataclasses.replace(ladder, limits=limits, bot_sources={**ladder.bot_sources, **sources})


def _whole(data: dict, key: str, default: int, low: int, high: int, src: str, hint: str) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise LadderError(
            f"{where(src)}`{key}` must be a whole number from {low} to "
            f"{high:,}, got {value!r}: {hint}"
        )
    return value


def _names(data: dict, key: str, src: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(b, str) and b for b in value):
        raise LadderError(
            f'{where(src)}`{key}` must be a list of bot names, e.g. {key} = ["random", "greedy"]'
        )
    try:
        return canonical_bots(value, src)
    except MallowsError as exc:
        raise LadderError(str(exc)) from None


def _questions(data: Any, src: str) -> tuple[dict, ...]:
    """The ``[[questions]]`` tables, each checked by the questions' own parser
    (``mallows.tournaments.ladder.questions.parse_question``), plus this file's ``type =
    "newcomers"``: the place of every bot that joins after the start (each becomes a ``Place``
    question)."""
    if not isinstance(data, list) or not all(isinstance(q, dict) for q in data):
        raise LadderError(
            f"{where(src)}`questions` must be tables: write [[questions]] "
            f'followed by type = "top", k = 3, certainty = 0.95'
        )
    if not data:
        return ()
    from mallows.tournaments.ladder.questions import parse_question

    out = []
    for n, q in enumerate(data, 1):
        if q.get("type") == "newcomers":
            extra = set(q) - {"type", "certainty", "within"}
            if extra:
                raise LadderError(
                    f'{where(src)}question {n}: type = "newcomers" takes '
                    f"certainty and within, not {', '.join(sorted(extra))}"
                )
            try:
                parse_question({**q, "type": "place", "bot": "newcomer"})
            except ValueError as exc:
                raise LadderError(f"{where(src)}question {n}: {exc}") from None
        else:
            try:
                parse_question(dict(q))
            except ValueError as exc:
                raise LadderError(f"{where(src)}question {n}: {exc}") from None
        out.append(dict(sorted(q.items())))
    return tuple(out)


def parse_ladder(data: dict, source: str = "") -> Ladder:
    """Validate a parsed ladder file; ``source`` names it in messages. Pure."""
    src = source
    for key in data:
        if key not in KEYS:
            raise LadderError(
                f"{where(src)}unknown key `{key}`{suggest(key, KEYS)}: a "
                f"ladder file takes {', '.join(KEYS)}"
            )
    for key, example in (
        ("name", 'name = "my-ladder"'),
        ("game", 'game = "take4"'),
        ("players", "players = 4"),
        ("bots", 'bots = ["random", "greedy"]'),
    ):
        if key not in data:
            raise LadderError(f"{where(src)}missing key `{key}`: add it, for example {example}")
    name = data["name"]
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise LadderError(
            f"{where(src)}`name` must be a short string of letters, digits, "
            f"'.', '_' or '-' (no spaces or '/'), got {name!r}"
        )
    style = data.get("kind", "ladder")
    if style not in KINDS:
        raise LadderError(f'{where(src)}`kind` must be "ladder" or "gauntlet", got {style!r}')
    game = data["game"]
    if not isinstance(game, str) or game not in game_ids():
        raise LadderError(
            f"{where(src)}`game` must be one of {', '.join(game_ids())}, got {game!r}"
        )
    module = get_game(game)
    rules = data.get("rules")
    rule_sets = getattr(module, "RULE_SETS", {})
    if rules is not None and (not isinstance(rules, str) or (rule_sets and rules not in rule_sets)):
        raise LadderError(
            f"{where(src)}`rules`: unknown rule set {rules!r} for {game}: "
            f"choose one of {', '.join(rule_sets) or 'none'} or leave it out"
        )
    rules = rules if rules is not None else getattr(module, "DEFAULT_RULES", None)
    players = _whole(
        data,
        "players",
        0,
        module.MIN_PLAYERS,
        module.MAX_PLAYERS,
        src,
        f"{game} is for {module.MIN_PLAYERS} to {module.MAX_PLAYERS} players",
    )
    if "seed" in data:
        seed = _whole(data, "seed", 0, 0, MAX_SEED, src, "for example seed = 2026")
    else:
        seed = seeding.fresh_seed()
    deals = _whole(data, "deals", 1, 1, 1000, src, "deals a table; each in every rotation")
    passes = _whole(data, "passes", 1, 1, 1000, src, "base passes over the field an epoch")
    boost = _whole(data, "boost", 3, 1, 100, src, "tables an epoch a newcomer plays")
    max_matches = _whole(
        data,
        "max_matches",
        DEFAULT_MAX_MATCHES,
        players,
        MAX_MATCHES,
        src,
        "the most matches the ladder plays",
    )
    bots = _names(data, "bots", src)
    challengers = _names(data, "challengers", src)
    if style == "gauntlet":
        if not challengers:
            raise LadderError(
                f"{where(src)}a gauntlet needs `challengers`, the bots under "
                f'test: for example challengers = ["mybot"]'
            )
        both = set(challengers) & set(bots)
        if both:
            raise LadderError(
                f"{where(src)}{', '.join(sorted(both))} is both a challenger "
                f"and in the field (`bots`): list it once"
            )
        if len(bots) < players - 1:
            raise LadderError(
                f"{where(src)}a gauntlet's field (`bots`) needs at least "
                f"{players - 1} bots for {players} seats, got {len(bots)}"
            )
    elif challengers:
        raise LadderError(
            f'{where(src)}`challengers` is for kind = "gauntlet": remove it '
            f'or add kind = "gauntlet"'
        )
    submitted = data.get("submitted", "none")
    if submitted not in SUBMITTED:
        raise LadderError(
            f"{where(src)}`submitted` must be one of {', '.join(SUBMITTED)}, got {submitted!r}"
        )
    if style == "ladder" and len(bots) < players and submitted == "none":
        raise LadderError(
            f"{where(src)}`bots` has {len(bots)} bots but `players` = "
            f"{players}: a table needs {players} different bots (or let "
            f'submissions join: submitted = "newest")'
        )
    questions = _questions(data.get("questions", []), src)
    if style == "gauntlet" and not questions:  # a gauntlet asks where each challenger stands
        questions = tuple(
            {"type": "place", "bot": c, "certainty": 0.95, "within": 0} for c in challengers
        )
    finals = None
    if "finals" in data:
        f = data["finals"]
        if not isinstance(f, dict) or set(f) - {"cutoffs", "epochs"}:
            raise LadderError(f"{where(src)}[finals] takes cutoffs = [8, 4] and epochs = 4")
        cutoffs = f.get("cutoffs", [])
        if (
            not isinstance(cutoffs, list)
            or not all(
                isinstance(c, int) and not isinstance(c, bool) and c >= players for c in cutoffs
            )
            or list(cutoffs) != sorted(set(cutoffs), reverse=True)
        ):
            raise LadderError(
                f"{where(src)}[finals] `cutoffs` must be decreasing whole numbers "
                f"of at least `players` ({players}), e.g. cutoffs = [8, 4]"
            )
        finals = Finals(
            tuple(cutoffs), _whole(f, "epochs", 4, 1, 10_000, src, "epochs a finals stage plays")
        )
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise LadderError(f"{where(src)}`options` must be a table: [options]")
    try:
        effective = module.make_options(rules, dict(options))
    except MallowsError as exc:
        raise LadderError(f"{where(src)}[options]: {exc}") from None
    try:
        limits = check_limits(data.get("limits", {}), src)
    except MallowsError as exc:
        raise LadderError(str(exc)) from None
    return Ladder(
        name=name,
        game=game,
        rules=rules,
        players=players,
        seed=seed,
        bots=tuple(bots),
        challengers=tuple(challengers),
        style=style,
        deals=deals,
        passes=passes,
        boost=boost,
        max_matches=max_matches,
        submitted=submitted,
        questions=questions,
        finals=finals,
        options=dict(options),
        effective_options=effective,
        limits=limits,
        source=source,
        seed_drawn="seed" not in data,
    )


def load_ladder(path: str | Path) -> Ladder:
    """Read and validate a ladder file (nothing is started)."""
    data = read_file(path, "ladder file", "examples are in tournaments/ladders/", LadderError)
    return parse_ladder(data, str(path))


def from_definition(definition: dict) -> Ladder:
    """The ladder a stored definition describes (for ``status``, reports, ``finals``)."""
    d = dict(definition)
    data = {
        k: d[k]
        for k in (
            "name",
            "game",
            "rules",
            "players",
            "seed",
            "deals",
            "passes",
            "boost",
            "max_matches",
            "bots",
            "submitted",
            "options",
            "limits",
        )
        if k in d and d[k] is not None
    }
    data["kind"] = d.get("style", "ladder")
    if d.get("challengers"):
        data["challengers"] = d["challengers"]
    data["questions"] = d.get("questions") or []
    if d.get("finals"):
        data["finals"] = d["finals"]
    ladder = parse_ladder(data, f"ladder {d.get('name')!r}")
    return dataclasses.replace(
        ladder,
        seed_drawn=bool(d.get("drawn_seed")),
        schedule=int(d.get("schedule", SCHEDULE_VERSION)),
    )
