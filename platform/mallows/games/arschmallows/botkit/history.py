"""The heuristic's decision rules with a belief tracker's numbers in place of plain card
counting: ``belief_decide(obs, belief)``.

What changes against ``heuristic_decide``: each unknown card is valued at what the tracker
believes of it (``Belief.expected``), not at the mean of all unseen cards: an opponent's card it
drew and kept is probably low, a card it kept through many turns has a ceiling, the draw pile
after a reshuffle holds exactly the discards this seat watched go by. So the take decision
weighs the discard top against the draw pile's own mean, an exchange aims at the opponent's
card believed lowest, and the call rule's estimate of every opponent's total (and its spread)
is the sum of its cards' beliefs rather than a row of average cards less a fixed allowance.
"""

from __future__ import annotations

import math
import random

from mallows.games.arschmallows.botkit.belief import Belief
from mallows.games.arschmallows.botkit.counting import ACTION_SET, _phi
from mallows.games.arschmallows.botkit.heuristic import TUNED_IMPROVE, TUNED_RISK
from mallows.games.arschmallows.botkit.sim import Sim

#: The call rule on the beliefs: call when P(strictly lowest) >= BELIEF_RISK, each opponent's
#: believed total lowered by BELIEF_IMPROVE points for the play still to come (it keeps
#: playing until the round ends). Tuned on paired matches against the tuned heuristic.
BELIEF_RISK = 0.9
BELIEF_IMPROVE = 6.0
#: Take the discard pile's top card when it lowers the row by this much.
TAKE_GAIN = 2.5


def _values(belief: Belief, p: int) -> list[float]:
    return [belief.expected(p, i) for i in range(len(belief.rows[p]))]


def _options(row: list[dict], vals: list[float], v: float) -> tuple[float, dict | None]:
    best, action = -99.0, None
    groups: dict[int, list[int]] = {}
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        gain = vals[i] - v
        if gain > best:
            best, action = gain, {"type": "swap", "slot": i}
        if s["value"] is not None:
            groups.setdefault(s["value"], []).append(i)
    for value, slots in groups.items():
        if len(slots) >= (2 if value in ACTION_SET else 3):
            gain = value * len(slots) - v
            if gain > best:
                best, action = gain, {"type": "get_rid", "slots": slots}
    return best, action


def p_lowest_belief(obs: dict, belief: Belief, improve: float) -> tuple[float, float]:
    """(P(this seat's round score is strictly the lowest), its estimated score), each row's
    total a normal with the per-card beliefs' means and variances."""
    seat = obs["seat"]
    est, spread = [], []
    for p in range(len(belief.rows)):
        mean = sum(_values(belief, p))
        var = sum(belief.variance(p, i) for i in range(len(belief.rows[p])))
        if p != seat and not obs.get("final_turns"):
            mean -= improve
        est.append(mean)
        spread.append(var)
    mine, mvar = est[seat], spread[seat]
    prob = 1.0
    for p in range(len(est)):
        if p != seat:
            prob *= _phi((est[p] - mine - 0.5) / math.sqrt(mvar + spread[p] + 1.0))
    return prob, mine


def belief_decide(
    obs: dict, belief: Belief, risk: float = BELIEF_RISK, improve: float = BELIEF_IMPROVE
) -> dict:
    """The heuristic's choice with the tracker's beliefs (see the module docstring)."""
    legal = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "peek":
        return {"type": "peek", "slots": [0, 1]}
    seat = obs["seat"]
    row = obs["rows"][seat]
    vals = _values(belief, seat)
    if phase == "take":
        kinds = {a["type"] for a in legal}
        if "draw" not in kinds:
            return {"type": "take_discard"}
        if "take_discard" in kinds:
            top = obs["discard"][-1]
            gain, _ = _options(row, vals, top)
            if gain >= TAKE_GAIN:
                return {"type": "take_discard"}
        return {"type": "draw"}
    if phase == "use":
        held = obs["held"]
        v = held["value"]
        best, action = _options(row, vals, v)
        if best <= 0.5:
            best, action = -99.0, None
        # refuse: lock the cheapest face-down card
        lock, where = 99.0, -1
        for i, s in enumerate(row):
            if not s["face_up"]:
                x = vals[i] + (1.0 if s["value"] is None else 0.0)
                if x < lock:
                    lock, where = x, i
        candidates: list[tuple[float, dict | None]] = [
            (best, action),
            (-(0.3 if lock <= 2 else 1.0), {"type": "refuse", "slot": where}),
        ]
        if held["source"] == "draw" and v in ACTION_SET:
            if v == 9:
                candidates.append(_spy(obs, belief))
            elif v == 10:
                candidates.append(_exchange(obs, belief, vals))
            else:
                candidates.append((2.0, {"type": "play_twice"}))
        _gain, chosen = max((c for c in candidates if c[1] is not None), key=lambda c: c[0])
        assert chosen is not None
        return chosen
    prob, mine = p_lowest_belief(obs, belief, improve)
    unknown = sum(1 for s in row if s["value"] is None)
    if prob >= risk or (mine <= 0 and unknown == 0):
        return {"type": "call"}
    return {"type": "pass"}


def _spy(obs: dict, belief: Belief) -> tuple[float, dict | None]:
    seat = obs["seat"]
    for i, s in enumerate(obs["rows"][seat]):
        if not s["face_up"] and s["value"] is None:
            return 1.5, {"type": "spy", "player": seat, "slot": i}
    # an opponent's card: the one we know least about (the highest variance)
    best, target = -1.0, None
    for p, other in enumerate(obs["rows"]):
        if p == seat:
            continue
        for j, s in enumerate(other):
            if not s["face_up"] and s["value"] is None:
                var = belief.variance(p, j)
                if var > best:
                    best, target = var, (p, j)
    if target is None:
        return -99.0, None
    return 0.2, {"type": "spy", "player": target[0], "slot": target[1]}


def _exchange(obs: dict, belief: Belief, vals: list[float]) -> tuple[float, dict | None]:
    seat = obs["seat"]
    row = obs["rows"][seat]
    worst, wi = -99.0, -1
    for i, s in enumerate(row):
        if s["face_up"]:
            continue
        if vals[i] > worst or (vals[i] == worst and s["value"] is not None):
            worst, wi = vals[i], i
    if wi < 0:
        return -99.0, None
    best, target = 99.0, None
    for p, other in enumerate(obs["rows"]):
        if p == seat:
            continue
        for j, s in enumerate(other):
            if s["face_up"]:
                continue
            v = belief.expected(p, j)
            if v < best:
                best, target = v, (p, j)
    if target is None:
        return -99.0, None
    gain = worst - best - (0.5 if row[wi]["value"] is None else 0.0)
    return gain, {"type": "exchange", "slot": wi, "player": target[0], "their_slot": target[1]}


class BeliefWorlds:
    """Determinizations of ``obs`` drawn from the tracker (``Belief.sample_values``): the
    hidden cards only from their groups, weighted by what their owners' play suggests, each
    opponent knowing exactly the cards it has seen (``Card.known_by``). Everything but the
    hidden values is built once per decision (``template``); ``sample(rng)`` deals values."""

    def __init__(
        self, obs: dict, belief: Belief, risk: float = TUNED_RISK, improve: float = TUNED_IMPROVE
    ) -> None:
        self.belief = belief
        n = obs["players"]
        me = obs["seat"]
        values: list[int] = []
        rows: list[list[int]] = []
        up: list[bool] = []
        knowers: list[int] = []
        everyone = (1 << n) - 1
        self.hidden: list[tuple[int, int, int]] = []  # (card id, seat, slot)
        for p, row in enumerate(obs["rows"]):
            ids = []
            for i, slot in enumerate(row):
                card = belief.rows[p][i]
                c = len(values)
                ids.append(c)
                values.append(0 if card.value is None else card.value)
                if card.value is None:
                    self.hidden.append((c, p, i))
                face_up = bool(slot["face_up"])
                up.append(face_up)
                bits = card.known_by
                if face_up:
                    bits = everyone
                if slot["value"] is not None:
                    bits |= 1 << me
                knowers.append(bits)
            rows.append(ids)
        discard = []
        for v in obs["discard"]:
            discard.append(len(values))
            values.append(v)
            up.append(False)
            knowers.append(everyone)
        self.draw_ids = []
        for _ in range(obs["draw_pile"]):
            self.draw_ids.append(len(values))
            values.append(0)
            up.append(False)
            knowers.append(0)
        held = obs.get("held")
        held_id = None
        if held is not None:
            held_id = len(values)
            values.append(held["value"])
            up.append(False)
            knowers.append((1 << me) | (everyone if held["source"] == "discard" else 0))
        know = [bytearray(len(values)) for _ in range(n)]
        for c, bits in enumerate(knowers):
            if bits:
                for p in range(n):
                    if bits >> p & 1:
                        know[p][c] = 1
        opts = obs["options"]
        current = obs.get("current_seat")
        t = Sim(
            values,
            rows,
            up,
            know,
            self.draw_ids[:],
            discard,
            me=me,
            current=me if current is None else current,
            phase=obs["phase"],
            held=held_id,
            src=held["source"] if held is not None else None,
            extra=obs.get("extra_turns", 0),
            caller=obs.get("caller"),
            turns=obs.get("turn", 0),
            max_turns=opts.get("max_turns_per_round", 500),
            final_on=bool(opts.get("final_turns", True)),
            scoring={
                "caller_strictly_lowest": bool(opts.get("caller_strictly_lowest", True)),
                "double_negative": bool(opts.get("double_negative", False)),
            },
            e=belief.row_group_mean(),
            var=16.0,
            risk=risk,
            improve=improve,
        )
        if obs.get("final_turns"):
            t.resume_final_turns()
        self.template = t

    def sample(self, rng: random.Random) -> Sim:
        rows_v, draw_v, _held = self.belief.sample_values(rng)
        t = self.template
        values = t.values[:]
        for c, p, i in self.hidden:
            values[c] = rows_v[p][i]
        for c, v in zip(self.draw_ids, draw_v):
            values[c] = v
        world = t.copy()
        world.values = values
        world.rng = rng
        return world


def belief_world(
    obs: dict,
    belief: Belief,
    rng: random.Random,
    risk: float = TUNED_RISK,
    improve: float = TUNED_IMPROVE,
) -> Sim:
    """One determinization of ``obs`` from the tracker (see ``BeliefWorlds``)."""
    return BeliefWorlds(obs, belief, risk, improve).sample(rng)
