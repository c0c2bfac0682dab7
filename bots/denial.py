"""denial: a Take4 player that reasons about collisions and takes what opponents need.

Idea. Every seat picks at once, so a pick's worth depends on who else picks the same position
(a contested card goes to one of its contenders at random). ``denial`` values a collection by a
potential, per squad, of its count of different characters (0, 1, 3, 7 for 0..3; ``win``,
default 60, for a completed squad), and a card by how much it raises a seat's potential. It
models each opponent's pick as a mixture: with weight w the opponent plays like ``greedy``
(uniform over the cards that advance its best squad most), otherwise uniformly at random; w is
estimated per opponent from the history (how often its past picks were greedy's, corrected for
the agreement chance alone would give). For each of its own picks it then sums, over every
combination of the opponents' picks weighted by the model, the expected result of the races:
its own expected gain, minus ``deny`` (default 1.0) times every opponent's expected gain. So it
steers away from positions an opponent will probably contest when another card is nearly as
good, and it takes the card an opponent needs to complete a squad when that costs it little
(the completing card of an opponent counts for ``win`` - 7 points against it).
Ties are broken at random from the seat seed.

Strength: above ``greedy`` (3 players). Speed: well under a millisecond a decision.
Parameters: ``denial:deny=0.5,win=60``.
"""

from __future__ import annotations

import functools
import itertools
import random

from mallows.agents.kit import number_param

POTENTIAL = (0.0, 1.0, 3.0, 7.0)


_number = functools.partial(number_param, "denial")


class Bot:
    name = "denial"
    version = "1.0"
    games = ("take4",)

    def __init__(self, deny: float | str = 1.0, win: float | str = 60.0):
        self.deny = _number("deny", deny, 0.0, 10.0)
        self.win = _number("win", win, 8.0, 1e6)
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, obs: dict) -> dict:
        if obs.get("game") != "take4":
            raise ValueError(f"denial plays take4 only, not {obs.get('game')!r}")
        return decide(obs, self.rng, self.deny, self.win)


def _squad_of(obs: dict) -> dict[str, str]:
    return {name: squad for squad, members in obs["squads"].items() for name in members}


def _gain(card: str, held: set[str], squad_of: dict[str, str], win: float) -> float:
    """How much taking ``card`` raises the potential of a collection of distinct ``held``."""
    if card in held:
        return 0.0
    squad = squad_of[card]
    count = sum(1 for name in held if squad_of[name] == squad)
    if count >= 3:
        return win - POTENTIAL[3]
    return POTENTIAL[count + 1] - POTENTIAL[count]


def greedy_choices(positions: list, held: set[str], squad_of: dict[str, str]) -> list[int]:
    """The positions ``greedy`` would choose among (1-based): the cards that give its squad the
    most different characters; every filled position when all are duplicates."""
    scored = []
    for k, card in enumerate(positions, 1):
        if card is None or card in held:
            continue
        squad = squad_of[card]
        scored.append((1 + sum(1 for n in held if squad_of[n] == squad), k))
    if not scored:
        return [k for k, card in enumerate(positions, 1) if card is not None]
    top = max(s for s, _ in scored)
    return [k for s, k in scored if s == top]


def greedy_weights(obs: dict, squad_of: dict[str, str]) -> list[float]:
    """Per seat, the estimated weight of the greedy component in its picks (prior 0.5)."""
    n = obs["players"]
    held: list[set[str]] = [set() for _ in range(n)]
    agree = [0.0] * n
    chance = [0.0] * n
    rounds = 0
    for entry in obs["history"]:
        positions = entry["positions"]
        filled = sum(1 for c in positions if c is not None)
        for seat, pick in enumerate(entry["picks"]):
            choices = greedy_choices(positions, held[seat], squad_of)
            if pick in choices:
                agree[seat] += 1
            chance[seat] += len(choices) / max(1, filled)
        rounds += 1
        winners = {r["position"]: r["winner"] for r in entry["races"]}
        for position in set(entry["picks"]):
            card = positions[position - 1]
            seats = [s for s, p in enumerate(entry["picks"]) if p == position]
            taker = winners.get(position, seats[0]) if len(seats) > 1 else seats[0]
            held[taker].add(card)
    weights = []
    for seat in range(n):
        if rounds == 0:
            weights.append(0.5)
            continue
        base = chance[seat] / rounds
        rate = (agree[seat] + 0.5) / (rounds + 1)  # shrunk towards the middle
        w = (rate - base) / (1 - base) if base < 1 else 0.5
        weights.append(min(1.0, max(0.0, w)))
    return weights


def decide(obs: dict, rng: random.Random, deny: float = 1.0, win: float = 60.0) -> dict:
    legal = [a["position"] for a in obs["legal_actions"]]
    if len(legal) == 1:
        return {"type": "pick", "position": legal[0]}
    positions = obs["positions"]
    squad_of = _squad_of(obs)
    me = obs["seat"]
    n = obs["players"]
    held = [set(c) for c in obs["collections"]]
    gains = [{k: _gain(positions[k - 1], held[s], squad_of, win) for k in legal} for s in range(n)]
    weights = greedy_weights(obs, squad_of)
    others = [s for s in range(n) if s != me]
    dists = []
    for s in others:
        choices = greedy_choices(positions, held[s], squad_of)
        w = weights[s]
        dists.append([(k, w * (k in choices) / len(choices) + (1 - w) / len(legal)) for k in legal])
    value = {k: 0.0 for k in legal}
    for combo in itertools.product(*dists):
        prob = 1.0
        for _, p in combo:
            prob *= p
        if prob < 1e-9:
            continue
        count: dict[int, int] = {}
        for k, _ in combo:
            count[k] = count.get(k, 0) + 1
        # the opponents' expected gains, apart from the position we pick
        base = 0.0
        for s, (k, _) in zip(others, combo):
            base += gains[s][k] / count[k]
        for mine in legal:
            c = count.get(mine, 0)
            theirs = base
            if c:  # we join that race: each of them now wins 1/(c+1) instead of 1/c
                theirs -= sum(gains[s][k] for s, (k, _) in zip(others, combo) if k == mine) * (
                    1 / c - 1 / (c + 1)
                )
            value[mine] += prob * (gains[me][mine] / (c + 1) - deny * theirs)
    top = max(value.values())
    best = [k for k in legal if value[k] >= top - 1e-9]
    choice = best[rng.randrange(len(best))] if len(best) > 1 else best[0]
    return {"type": "pick", "position": choice}
