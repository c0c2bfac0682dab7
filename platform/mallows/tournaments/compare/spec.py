"""A comparison's definition and its schedule of paired matches. Pure apart from resolving the
bots once to check their names and games (``make_comparison``); their hellos, the sandbox,
registering and pinning are the shared plan (``mallows.tournaments.plan.prepare``), as for a
tournament.

Pairs. Pair ``p`` is two matches on one deal (match seed ``Chance.match_seed(seed, p)``: keyed
with the comparison's secret key since derivation 2, ``seeding.child_seed(seed, p)`` before),
indices ``2p`` and ``2p + 1``:

- two seats: ``(A, B)`` then ``(B, A)``: the deal in both seatings;
- ``k > 2`` seats: the *seat under test* is ``p % k``; match ``2p`` seats A there, match
  ``2p + 1`` seats B there, and the other ``k - 1`` seats hold the same opponents in both,
  seated by ``tournaments.seating.pair_seats``: schedule version 2 (the default) cycles the
  tested bot and ``k - 1`` consecutive opponents of the list through the balanced cyclic
  orders of a tournament's tables, so A and B meet every neighbour before and after them
  equally often; version 1 (comparisons stored before it) took ``k - 1`` consecutive
  opponents from position ``p`` in list order. A list shorter than ``k - 1`` repeats a bot
  at the table. A stored comparison keeps its version (``resumed_as``).

Every bot gets the same bot seed in the same seat of the same deal, so the opponents play the
same way in both matches as long as A and B do: what differs is A's play against B's.

The observation of a pair is in *places* (1 = first): B's place minus A's place, positive when
A did better. With ``k > 2``: ``place(B, seat s, match 2p + 1) - place(A, seat s, match 2p)``,
an integer in ``-(k - 1)..k - 1``. With two seats: the mean of that difference over the two
seatings, in ``-1, -0.5, 0, 0.5, 1`` (fastchess's pentanomial game pair). Places, not game
scores, because places exist in both games (Take4 has no score), are bounded (the test's exact
model needs a finite grid) and are what the ladder and the leaderboards measure; ``delta`` is
then "places per match".
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Iterable, Iterator, Sequence

from mallows import seeding
from mallows.botname import short
from mallows.errors import CompareError, MallowsError
from mallows.games.faces import faces_of
from mallows.safetext import refuse_control
from mallows.results.ratings import DEFAULT_PARAMS
from mallows.agents.registry import BotSpec, Resolver
from mallows.tournaments.format import NAME_RE, available_bots, check_bots
from mallows.tournaments.seating import SCHEDULE_VERSION, MatchSpec, pair_seats, stored_version

DEFAULT_DELTA = 0.1
DEFAULT_MAX_MATCHES = 10_000
DEFAULT_SEED = 2026
MAX_MATCHES = 2_000_000
KIND = "compare"
SOURCE = "mallows compare"  # what a comparison's stored row says it came from
#: Keys of the definition that may change when a comparison is resumed (a larger cap continues
#: the same test); every other key must match.
MUTABLE = ("max_matches", "deals")


@dataclass(frozen=True)
class Comparison:
    name: str
    game: str
    rules: str | None
    players: int
    a: str
    b: str
    opponents: tuple[str, ...]
    options: dict
    effective_options: dict
    limits: dict
    delta: float
    alpha: float
    beta: float
    max_matches: int
    seed: int
    bot_sources: dict = field(default_factory=dict, compare=False)
    schedule: int = SCHEDULE_VERSION  # how pairs are seated (``pair_seats``)
    # 2: the deals and the bots' seeds keyed with the comparison's secret key (kept in the
    # database); 1: unkeyed, what comparisons stored before keys resume with (``keyed``)
    derivation: int = seeding.KEYED
    chance: seeding.Chance = field(default=seeding.UNKEYED, compare=False, repr=False)

    @property
    def max_pairs(self) -> int:
        return self.max_matches // 2

    # -- what a run of the comparison reads (``format.Spec``) --

    kind: ClassVar[str] = KIND

    @property
    def written_names(self) -> tuple[str, ...]:
        return tuple(self.bots)

    @property
    def rating_params(self) -> dict:
        return dict(DEFAULT_PARAMS)

    def match_count(self) -> int:
        return 2 * self.max_pairs

    @property
    def grid(self) -> tuple[float, ...]:
        """Every value a pair's observation can take."""
        if self.players == 2:
            return (-1.0, -0.5, 0.0, 0.5, 1.0)
        top = self.players - 1
        return tuple(float(v) for v in range(-top, top + 1))

    @property
    def bots(self) -> list[str]:
        out = [self.a, self.b]
        out += [o for o in self.opponents if o not in out]
        return out

    def definition(self) -> dict:
        """What the database keeps (``tournaments.definition``). The keys a round robin has
        (``players``, ``deals``, ``seed``, ``bots``, ``ratings``...) are there too, so every
        reader of tournaments can read it; ``deals`` is the number of pairs at most."""
        return {
            "kind": KIND,
            "name": self.name,
            "game": self.game,
            "rules": self.rules,
            "players": self.players,
            "deals": self.max_pairs,
            "seed": self.seed,
            "bots": self.bots,
            "a": self.a,
            "b": self.b,
            "opponents": list(self.opponents),
            "options": dict(sorted(self.options.items())),
            "limits": dict(sorted(self.limits.items())),
            "ratings": dict(DEFAULT_PARAMS),
            "statistic": "place(B) - place(A) per pair",
            "delta": self.delta,
            "alpha": self.alpha,
            "beta": self.beta,
            "max_matches": self.max_matches,
            "test": "GSPRT, multinomial over the pair values",
            # version 1 is written as before versions existed (its digest stays the same)
            **({} if self.schedule == 1 else {"schedule": self.schedule}),
            **({"chance": self.derivation} if self.derivation != seeding.LEGACY else {}),
        }

    def resumed_as(self, stored: dict | None) -> Comparison:
        """This comparison with the schedule version of ``stored``, the definition in the
        database under its name (None: a new comparison)."""
        if stored is None or stored.get("kind") != KIND:
            return self
        version = stored_version(stored)
        if version is None or version == self.schedule:
            return self
        return Comparison(**{**self.__dict__, "schedule": version})

    def digest(self) -> str:
        """The identity of the test: everything but the cap on its length."""
        return digest_of(self.definition())

    def pair(self, p: int) -> tuple[MatchSpec, MatchSpec]:
        if self.derivation != seeding.LEGACY and not self.chance.secret_deals:
            raise RuntimeError(
                f"comparison {self.name!r}: its deals need its key (format.keyed) first"
            )
        seed = self.chance.match_seed(self.seed, p)  # child_seed(seed, p) when unkeyed
        k = self.players
        first: tuple[str, ...]
        second: tuple[str, ...]
        if k == 2:
            first, second = (self.a, self.b), (self.b, self.a)
        else:
            first = pair_seats(self.a, self.opponents, k, p, self.schedule)
            second = pair_seats(self.b, self.opponents, k, p, self.schedule)
        return (
            MatchSpec(2 * p, 0, first, 0, p, first, seed),
            MatchSpec(2 * p + 1, 0, second, 1, p, second, seed),
        )

    def observation(self, p: int, ranks_a: Sequence[int], ranks_b: Sequence[int]) -> float:
        """The pair's value from the ranks (0-based, by seat) of its two matches: match 2p
        (``ranks_a``) and 2p + 1 (``ranks_b``)."""
        if self.players == 2:
            return ((ranks_b[0] - ranks_a[0]) + (ranks_a[1] - ranks_b[1])) / 2
        s = p % self.players
        return float(ranks_b[s] - ranks_a[s])


class PairSchedule:
    """A comparison's matches in schedule order: match ``i`` is match ``i % 2`` of pair
    ``i // 2``."""

    def __init__(self, c: Comparison) -> None:
        self.c = c

    def __len__(self) -> int:
        return 2 * self.c.max_pairs

    def specs(self, indices: Iterable[int]) -> Iterator[MatchSpec]:
        for i in indices:
            yield self.c.pair(i // 2)[i % 2]


def check_comparison_bots(
    c: Comparison, resolver: Resolver | None = None, sandbox: str | None = None
) -> Comparison:
    """The check step of ``tournaments.plan.prepare`` for a comparison (``format.check_bots``,
    its messages naming the roles A, B and ``--opponents``): every bot resolved once, built
    once or asked for its hello, checked to play the game; the sandbox decided once
    (``sandbox``: the command line's, over ``c.limits``). Returns ``c`` with where each bot
    was found (``bot_sources``)."""
    roles = {c.a: "A", c.b: "B"}

    def fail(name: str, spec: Any, message: str | None) -> None:
        role = roles.get(name, "--opponents")
        if not isinstance(spec, BotSpec):
            raise CompareError(
                f"{role}: cannot load {name!r}: {spec}. Bots found: {', '.join(available_bots())}"
            ) from None
        if message is not None:
            raise CompareError(f"{role}: {message}") from None
        if spec.games and c.game not in spec.games:
            raise CompareError(
                f"{role}: {name!r} plays {', '.join(spec.games)}, not "
                f"{c.game}: choose another bot or --game"
            )

    limits, sources = check_bots(c.bots, c.game, c.limits, "", resolver, sandbox, fail)
    return dataclasses.replace(c, limits=limits, bot_sources=sources)


def from_definition(d: dict) -> Comparison:
    """The ``Comparison`` a stored definition describes (bots not loaded, options rebuilt)."""
    from mallows.games import get_game

    if d.get("kind") != KIND:
        raise CompareError(f"{d.get('name')!r} is not a comparison")
    options = dict(d.get("options") or {})
    return Comparison(
        name=d["name"],
        game=d["game"],
        rules=d.get("rules"),
        players=int(d["players"]),
        a=d["a"],
        b=d["b"],
        opponents=tuple(d.get("opponents") or ()),
        options=options,
        effective_options=get_game(d["game"]).make_options(d.get("rules"), options),
        limits=dict(d.get("limits") or {}),
        delta=float(d["delta"]),
        alpha=float(d["alpha"]),
        beta=float(d["beta"]),
        max_matches=int(d["max_matches"]),
        seed=int(d["seed"]),
        schedule=stored_version(d) or 1,
        derivation=int(d.get("chance", seeding.LEGACY)),
    )


def digest_of(definition: dict) -> str:
    fixed = {k: v for k, v in definition.items() if k not in MUTABLE}
    text = json.dumps(fixed, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


SLUG_CHARS = 24  # a bot's part of a comparison's default name, at most


def _plain(name: str) -> str:
    """``name`` in letters, digits, ``.`` and ``_`` (every other run of characters one ``_``)."""
    return re.sub(r"[^A-Za-z0-9.]+", "_", name).strip("_.")


def _cut_slug(name: str) -> str:
    """A bot's part of a default name as names were made before ``_slug``: cut at 24
    characters wherever that fell (``jointpick_iterations_300`` for ``iterations=3000,...``)."""
    return _plain(name)[:SLUG_CHARS] or "bot"


def _slug(name: str) -> str:
    """A bot's part of a comparison's default name: its name in letters, digits, ``.`` and
    ``_``; a longer one is cut after its last whole word that fits (or, with no boundary
    late enough, before the number a hard cut would split) and ends in ``..``: a cut never
    shows a number the name does not hold (``jointpick_iterations..``, not
    ``jointpick_iterations_300`` for 3000)."""
    slug = _plain(name) or "bot"
    if len(slug) <= SLUG_CHARS:
        return slug
    head = slug[: SLUG_CHARS - 1]
    cut = head.rfind("_")
    if cut >= SLUG_CHARS // 2:
        head = head[:cut]
    else:  # no word boundary late enough: a hard cut, never inside a number
        head = head[: SLUG_CHARS - 2].rstrip("0123456789._") or head[: SLUG_CHARS - 2]
    return head.rstrip("_.") + ".."


def default_name(
    c: Comparison,
    slug: Callable[[str], str] = _slug,
    shown: Callable[[str], str] = short,
) -> str:
    """A comparison's name when ``--name`` is not given: its bots as ``shown`` (a path by its
    base name) and cut by ``slug``, its game and seats, and a digest of its settings without
    a name, a schedule version or a seed derivation, so that the same command finds a
    comparison stored before either existed (and resumes it with its own)."""
    unnamed = {**c.__dict__, "name": "", "schedule": 1, "derivation": seeding.LEGACY}
    digest = digest_of(Comparison(**unnamed).definition())[:8]
    return f"compare-{slug(shown(c.a))}-vs-{slug(shown(c.b))}-{c.game}-{c.players}p-{digest}"


def legacy_names(c: Comparison) -> list[str]:
    """The names the same command stored a comparison under before: before names used a
    path's base name (``compare-path_to_mybel...``), and before a long name was cut at a word
    (``_cut_slug``). Found in a database, it is resumed under that name."""
    olds = [default_name(c, _cut_slug, str), default_name(c, _cut_slug)]
    return [old for i, old in enumerate(olds) if old != c.name and old not in olds[:i]]


def _check_bot(name: str, game: str, role: str, resolver: Resolver) -> str:
    from mallows.tournaments.format import available_bots

    try:
        spec = resolver.load(name)
    except MallowsError as exc:
        known = ", ".join(available_bots())
        raise CompareError(f"{role}: cannot load {name!r}: {exc}. Bots found: {known}") from None
    if spec.games and game not in spec.games:
        raise CompareError(
            f"{role}: {name!r} plays {', '.join(spec.games)}, not {game}: "
            f"choose another bot or --game"
        )
    return spec.source


def _infer_game(a: str, b: str, resolver: Resolver) -> str:
    from mallows.games import GAMES

    common = set(GAMES)
    for name in (a, b):
        try:
            games = resolver.load(name).games
        except MallowsError:
            continue  # reported with the bot check
        if games:
            common &= set(games)
    if len(common) == 1:
        return common.pop()
    raise CompareError(
        f"give --game: {a} and {b} both play "
        f"{' and '.join(sorted(common)) or 'no common game'}; e.g. --game take4"
    )


def make_comparison(
    a: str,
    b: str,
    *,
    game: str | None = None,
    players: int = 2,
    opponents: list[str] | None = None,
    rules: str | None = None,
    options: dict | None = None,
    limits: dict | None = None,
    delta: float = DEFAULT_DELTA,
    alpha: float = 0.05,
    beta: float = 0.05,
    max_matches: int = DEFAULT_MAX_MATCHES,
    seed: int = DEFAULT_SEED,
    name: str | None = None,
    check_bots: bool = True,
    resolver: Resolver | None = None,
) -> Comparison:
    """Validate everything a user gives ``mallows compare``; ``CompareError`` names the fix.
    ``check_bots``: resolve each bot (``resolver``: default the registry alone) and check its
    name and games, without starting it (``check_comparison_bots`` does, in the plan)."""
    from mallows.agents.registry import Resolver
    from mallows.games import get_game
    from mallows.tournaments.compare.sprt import check_parameters
    from mallows.agents.protocol import Limits

    a, b = a.strip(), b.strip()
    if not a or not b:
        raise CompareError("give two bot names: mallows compare A B")
    if a == b:
        raise CompareError(
            f"A and B are both {a!r}: give two different bots (to compare a bot "
            f"with itself, copy it under another name)"
        )
    resolver = resolver if resolver is not None else Resolver()
    if game is None:
        game = _infer_game(a, b, resolver)
    module = get_game(game)
    if not module.MIN_PLAYERS <= players <= module.MAX_PLAYERS:
        raise CompareError(
            f"--players must be from {module.MIN_PLAYERS} to "
            f"{module.MAX_PLAYERS} for {game}, got {players}"
        )
    effective = module.make_options(rules, dict(options or {}))
    if rules is None:
        rules = getattr(module, "DEFAULT_RULES", None)
    if players == 2:
        if opponents:
            raise CompareError(
                "--opponents needs --players 3 or more: with two seats A and B play each other"
            )
        pool: tuple[str, ...] = ()
    elif opponents:
        pool = tuple(o.strip() for o in opponents)
        if any(not o for o in pool):
            raise CompareError("--opponents has an empty name: write --opponents X,Y")
        for o in pool:
            if o in (a, b):
                raise CompareError(
                    f"--opponents lists {o!r}, which is being compared: the "
                    f"opponents must be other bots"
                )
        if len(set(pool)) != len(pool):
            raise CompareError(
                "--opponents lists a bot twice: list each once (they are "
                "taken in turn, and repeated when fewer than the seats)"
            )
    else:
        # the default opponents: the game's reference bots (its faces), minus A and B
        pool = tuple(o for o in faces_of(game).reference_bots if o not in (a, b))
        if not pool:
            raise CompareError(f"no default opponents left for {game}: give --opponents")
    try:
        check_parameters((1.0,) if players == 2 else (float(players - 1),), delta, alpha, beta)
    except ValueError as exc:
        raise CompareError(f"--{str(exc).split()[0]} {str(exc).split(' ', 1)[1]}") from None
    if isinstance(max_matches, bool) or not 2 <= max_matches <= MAX_MATCHES:
        raise CompareError(
            f"--max-matches must be from 2 to {MAX_MATCHES:,} (two matches a "
            f"pair), got {max_matches}"
        )
    if not 0 <= seed < 2**63:
        raise CompareError(f"--seed must be a whole number from 0 to 2**63 - 1, got {seed}")
    limits = dict(limits or {})
    try:
        Limits.from_dict(limits)  # the one validator of limits
    except MallowsError as exc:
        raise CompareError(f"bad limits {limits}: {exc}") from None
    c = Comparison(
        name="",
        game=game,
        rules=rules,
        players=players,
        a=a,
        b=b,
        opponents=pool,
        options=dict(options or {}),
        effective_options=effective,
        limits=limits,
        delta=float(delta),
        alpha=float(alpha),
        beta=float(beta),
        max_matches=int(max_matches),
        seed=int(seed),
    )
    if name is None:
        name = default_name(c)
    elif not NAME_RE.fullmatch(refuse_control(name, "--name", "--name my-comparison")):
        raise CompareError(
            f"--name must be letters, digits, '.', '_' or '-' (no spaces or "
            f"'/'), at most 100, got {name!r}"
        )
    c = Comparison(**{**c.__dict__, "name": name})
    if check_bots:
        for role, bot in [("A", a), ("B", b)] + [("--opponents", o) for o in pool]:
            _check_bot(bot, game, role, resolver)
    return c
