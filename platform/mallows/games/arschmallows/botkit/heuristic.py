"""The decision rules of the shipped ``heuristic`` Arschmallows bot (``bots/heuristic.py`` says
the idea), here so that the search bot can use them as its prior: which card to lock, when an
action card pays, and the call rule (call when the chance of being strictly lowest reaches
``RISK``, each opponent's estimate lowered by ``IMPROVE``).
"""

from __future__ import annotations

import math

from mallows.games.arschmallows.botkit.counting import (
    ACTION_SET,
    _phi,
    expected_unknown,
    unseen,
    variance_unknown,
)

#: The heuristic's call rule: call when P(strictly lowest) >= RISK, each opponent's estimate
#: lowered by IMPROVE points (it keeps low cards we did not see, and plays on).
RISK = 0.7
IMPROVE = 2.0
#: The same rule tuned on the ladder (0.7 / 2 calls too early and is often doubled): what the
#: search bot uses for its prior and its rollouts.
TUNED_RISK = 0.85
TUNED_IMPROVE = 5.0


# ----------------------------------------------------------------------------- the heuristic policy
# The decision rules of the shipped ``heuristic`` bot (see bots/heuristic.py for the idea);
# here so that the search bot can use them as its prior.


def _options(row: list[dict], v: float, e: float) -> tuple[float, dict | None]:
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


def cheapest_to_lock(row: list[dict], e: float) -> tuple[float, int]:
    """The face-down slot whose card costs least to turn face up for good: the lowest known
    card, else an unknown one (valued a little above the expectation ``e``, since it might be
    high and could have been swapped away later). Returns (its value, its slot)."""
    best, where = 99.0, -1
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        v = e + 1.0 if s["value"] is None else s["value"]
        if v < best:
            best, where = v, i
    return best, where


def _refuse(row: list[dict], e: float) -> tuple[float, dict]:
    """Refusing: lock the cheapest face-down card. Cost 0 for a known low card, more for an
    unknown one."""
    best, where = cheapest_to_lock(row, e)
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


def heuristic_decide(obs: dict, risk: float = RISK, improve: float = IMPROVE) -> dict:
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
        candidates: list[tuple[float, dict | None]] = [(best, action), _refuse(row, e)]
        if held["source"] == "draw" and v in ACTION_SET:
            if v == 9:
                candidates.append(_spy(obs, row))
            elif v == 10:
                candidates.append(_exchange(obs, row, e))
            else:
                candidates.append((2.0, {"type": "play_twice"}))
        gain, action = max((c for c in candidates if c[1] is not None), key=lambda c: c[0])
        assert action is not None  # refusing is always a candidate
        return action
    # end
    prob, mine = p_lowest(obs, e, variance_unknown(obs, pool), improve)
    unknown = sum(1 for s in row if s["value"] is None)
    if prob >= risk or (mine <= 0 and unknown == 0):
        return {"type": "call"}
    return {"type": "pass"}
