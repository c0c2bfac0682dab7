"""heuristic: a hand-tuned Arschmallows player that uses every rule.

Idea. Everything ``greedy`` does (unknown cards valued at the expectation of the cards not yet
seen, swaps that lower the row, discard-pile takes) plus:

- spying: a drawn Spy looks at one of its own unknown cards (an opponent's card once it knows
  all its own), so later swaps and the call rest on facts, and a drawn action card need not be
  refused (a refusal locks a card face up);
- exchange: a drawn Exchange gives its highest known card (or an unknown one) for an
  opponent's known low card, or for an opponent's unknown card when its own card is high;
- getting rid of known pairs and triples (``get_rid`` of three equal known cards, or two equal
  action cards) when that lowers the row more than a swap;
- play twice: a drawn Play-twice is always played (two more turns to improve);
- taking from the discard pile also when the top card completes a known triple;
- a risk model for calling: its own total and every opponent's are normal estimates (known
  cards exact, each unknown card the mean and variance of the unseen cards; an opponent is
  assumed to improve by ``improve`` points in its final turn), so P(strictly lowest) is the
  product of the pairwise probabilities. It calls when that probability is at least ``risk``
  (default 0.7), or when its row is fully known and at most 0 (a caller at or below 0 is never
  doubled).

Strength: beats ``greedy`` clearly; below ``ismcts``. Speed: tens of microseconds a decision.
Parameters: ``heuristic:risk=0.8,improve=2`` (call threshold, and the opponents' expected
gain in their final turn).
"""

from __future__ import annotations

from mallows.botlib import heuristic_decide


class Bot:
    name = "heuristic"
    version = "1.0"
    games = ("arschmallows",)
    PARAMS = {"risk": "call when P(strictly lowest) is at least this (0..1)",
              "improve": "points an opponent gains in its final turn"}

    def __init__(self, risk: float | str = 0.7, improve: float | str = 2.0):
        self.risk = _number("risk", risk, 0.0, 1.0)
        self.improve = _number("improve", improve, -50.0, 50.0)

    def act(self, obs: dict) -> dict:
        if obs.get("game") != "arschmallows":
            raise ValueError(f"heuristic plays arschmallows only, not {obs.get('game')!r}")
        return heuristic_decide(obs, self.risk, self.improve)


def _number(key: str, value, low: float, high: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"heuristic: parameter {key} must be a number, got {value!r}") from None
    if not low <= x <= high:
        raise ValueError(f"heuristic: parameter {key}={x:g} is out of range {low:g}..{high:g}")
    return x
