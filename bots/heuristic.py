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

import math

from mallows.botlib import ACTION_SET, expected_unknown, unseen, variance_unknown


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


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
        return decide(obs, self.risk, self.improve)


def _number(key: str, value, low: float, high: float) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"heuristic: parameter {key} must be a number, got {value!r}") from None
    if not low <= x <= high:
        raise ValueError(f"heuristic: parameter {key}={x:g} is out of range {low:g}..{high:g}")
    return x


# ------------------------------------------------------------------------------------ parts

def _options(row: list[dict], v: float, e: float) -> tuple[float, dict]:
    """The best way to put a card of value ``v`` into the row: (gain, action), a swap or a
    get_rid of known equal cards. gain = how much the row's estimated total falls."""
    best, action = -99.0, None
    groups: dict[int, list[int]] = {}
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        known = s["value"]
        gain = (e if known is None else known) - v
        if gain > best:
            best, action = gain, {"type": "swap", "slot": i}
        if known is not None:
            groups.setdefault(known, []).append(i)
    for value, slots in groups.items():
        if len(slots) >= (2 if value in ACTION_SET else 3):
            gain = value * len(slots) - v
            if gain > best:
                best, action = gain, {"type": "get_rid", "slots": slots}
    return best, action


def _refuse(row: list[dict], e: float) -> tuple[float, dict]:
    """Refusing: lock the cheapest face-down card. Cost 0 for a known low card, more for an
    unknown one (it might be high and could have been swapped away later)."""
    best, where = 99.0, -1
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        v = e + 1.0 if s["value"] is None else s["value"]
        if v < best:
            best, where = v, i
    cost = 0.3 if best <= 2 else 1.0
    return -cost, {"type": "refuse", "slot": where}


def _spy(obs: dict, row: list[dict]) -> tuple[float, dict | None]:
    seat = obs["seat"]
    for i, s in enumerate(row):
        if not s["face_up"] and s["value"] is None:
            return 1.5, {"type": "spy", "player": seat, "slot": i}
    for p, other in enumerate(obs["rows"]):
        if p == seat:
            continue
        for j, s in enumerate(other):
            if not s["face_up"] and s["value"] is None:
                return 0.2, {"type": "spy", "player": p, "slot": j}
    return -99.0, None


def _exchange(obs: dict, row: list[dict], e: float) -> tuple[float, dict | None]:
    seat = obs["seat"]
    worst, wi = -99.0, -1
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        v = e if s["value"] is None else s["value"]
        if v > worst or (v == worst and s["value"] is not None):
            worst, wi = v, i
    if wi < 0:
        return -99.0, None
    best, target = 99.0, None
    for p, other in enumerate(obs["rows"]):
        if p == seat:
            continue
        for j, s in enumerate(other):
            if s["face_up"]:
                continue
            v = e if s["value"] is None else s["value"]
            if v < best:
                best, target = v, (p, j)
    if target is None:
        return -99.0, None
    # Swapping an unknown card for an unknown one gains nothing but loses our knowledge.
    gain = worst - best - (0.5 if row[wi]["value"] is None else 0.0)
    return gain, {"type": "exchange", "slot": wi, "player": target[0], "their_slot": target[1]}


def p_lowest(obs: dict, e: float, var: float, improve: float) -> tuple[float, float]:
    """(P(this seat's round score is strictly the lowest), its estimated score)."""
    seat = obs["seat"]
    est, spread = [], []
    for p, row in enumerate(obs["rows"]):
        known = sum(s["value"] for s in row if s["value"] is not None)
        unknown = sum(1 for s in row if s["value"] is None)
        mean = known + unknown * e
        if p != seat and not obs.get("final_turns"):
            mean -= improve
        est.append(mean)
        spread.append(unknown * var)
    mine, mvar = est[seat], spread[seat]
    prob = 1.0
    for p in range(len(est)):
        if p == seat:
            continue
        prob *= _phi((est[p] - mine - 0.5) / math.sqrt(mvar + spread[p] + 1.0))
    return prob, mine


def decide(obs: dict, risk: float = 0.7, improve: float = 2.0) -> dict:
    legal = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "peek":
        return {"type": "peek", "slots": [0, 1]}
    seat = obs["seat"]
    row = obs["rows"][seat]
    pool = unseen(obs)
    e = expected_unknown(obs, pool)
    if phase == "take":
        kinds = {a["type"] for a in legal}
        if "draw" not in kinds:
            return {"type": "take_discard"}
        if "take_discard" in kinds:
            gain, _ = _options(row, obs["discard"][-1], e)
            if gain >= 2.5:
                return {"type": "take_discard"}
        return {"type": "draw"}
    if phase == "use":
        held = obs["held"]
        v = held["value"]
        best, action = _options(row, v, e)
        if best <= 0.5:
            best, action = -99.0, None
        candidates = [(best, action), _refuse(row, e)]
        if held["source"] == "draw" and v in ACTION_SET:
            if v == 9:
                candidates.append(_spy(obs, row))
            elif v == 10:
                candidates.append(_exchange(obs, row, e))
            else:
                candidates.append((2.0, {"type": "play_twice"}))
        gain, action = max((c for c in candidates if c[1] is not None), key=lambda c: c[0])
        return action
    # end
    prob, mine = p_lowest(obs, e, variance_unknown(obs, pool), improve)
    unknown = sum(1 for s in row if s["value"] is None)
    if prob >= risk or (mine <= 0 and unknown == 0):
        return {"type": "call"}
    return {"type": "pass"}
