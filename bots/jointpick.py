"""jointpick: a search over the opponents' simultaneous picks (Take4, protocol 2).

Idea. Every seat picks at once, so a pick is only as good as the picks it meets. ``jointpick``
reads the match's events (protocol 2) and keeps two things:

- **the deck**: every collected card is public and the leftovers go under the deck in
  position order (RULES.md T8, T11), so the deck is an unseen top part (the characters
  nobody has seen yet, in an unknown order) above a known bottom (the leftovers, in order);
- **a model of each opponent**: a posterior over three kinds of player (``greedy``: the card
  that advances its best squad most; ``rules``: complete, else deny a completion, else
  advance; ``random``), each a little noisy, updated after every round by how likely each
  kind made the picks the opponent made on what its collection was then.

At each decision it draws worlds: a deck order consistent with the above, a kind for each
opponent from its posterior, the opponents' picks this round from those kinds, and a random
stream for the races. In every world each of its candidate picks still in the race is resolved
against the same opponents' picks (common random numbers: the candidates' differences are
paired with the prior's), and the rest of the match is played out by every seat's kind (itself
playing ``rules``). A world scores a pick by the place it ends with (0 for a win or a match
without a winner, else minus the winners). The prior is ``rules4``'s choice; another pick
replaces it when its mean advantage over the prior is positive and exceeds ``z`` standard
errors of the paired difference (default 0: the best mean, the prior keeping ties).

Racing (``race``, default 2): after 100 worlds, and every 50 after, a rival whose mean
advantage stays below the prior's, or below another rival's mean less ``race`` standard
errors, even with ``race`` standard errors added, is rolled out no more; a decision with one
rival left that is surely better than the prior is settled. The budget is the rollouts of every
candidate on each of ``iterations`` worlds: what racing saves goes to more worlds for the close
rivals (up to that many rollouts), or ends a settled decision early.

The budget is counted in worlds and rollouts, never in seconds: the same seed plays the same
match on any machine under any load.

Strength (``mallows compare jointpick B --game take4 --players 3 --seed 36``, bots/README.md,
"Strength", where the settings it tried are listed too): on seed 36 H1 at delta 0.1 over
``denial`` with the default opponents (+0.096 +- 0.075 places a match over 478 matches), over
``denial`` with ``denial`` and ``greedy`` opponents (+0.119 +- 0.095 over 318) and over
``rules4`` (+0.093 +- 0.072 over 626). On fresh seeds H1 over ``rules4`` again (+0.104 +-
0.083 over 404) but undecided over ``denial`` after about 1,300 matches (+0.047 +- 0.046 and
+0.054 +- 0.054): ahead of ``denial`` by about 0.06 places a match, not the 0.1 the test
asks. Speed (``benchmarks/bench_iterations.py``): about 155 ms of CPU a decision with more
than one legal pick at its default, the longest about 0.5 s; 61 ms at 1000 worlds.

Parameters (``jointpick:iterations=3000``): ``iterations`` worlds a decision (1..100000,
default 3000); ``race`` (0..10, default 2; 0: every candidate on every world, version 1.0's
search) the racing margin in standard errors; ``z`` (0..10, default 0) the prior's margin;
``noise`` (0..1, default 0.02) how often a modelled kind picks at random; ``seed`` overrides
the seat seed.
"""

from __future__ import annotations

import functools
import math
import random
from typing import Callable

from mallows.agents.kit import number_param

#: A rollout plays at most this many more rounds (a match is at most 64: RULES.md T10).
HORIZON = 64
#: Racing (``race`` > 0): after RACE_AFTER worlds, and every RACE_EVERY worlds, the rivals that
#: cannot win any more are rolled out no more (``_race``), so the rollouts go to the close ones.
RACE_AFTER = 100
RACE_EVERY = 50
#: The kinds of opponent the model weighs.
KINDS = ("greedy", "rules", "random")
#: The number of different characters in a squad at 0..4 held, popcount of a 4-bit mask.
POP4 = tuple(bin(m).count("1") for m in range(16))

_number = functools.partial(number_param, "jointpick")


class Bot:
    name = "jointpick"
    version = "1.1"  # 1.1: racing, 3000 worlds and noise 0.02 by default; faster rollouts
    games = ("take4",)
    protocol = 2
    history = "delta"

    def __init__(
        self,
        iterations: int | str = 3000,
        z: float | str = 0.0,
        noise: float | str = 0.02,
        seed: int | str | None = None,
        race: float | str = 2.0,
    ) -> None:
        self.iterations = _number("iterations", iterations, 1, 100_000, int)
        self.race = _number("race", race, 0.0, 10.0)
        self.z = _number("z", z, 0.0, 10.0)
        self.noise = _number("noise", noise, 0.0, 1.0)
        self.fixed_seed = None if seed is None else _number("seed", seed, 0, 2**63, int)
        self.rng = random.Random(0)
        self.table: Table | None = None

    def match_start(self, info: dict) -> None:
        if info.get("game", "take4") != "take4":
            raise ValueError(f"jointpick plays take4 only, not {info.get('game')!r}")
        self.rng = random.Random(info["seed"] if self.fixed_seed is None else self.fixed_seed)
        self.table = Table(info["squads"], int(info["players"]), int(info["seat"]), self.noise)

    def act(self, observation: dict, events: list[dict]) -> dict:
        table = self.table
        assert table is not None, "match_start comes first"
        for event in events:
            table.feed(event)
        legal = [a["position"] for a in observation["legal_actions"]]
        choice = table.decide(legal, self.rng, self.iterations, self.z, self.race)
        return {"type": "pick", "position": choice}


class Table:
    """What the events show: collections as masks of the 16 characters (character ``4q + j``
    is member j of squad q), the deck's known bottom, the unseen cards, each opponent's
    posterior over ``KINDS``."""

    def __init__(self, squads: dict[str, list[str]], players: int, seat: int, noise: float):
        self.names = [name for members in squads.values() for name in members]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.players, self.seat, self.noise = players, seat, noise
        self.masks = [0] * players
        self.copies = [4] * 16  # copies of each character not yet collected
        self.bottom: list[int] = []  # the deck's known bottom, top first
        self.unseen = [4] * 16  # copies never shown on the table
        self.positions: list[int | None] = [None] * 4
        self.log_post = [[0.0] * len(KINDS) for _ in range(players)]

    def feed(self, event: dict) -> None:
        kind = event.get("type")
        if kind == "round":
            self.positions = [None if c is None else self.index[c] for c in event["positions"]]
            for c in self.positions:
                if c is None:
                    continue
                if self.bottom and self.unseen_count() == 0:
                    self.bottom.pop(0)
                else:
                    self.unseen[c] -= 1
        elif kind == "picks":
            self._observe(event["picks"])
            winners = {r["position"]: r["winner"] for r in event["races"]}
            picked: dict[int, int] = {}
            for s, k in enumerate(event["picks"]):
                picked[k] = winners.get(k, s)
            for k, c in enumerate(self.positions, 1):
                if c is None:
                    continue
                if k in picked:
                    self.masks[picked[k]] |= 1 << c
                    self.copies[c] -= 1
                else:
                    self.bottom.append(c)

    def unseen_count(self) -> int:
        return sum(self.unseen)

    def _observe(self, picks: list[int]) -> None:
        """Weigh each opponent's kinds by the likelihood of the pick it made."""
        positions = self.positions
        for s, k in enumerate(picks):
            if s == self.seat or positions[k - 1] is None:
                continue
            for j, kind in enumerate(KINDS):
                dist = self.distribution(kind, s, positions, self.masks)
                self.log_post[s][j] += math.log(dist.get(k, 0.0) + 1e-6)

    def distribution(
        self, kind: str, seat: int, positions: list[int | None], masks: list[int]
    ) -> dict[int, float]:
        """Position -> probability that a player of ``kind`` in ``seat`` picks it."""
        filled = [k for k, c in enumerate(positions, 1) if c is not None]
        if kind == "random":
            return {k: 1.0 / len(filled) for k in filled}
        best = _choices(POLICIES[kind], seat, positions, masks)
        p = self.noise / len(filled)
        return {k: p + (1.0 - self.noise) * (k in best) / len(best) for k in filled}

    def posterior(self, seat: int) -> list[float]:
        top = max(self.log_post[seat])
        w = [math.exp(x - top) for x in self.log_post[seat]]
        total = sum(w)
        return [x / total for x in w]

    def decide(
        self, legal: list[int], rng: random.Random, iterations: int, z: float, race: float = 0.0
    ) -> int:
        if len(legal) == 1:
            return legal[0]
        positions = self.positions
        prior = _choices(_rules_scores, self.seat, positions, self.masks)
        prior_pick = prior[rng.randrange(len(prior))] if len(prior) > 1 else prior[0]
        candidates = [prior_pick] + [k for k in legal if k != prior_pick]
        posts = {s: self.posterior(s) for s in range(self.players) if s != self.seat}
        pool = [c for c in range(16) for _ in range(self.unseen[c])]
        k = len(candidates)
        sums, sq, worlds = [0.0] * k, [0.0] * k, [0] * k
        # each opponent's pick distribution under each kind: the same in every world
        dists = {
            s: {
                kind: (list(d), list(d.values()))
                for kind in KINDS
                for d in (self.distribution(kind, s, positions, self.masks),)
            }
            for s in posts
        }
        active = list(range(k))  # the prior (0) first: every difference is paired with it
        left = iterations * k  # rollouts: what every candidate on every world would cost
        drawn = 0
        while len(active) > 1 and left >= len(active):
            rng.shuffle(pool)
            deck = pool + self.bottom
            kinds = [""] * self.players
            picks = [0] * self.players
            for s, post in posts.items():
                kinds[s] = kind = rng.choices(KINDS, post)[0]
                picks[s] = rng.choices(*dists[s][kind])[0]
            kinds[self.seat] = "rules"
            seed = rng.getrandbits(48)
            base = 0.0
            for i in active:
                picks[self.seat] = candidates[i]
                u = playout(
                    positions, deck, self.masks, picks, kinds, self.seat, random.Random(seed)
                )
                if i == 0:
                    base = u
                d = u - base
                sums[i] += d
                sq[i] += d * d
                worlds[i] += 1
            left -= len(active)
            drawn += 1
            if race and drawn >= RACE_AFTER and drawn % RACE_EVERY == 0:
                active = _race(active, sums, sq, worlds, race)
        best, best_i = 0.0, 0
        for i in range(1, k):
            mean, se = _paired(sums[i], sq[i], worlds[i])
            if mean > 0 and mean > z * se and mean > best:
                best, best_i = mean, i
        return candidates[best_i]


def _paired(total: float, squares: float, n: int) -> tuple[float, float]:
    """The mean paired difference over ``n`` worlds and its standard error."""
    if n < 2:
        return 0.0, math.inf
    mean = total / n
    return mean, math.sqrt(max(0.0, squares / n - mean * mean) / n)


def _race(
    active: list[int], sums: list[float], sq: list[float], worlds: list[int], race: float
) -> list[int]:
    """The candidates still in the race (the prior, 0, always): a rival is dropped when even
    ``race`` standard errors above its mean it stays below the prior or below another rival's
    mean less ``race`` standard errors; when one rival is left and it is surely better than
    the prior, the decision is settled (the prior alone is left, and the rival's worlds
    decide)."""
    stats = {i: _paired(sums[i], sq[i], worlds[i]) for i in active if i}
    floor = max([0.0] + [m - race * e for m, e in stats.values()])
    kept = [i for i, (m, e) in stats.items() if m + race * e >= floor]
    if len(kept) == 1 and stats[kept[0]][0] - race * stats[kept[0]][1] > 0:
        return [0]
    return [0, *kept]


def _greedy_scores(c: int, seat: int, masks: list[int]) -> float:
    m = masks[seat]
    if m >> c & 1:
        return 0.0
    return POP4[m >> (c & ~3) & 15] + 1.0


def _rules_scores(c: int, seat: int, masks: list[int]) -> float:
    m = masks[seat]
    if m >> c & 1:
        return 0.0
    mine = POP4[m >> (c & ~3) & 15] + 1
    if mine == 4:
        return 100.0
    for s, other in enumerate(masks):
        if s != seat and not other >> c & 1 and POP4[other >> (c & ~3) & 15] == 3:
            return 50.0
    return float(mine)


POLICIES: dict[str, Callable[[int, int, list[int]], float]] = {
    "greedy": _greedy_scores,
    "rules": _rules_scores,
}


def _choices(
    score: Callable[[int, int, list[int]], float],
    seat: int,
    positions: list[int | None],
    masks: list[int],
) -> list[int]:
    """The positions (1-based) a scoring rule ranks best for ``seat``."""
    scored = [(score(c, seat, masks), k) for k, c in enumerate(positions, 1) if c is not None]
    top = max(v for v, _ in scored)
    return [k for v, k in scored if v == top]


def playout(
    positions: list[int | None],
    deck: list[int],
    masks: list[int],
    picks: list[int],
    kinds: list[str],
    me: int,
    rng: random.Random,
) -> float:
    """Resolve this round's ``picks``, then play the match out with every seat's kind; the
    place ``me`` ends with, negated (0: it won or nobody did). The kinds' rules are those of
    ``_best`` on bit masks (the same choices as ``_choices`` with ``POLICIES``; ties and races
    drawn from ``rng.random``): the rollouts are where the search spends its time."""
    masks, deck, picks = list(masks), list(deck), list(picks)
    rand = rng.random
    head = 0
    table = positions
    seats = range(len(masks))
    for _ in range(HORIZON):
        winners = _resolve(table, picks, masks, deck, rand)
        if winners:
            return 0.0 if me in winners else -float(len(winners))
        if head >= len(deck):
            return 0.0
        table = deck[head : head + 4]
        head += len(table)
        width = len(table)
        needs = [_needs(m) for m in masks]
        for s in seats:
            kind = kinds[s]
            if kind == "random":
                picks[s] = int(rand() * width) + 1
                continue
            win = deny = 0
            if kind == "rules":  # complete, else deny a completion, else advance
                win = needs[s]
                for o in seats:
                    if o != s:
                        deny |= needs[o]
            best = _best(table, masks[s], win, deny)
            picks[s] = best[int(rand() * len(best))] if len(best) > 1 else best[0]
    return 0.0


#: mask -> the characters that would complete one of its squads (``_needs``), as computed
_NEEDS: dict[int, int] = {}


def _needs(mask: int) -> int:
    """The characters that would complete a squad of ``mask`` (as a mask): the fourth of every
    squad it holds three of (memoised: a rollout asks for every seat every round)."""
    bits = _NEEDS.get(mask)
    if bits is not None:
        return bits
    bits = 0
    for q in (0, 4, 8, 12):
        held = mask >> q & 15
        if POP4[held] == 3:
            bits |= (~held & 15) << q
    _NEEDS[mask] = bits
    return bits


def _best(table: list[int], mask: int, win: int, deny: int) -> list[int]:
    """The positions (1-based) whose card scores best for a seat holding ``mask``: 100 for a
    card in ``win`` (completes its squad), 50 for one in ``deny`` (completes another's), else
    its squad's count of different characters with it, 0 for a copy (``_rules_scores``, or
    ``_greedy_scores`` with ``win`` and ``deny`` empty)."""
    top, best = -1.0, [0]
    for k, c in enumerate(table, 1):
        if mask >> c & 1:
            v = 0.0
        elif win >> c & 1:
            v = 100.0
        elif deny >> c & 1:
            v = 50.0
        else:
            v = POP4[mask >> (c & ~3) & 15] + 1.0
        if v > top:
            top, best = v, [k]
        elif v == top:
            best.append(k)
    return best


def _resolve(
    table: list[int | None],
    picks: list[int],
    masks: list[int],
    deck: list[int],
    rand: Callable[[], float],
) -> list[int]:
    """Apply one round: each picked card to its picker or a random contender, the rest under
    the deck; the seats that completed a squad."""
    winners = []
    for k, c in enumerate(table, 1):
        if c is None:
            continue
        n = picks.count(k)
        if n == 0:
            deck.append(c)
            continue
        if n == 1:
            s = picks.index(k)
        else:
            seats = [s for s, p in enumerate(picks) if p == k]
            s = seats[int(rand() * n)]
        m = masks[s] = masks[s] | 1 << c
        if POP4[m >> (c & 12) & 15] == 4:
            winners.append(s)
    return winners
