"""greedy: the one-step greedy bot, one module for both games (Take4 for now).

Idea, Take4: take the card that advances the bot's best squad most. Each filled position is
scored by how many different characters its card's squad would then hold (so a squad's fourth
character scores 4 and wins); a character the bot already holds is never picked, since a copy
advances nothing. When every card on the table is one it already holds, it plays the
rulebook's tip and takes the card that would advance an opponent's squad most (denial). Ties
are broken at random from the bot's seat seed, so the same match seed gives the same play.
It ignores races: it does not avoid positions that other seats are likely to pick.

Strength: clearly above ``random`` (it never wastes a pick on a duplicate and finishes squads
it is close to); blind to contention. Speed: tens of microseconds a decision.

Arschmallows: not yet played by this bot (its section is added later, beside Take4's).
"""

from __future__ import annotations

import random


class Bot:
    name = "greedy"
    version = "1.0"
    games = ("take4",)

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"])

    def act(self, observation: dict) -> dict:
        game = observation.get("game")
        play = _GAMES.get(game)
        if play is None:
            raise ValueError(f"greedy does not play {game!r} yet; it plays {', '.join(_GAMES)}")
        return play(observation, self.rng)


# --------------------------------------------------------------------------------------------
# Take4
# --------------------------------------------------------------------------------------------

def _take4_squad_of(observation: dict) -> dict[str, str]:
    return {name: squad for squad, members in observation["squads"].items() for name in members}


def _take4_gain(card: str, held: set[str], squad_of: dict[str, str]) -> int:
    """How many different characters of ``card``'s squad ``held`` has after taking it."""
    squad = squad_of[card]
    return 1 + sum(1 for name in held if squad_of[name] == squad)


def take4_act(observation: dict, rng: random.Random) -> dict:
    legal = observation["legal_actions"]
    positions = observation["positions"]
    squad_of = _take4_squad_of(observation)
    seat = observation["seat"]
    mine = set(observation["collections"][seat])

    def best_of(scored: list[tuple[int, dict]]) -> dict:
        top = max(score for score, _ in scored)
        choices = [action for score, action in scored if score == top]
        return choices[rng.randrange(len(choices))] if len(choices) > 1 else choices[0]

    useful = [(_take4_gain(positions[a["position"] - 1], mine, squad_of), a)
              for a in legal if positions[a["position"] - 1] not in mine]
    if useful:
        return best_of(useful)
    # Every card on the table is one we hold: deny the opponent it helps most.
    others = [set(held) for s, held in enumerate(observation["collections"]) if s != seat]
    denial = []
    for action in legal:
        card = positions[action["position"] - 1]
        denial.append((max((_take4_gain(card, held, squad_of) for held in others
                            if card not in held), default=0), action))
    return best_of(denial)


_GAMES = {"take4": take4_act}
