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
  ``denial`` is what a one-step search gets without it.

The simulation is the rules on bit masks (contested cards go to a contender at random, the
rest under the deck: RULES.md T7-T8), not the engine: the deal comes from
``random.Random(seed)``, not the engine's streams, so the deals differ from ``mallows compare``'s.
Each deal's three plays share the deck, the opponents' random streams and the races' stream.
Opponents: ``greedy`` and ``rules`` as jointpick's kinds, ``random``, ``denial`` (the shipped
bot; the search's rollouts play it as ``rules``, as jointpick's model does). The figures: each
arm's advantage over ``denial`` and ``oracle``'s over ``search``, in places a match with 95%
intervals, and the CPU milliseconds a searched decision.

    python benchmarks/bench_take4_headroom.py [--deals 1000] [--worlds 200] [--seed 1]
        [--opponents greedy,random]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import random
import time
from pathlib import Path
from types import ModuleType

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
    if kind == "random":
        return rng.randrange(len(table)) + 1
    if kind == "denial":
        return DENIAL.decide(deal.observation(seat, table), rng)["position"]
    best = JP._choices(JP.POLICIES[kind], seat, table, deal.masks)  # jointpick's own kinds
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def _search(
    deal: Deal, table: list[int], kinds: list[str], rng: random.Random, worlds: int, oracle: bool
) -> int:
    """jointpick's one-step search for seat 0 with the opponents' kinds known; the worlds'
    decks are the true one (``oracle``) or its unseen part shuffled above the known bottom."""
    width = len(table)
    if width == 1:
        return 1
    rest = deal.deck[deal.head :]
    unseen = max(0, 64 - deal.head)  # the cards never shown are the deck's first 64, in order
    model = ["rules" if k == "denial" else k for k in kinds]
    model[0] = "rules"
    # a denial opponent's pick this round, drawn once (denial is deterministic but for ties)
    fixed = {s: _kind_pick(k, s, table, deal, rng) for s, k in enumerate(kinds) if k == "denial"}
    totals = [0.0] * width
    for _ in range(worlds):
        if oracle:
            world = rest
        else:
            top = rest[:unseen]
            rng.shuffle(top)
            world = top + rest[unseen:]
        picks = [
            fixed.get(s) or (_kind_pick(k, s, table, deal, rng) if s else 0)
            for s, k in enumerate(kinds)
        ]
        stream = rng.getrandbits(48)
        for k in range(1, width + 1):
            picks[0] = k
            totals[k - 1] += JP.playout(
                table, world, deal.masks, picks, model, 0, random.Random(stream)
            )
    top_total = max(totals)
    best = [k for k in range(1, width + 1) if totals[k - 1] == top_total]
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]


def play(seed: int, arm: str, opponents: list[str], worlds: int, clock: list[float]) -> int:
    """The place of seat 0 (1: a win or no winner; else 1 + the winners) in deal ``seed``."""
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
                picks.append(_search(deal, table, kinds, streams[s], worlds, arm == "oracle"))
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
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.deals, args.worlds = 6, 10
    opponents = args.opponents.split(",")
    unknown = set(opponents) - {"greedy", "rules", "random", "denial"}
    if unknown:
        raise SystemExit(f"unknown opponents {sorted(unknown)}: greedy, rules, random, denial")
    places: dict[str, list[int]] = {arm: [] for arm in ARMS}
    clock: list[float] = []
    for seed in range(args.seed, args.seed + args.deals):
        for arm in ARMS:
            places[arm].append(play(seed, arm, opponents, args.worlds, clock))
    print(
        f"Take4, {1 + len(opponents)} seats, opponents {', '.join(opponents)}; {args.deals} "
        f"deals from seed {args.seed}; search: {args.worlds} worlds a decision, "
        f"{1000 * sum(clock) / max(1, len(clock)):.1f} ms of CPU a searched decision"
    )
    print("| A | B | A's advantage (places a match, 95%) |")
    print("|---|---|---|")
    for a, b in (("search", "denial"), ("oracle", "denial"), ("oracle", "search")):
        mean, half = _interval([pb - pa for pa, pb in zip(places[a], places[b])])
        print(f"| {a} | {b} | {mean:+.3f} +- {half:.3f} |")


if __name__ == "__main__":
    main()
