"""rules4: a Take4 player written from the rules alone, one rule after another (the baseline of
``jointpick``).

Idea. A squad wins with four *different* characters (RULES.md T9), there are four copies of each
character (T1) and every collected card is public (T11), so:

1. take a card that completes its own squad;
2. else take a card that completes an opponent's squad (the rulebook's Tip: deny it);
3. else take the card that advances its best *live* squad most (a squad whose missing
   characters all still have a copy outside the collections), less half a point for every
   opponent it would give two or more of a squad (a wanted card is likelier contested, and a
   contested card goes to one of its pickers: T7);
4. with nothing of use on the table, take the card that advances an opponent most.

Ties are broken at random from the seat seed. Strength: about ``denial``, not above it
(``mallows compare rules4 denial --game take4 --players 3 --seed 101``: H0, -0.060 +- 0.112
places a match over 168 matches); against ``jointpick``: bots/README.md, "Strength". Speed:
tens of microseconds a decision. No parameters.
"""

from __future__ import annotations

import random


class Bot:
    name = "rules4"
    version = "1.0"
    games = ("take4",)

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, obs: dict) -> dict:
        if obs.get("game") != "take4":
            raise ValueError(f"rules4 plays take4 only, not {obs.get('game')!r}")
        return {"type": "pick", "position": decide(obs, self.rng)}


def _progress(card: str, held: set[str], squad_of: dict[str, str]) -> int:
    """Different characters of ``card``'s squad in ``held`` once ``card`` is added (0: a copy)."""
    if card in held:
        return 0
    return 1 + sum(1 for name in held if squad_of[name] == squad_of[card])


def decide(obs: dict, rng: random.Random) -> int:
    squads: dict[str, list[str]] = obs["squads"]
    squad_of = {name: squad for squad, members in squads.items() for name in members}
    held = [set(c) for c in obs["collections"]]
    me = obs["seat"]
    others = [held[s] for s in range(len(held)) if s != me]
    cards = {a["position"]: obs["positions"][a["position"] - 1] for a in obs["legal_actions"]}
    taken = [name for c in obs["collections"] for name in c]

    def live(card: str) -> bool:
        return all(taken.count(n) < 4 for n in squads[squad_of[card]] if n not in held[me])

    def score(card: str) -> float:
        mine = _progress(card, held[me], squad_of)
        if mine == 4:
            return 100.0
        if any(_progress(card, h, squad_of) == 4 for h in others):
            return 50.0
        if mine == 0:
            return -10.0 + max(_progress(card, h, squad_of) for h in others)
        wanted = sum(1 for h in others if _progress(card, h, squad_of) >= 2)
        return mine * (1.0 if live(card) else 0.1) - 0.5 * wanted

    scored = {k: score(card) for k, card in cards.items()}
    top = max(scored.values())
    best = sorted(k for k, v in scored.items() if v == top)
    return best[rng.randrange(len(best))] if len(best) > 1 else best[0]
