"""How far a Take4 search can get ahead of ``denial``: the same one-step search without and with
the deck's order, on a bare simulation of the rules.

``jointpick`` beats ``denial`` by about 0.05 places a match with ``greedy`` and ``random``
opponents whatever its worlds (200, 1000, 3000: bots/README.md, "Strength"). This asks where
that ceiling comes from. Every deal is played three times, the seat under test holding:

- ``denial``: the shipped bot (``bots/denial.py``'s ``decide``, on observations built here);
- ``search``: jointpick's search, each opponent's kind known (no model to learn): at each
  decision ``--worlds`` worlds, the deck's unseen part shuffled above its known bottom, the
  opponents' picks drawn from their kinds, every legal pick resolved against them and played
  out by ``bots/jointpick.py``'s own rollout (``playout``, itself playing ``rules``); the pick
  with the best total;
- ``oracle``: the same search, given the deck's true order (which no seat can know: RULES.md
  T11). Its lead over ``search`` is what knowing the deck is worth; ``search``'s lead over
  ``denial`` is what a one-step search gets without it;
- ``nested`` (with ``--nested N``): a two-step search, as fair as ``search``. In each of its
  worlds a candidate's round is resolved, the next round's table comes from the world's deck,
  and the seat's pick there is chosen by ``search`` itself with ``N`` worlds of its own, drawn
  from what the seat would know then (the unseen part shuffled again, the opponents' picks from
  their kinds); the rollout goes on from that pick. Its lead over ``search`` is what planning
  one more of its own picks is worth, a step towards the best a fair seat can do.

The simulation is the rules on bit masks (contested cards go to a contender at random, the
rest under the deck: RULES.md T7-T8), not the engine: the deal comes from
``random.Random(seed)``, not the engine's streams, so the deals differ from ``mallows compare``'s.
Each deal's three plays share the deck, the opponents' random streams and the races' stream.
Opponents: ``greedy`` and ``rules`` as jointpick's kinds, ``random``, ``denial`` (the shipped
bot; the search's rollouts play it as ``rules``, as jointpick's model does). The figures: each
arm's advantage over ``denial`` and ``oracle``'s over ``search``, in places a match with 95%
intervals; beside each, how often ``mallows compare`` at ``--delta`` would say H1 and H0 if
its pairs were distributed as that arm's (2000 sequential tests drawn from the histogram of
its place differences); and the CPU milliseconds a searched decision.

    python benchmarks/bench_take4_headroom.py [--deals 1000] [--worlds 200] [--seed 1]
        [--opponents greedy,random] [--nested 30 [--nested-worlds 100]]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import time
from pathlib import Path
from types import ModuleType
from typing import Callable

import numpy as np
from mallows.tournaments.compare.spec import DEFAULT_MAX_MATCHES
from mallows.tournaments.compare.sprt import simulate
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

ROOT = Path(__file__).resolve().parent.parent
SQUADS = {
    "Classic": ["Cam", "Winston", "Malcolm", "Lola"],
    "Fantasy": ["Tatiana", "Michaela", "Leonard", "Patty"],
    "Sealife": ["Archie", "Sheldon", "Stacy", "Gordon"],
    "Food": ["Maui", "Carl", "Chanel", "Floyd"],
}
NAMES = [name for members in SQUADS.values() for name in members]  # character 4q + j
ARMS = ("denial", "search", "oracle")
#: The optional arm (``--nested``), played after the others and compared with ``denial``
#: and ``search``.
NESTED = "nested"


def _bot_module(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"headroom_{name}", ROOT / "bots" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


JP = _bot_module("jointpick")
DENIAL = _bot_module("denial")


class Deal:
    """One match of the simulation: the deck (top first; leftovers appended), the collections
    as masks and as names, the history ``denial`` reads."""

    def __init__(self, seed: int, players: int) -> None:
        rng = random.Random(seed)
        self.deck = [c for c in range(16) for _ in range(4)]
        rng.shuffle(self.deck)
        self.head = 0
        self.masks = [0] * players
        self.held: list[list[str]] = [[] for _ in range(players)]
        self.history: list[dict] = []

    def observation(self, seat: int, table: list[int]) -> dict:
        return {
            "game": "take4",
            "seat": seat,
            "players": len(self.masks),
            "squads": SQUADS,
            "positions": [NAMES[c] for c in table],
            "legal_actions": [{"type": "pick", "position": k} for k in range(1, len(table) + 1)],
            "collections": [list(h) for h in self.held],
            "history": self.history,
        }


def _kind_pick(kind: str, seat: int, table: list[int], deal: Deal, rng: random.Random) -> int:
    if kind == "denial":
        return DENIAL.decide(deal.observation(seat, table), rng)["position"]
    return _model_pick(kind, seat, table, deal.masks, rng)


def _model_pick(
    kind: str, seat: int, table: list[int], masks: list[int], rng: random.Random
) -> int:
    """A pick of one of jointpick's kinds (``greedy``, ``rules``, ``random``) on bit masks."""
    if kind == "random":
        return rng.randrange(len(table)) + 1
    best = JP._choices(JP.POLICIES[kind], seat, table, masks)  # jointpick's own kinds
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def _search(
    deal: Deal,
    table: list[int],
    kinds: list[str],
    rng: random.Random,
    worlds: int,
    oracle: bool,
    inner: int = 0,
) -> int:
    """jointpick's one-step search for seat 0 with the opponents' kinds known; the worlds'
    decks are the true one (``oracle``) or its unseen part shuffled above the known bottom;
    with ``inner``, every candidate is rolled out by ``_nested``."""
    if len(table) == 1:
        return 1
    model = ["rules" if k == "denial" else k for k in kinds]
    model[0] = "rules"
    # a denial opponent's pick this round, drawn once (denial is deterministic but for ties)
    fixed = {s: _kind_pick(k, s, table, deal, rng) for s, k in enumerate(kinds) if k == "denial"}

    def opponents(r: random.Random) -> list[int]:
        return [
            fixed.get(s) or (_kind_pick(k, s, table, deal, r) if s else 0)
            for s, k in enumerate(kinds)
        ]

    unseen = 0 if oracle else max(0, 64 - deal.head)  # the deck's first 64 cards are unseen
    return _one_step(
        table, deal.deck[deal.head :], unseen, deal.masks, model, opponents, rng, worlds, inner
    )


def _one_step(
    table: list[int],
    rest: list[int],
    unseen: int,
    masks: list[int],
    model: list[str],
    opponents: Callable[[random.Random], list[int]],
    rng: random.Random,
    worlds: int,
    inner: int = 0,
) -> int:
    """The pick (1-based) of seat 0 with the best total over ``worlds`` worlds: ``rest`` is the
    deck below ``table``, its first ``unseen`` cards shuffled anew in each world; the
    opponents' picks are drawn by ``opponents``; every candidate meets the same picks and race
    stream, and is played out by ``JP.playout`` (``inner`` 0) or ``_nested``."""
    width = len(table)
    totals = [0.0] * width
    bottom = rest[unseen:]
    for _ in range(worlds):
        world = rest[:unseen]
        rng.shuffle(world)
        world += bottom
        picks = opponents(rng)
        stream = rng.getrandbits(48)
        for k in range(1, width + 1):
            picks[0] = k
            if inner:
                totals[k - 1] += _nested(table, world, unseen, masks, picks, model, stream, inner)
            else:
                totals[k - 1] += JP.playout(
                    table, world, masks, picks, model, 0, random.Random(stream)
                )
    top_total = max(totals)
    best = [k for k in range(1, width + 1) if totals[k - 1] == top_total]
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def _nested(
    table: list[int],
    world: list[int],
    unseen: int,
    masks: list[int],
    picks: list[int],
    model: list[str],
    stream: int,
    inner: int,
) -> float:
    """One world of the two-step search: this round resolved, the next table drawn from the
    world's deck, seat 0's pick there chosen by ``_one_step`` with ``inner`` worlds of what the
    seat would know then, the match played out from it; scored as ``JP.playout`` scores."""
    rng = random.Random(stream)
    masks, deck = list(masks), list(world)
    winners = JP._resolve(table, picks, masks, deck, rng.random)
    if winners:
        return 0.0 if 0 in winners else -float(len(winners))
    if not deck:
        return 0.0
    nxt, rest = deck[:4], deck[4:]
    left = max(0, unseen - len(nxt))
    seats = range(1, len(masks))

    def opponents(r: random.Random) -> list[int]:
        return [0] + [_model_pick(model[s], s, nxt, masks, r) for s in seats]

    picks = opponents(rng)
    mine = random.Random(rng.getrandbits(48))
    if len(nxt) > 1:
        # what the seat knows there: which cards are unseen, handed over sorted so that the
        # pick never depends on the order this world gave them; the opponents' picks are
        # drawn anew from their kinds
        known = sorted(rest[:left]) + rest[left:]
        picks[0] = _one_step(nxt, known, left, masks, model, opponents, mine, inner)
    else:
        picks[0] = 1
    return JP.playout(nxt, rest, masks, picks, model, 0, rng)


def play(
    seed: int, arm: str, opponents: list[str], worlds: int, clock: list[float], inner: int = 0
) -> int:
    """The place of seat 0 (1: a win or no winner; else 1 + the winners) in deal ``seed``;
    ``inner``: the worlds of the next round's search (the ``nested`` arm)."""
    kinds = ["denial" if arm == "denial" else "search", *opponents]
    deal = Deal(seed, len(kinds))
    streams = [random.Random(seed * 16 + s) for s in range(len(kinds))]
    races = random.Random(seed * 16 + 15)
    for _ in range(1000):
        if deal.head >= len(deal.deck):
            return 1
        table = deal.deck[deal.head : deal.head + 4]
        deal.head += len(table)
        picks = []
        for s, kind in enumerate(kinds):
            if kind == "search":
                c0 = time.process_time()
                oracle = arm == "oracle"
                picks.append(_search(deal, table, kinds, streams[s], worlds, oracle, inner))
                if len(table) > 1:
                    clock.append(time.process_time() - c0)
            else:
                picks.append(_kind_pick(kind, s, table, deal, streams[s]))
        winners = _resolve(deal, table, picks, races)
        if winners:
            return 1 if 0 in winners else 1 + len(winners)
    return 1


def _resolve(deal: Deal, table: list[int], picks: list[int], races: random.Random) -> list[int]:
    """One round: each picked card to its picker or a contender drawn from ``races``, the
    rest under the deck, recorded as ``denial`` reads it; the seats that completed a squad."""
    winners, raced = [], []
    for k, c in enumerate(table, 1):
        pickers = [s for s, p in enumerate(picks) if p == k]
        if not pickers:
            deal.deck.append(c)
            continue
        taker = pickers[int(races.random() * len(pickers))] if len(pickers) > 1 else pickers[0]
        if len(pickers) > 1:
            raced.append({"position": k, "winner": taker})
        deal.held[taker].append(NAMES[c])
        mask = deal.masks[taker] = deal.masks[taker] | 1 << c
        if JP.POP4[mask >> (c & 12) & 15] == 4:
            winners.append(taker)
    positions: list[str | None] = [NAMES[c] for c in table]
    deal.history.append({"positions": positions, "picks": list(picks), "races": raced})
    return winners


def _verdicts(diffs: list[int], players: int, delta: float, runs: int = 2000) -> str:
    """How often ``mallows compare`` at ``delta`` (alpha = beta = 0.05, its default 10,000
    matches at most) would say H1 and H0 if its pairs came from the place differences of
    ``diffs``: ``runs`` sequential tests drawn from their histogram (``sprt.simulate``, as
    tests/test_compare_stats.py uses it)."""
    grid = list(range(1 - players, players))
    counts = [diffs.count(g) for g in grid]
    pairs = DEFAULT_MAX_MATCHES // 2
    verdict, _ = simulate(grid, counts, delta, 0.05, 0.05, runs, pairs, np.random.default_rng(0))
    return f"{(verdict == 1).mean():.0%} / {(verdict == -1).mean():.0%}"


def _interval(diffs: list[int]) -> tuple[float, float]:
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1) if n > 1 else math.inf
    return mean, 1.96 * math.sqrt(var / n)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1000)
    ap.add_argument("--worlds", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1, help="the first deal's seed")
    ap.add_argument("--opponents", default="greedy,random")
    ap.add_argument(
        "--delta",
        type=float,
        default=0.1,
        help="the compare whose verdicts the last column gives (default 0.1, issue 36's)",
    )
    ap.add_argument(
        "--nested",
        type=int,
        default=0,
        metavar="N",
        help="also play the two-step search, N worlds for the next round's pick (0: not)",
    )
    ap.add_argument(
        "--nested-worlds",
        type=int,
        default=100,
        metavar="W",
        help="the two-step search's worlds at the decision itself (default 100)",
    )
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.deals, args.worlds, args.nested, args.nested_worlds = 4, 10, 3, 4
    opponents = args.opponents.split(",")
    unknown = set(opponents) - {"greedy", "rules", "random", "denial"}
    if unknown:
        raise SystemExit(f"unknown opponents {sorted(unknown)}: greedy, rules, random, denial")
    arms = ARMS + ((NESTED,) if args.nested > 0 else ())
    places: dict[str, list[int]] = {arm: [] for arm in arms}
    clocks: dict[str, list[float]] = {arm: [] for arm in arms}
    for seed in range(args.seed, args.seed + args.deals):
        for arm in ARMS:
            places[arm].append(play(seed, arm, opponents, args.worlds, clocks[arm]))
        if args.nested > 0:
            places[NESTED].append(
                play(seed, NESTED, opponents, args.nested_worlds, clocks[NESTED], args.nested)
            )
    clock = clocks["search"] + clocks["oracle"]
    print(
        f"Take4, {1 + len(opponents)} seats, opponents {', '.join(opponents)}; {args.deals} "
        f"deals from seed {args.seed}; search: {args.worlds} worlds a decision, "
        f"{1000 * sum(clock) / max(1, len(clock)):.1f} ms of CPU a searched decision"
    )
    if args.nested > 0:
        spent = clocks[NESTED]
        print(
            f"nested: {args.nested_worlds} worlds a decision, {args.nested} for the next "
            f"round's pick in each, {1000 * sum(spent) / max(1, len(spent)):.0f} ms of CPU a "
            f"searched decision"
        )
    print(
        f"| A | B | A's advantage (places a match, 95%) | compare at delta {args.delta}: H1 / H0 |"
    )
    print("|---|---|---|---|")
    pairs = [("search", "denial"), ("oracle", "denial"), ("oracle", "search")]
    if args.nested > 0:
        pairs += [(NESTED, "denial"), (NESTED, "search")]
    for a, b in pairs:
        diffs = [pb - pa for pa, pb in zip(places[a], places[b])]
        mean, half = _interval(diffs)
        verdicts = _verdicts(diffs, 1 + len(opponents), args.delta)
        print(f"| {a} | {b} | {mean:+.3f} +- {half:.3f} | {verdicts} |")


if __name__ == "__main__":
    main()
