"""The candidate actions a determinized search compares at an Arschmallows decision
(``candidate_actions``), pruned by what cannot differ in the seat's information set: the take
decision (draw or take the discard), call or pass, and at the use decision the swaps and
refusals into every known face-down slot plus one unknown slot (all unknown own slots are
alike to it), spying one own unknown card or one opponent's, the best exchanges, play twice,
and every get_rid of known equal cards; and ``PairedComparison``, how a search weighs them
(each candidate against the prior, on the same worlds), shared by ``ismcts`` and ``belief``;
``RacingComparison`` (``belief``) also drops the candidates that cannot beat the prior.
"""

from __future__ import annotations

import math

from mallows.games.arschmallows.botkit.counting import ACTION_SET, expected_unknown


def candidate_actions(obs: dict) -> list[dict]:
    """The actions worth comparing (see the module docstring); always legal."""
    legal = obs["legal_actions"]
    phase = obs["phase"]
    if phase == "peek":
        return [{"type": "peek", "slots": [0, 1]}]
    if phase in ("take", "end"):
        return list(legal)
    seat = obs["seat"]
    row = obs["rows"][seat]
    held = obs["held"]
    v = held["value"]
    down = [i for i, s in enumerate(row) if not s["face_up"]]
    known = [i for i in down if row[i]["value"] is not None]
    unknown = [i for i in down if row[i]["value"] is None]
    reps = known + unknown[:1]
    out: list[dict] = [{"type": "swap", "slot": i} for i in reps]
    out += [{"type": "refuse", "slot": i} for i in reps]
    if held["source"] == "draw" and v in ACTION_SET:
        kinds = {a["type"] for a in legal}
        if "spy" in kinds:
            if unknown:
                out.append({"type": "spy", "player": seat, "slot": unknown[0]})
            for p, other in enumerate(obs["rows"]):
                if p == seat:
                    continue
                j = next(
                    (j for j, s in enumerate(other) if not s["face_up"] and s["value"] is None),
                    None,
                )
                if j is not None:
                    out.append({"type": "spy", "player": p, "slot": j})
                    break
        if "play_twice" in kinds:
            out.append({"type": "play_twice"})
        if "exchange" in kinds:
            out += _exchanges(obs, row, known, unknown)
    groups: dict[int, list[int]] = {}
    for i in known:
        groups.setdefault(row[i]["value"], []).append(i)
    for value, slots in groups.items():
        if len(slots) >= (2 if value in ACTION_SET else 3):
            out.append({"type": "get_rid", "slots": slots})
    return out


def _exchanges(obs: dict, row: list[dict], known: list[int], unknown: list[int]) -> list[dict]:
    """Give the highest known card (and one unknown card) for each opponent's lowest known
    card and for one unknown card of each opponent."""
    seat = obs["seat"]
    mine = []
    if known:
        mine.append(max(known, key=lambda i: row[i]["value"]))
    if unknown:
        mine.append(unknown[0])
    e = expected_unknown(obs)
    targets: list[tuple[int, int]] = []
    for p, other in enumerate(obs["rows"]):
        if p == seat:
            continue
        down = [(j, s["value"]) for j, s in enumerate(other) if not s["face_up"]]
        known_low = [(v, j) for j, v in down if v is not None and v < e]
        if known_low:
            targets.append((p, min(known_low)[1]))
        hidden = next((j for j, v in down if v is None), None)
        if hidden is not None:
            targets.append((p, hidden))
    return [
        {"type": "exchange", "slot": i, "player": p, "their_slot": j}
        for i in mine
        for p, j in targets
    ]


class PairedComparison:
    """Each candidate's utility minus the prior's (candidate 0), summed over shared worlds:
    ``add`` one world's utilities (all candidates, the prior first); ``best(z)`` is the index of
    the candidate whose mean difference is highest once ``z`` standard errors are taken off,
    0 (the prior) unless one stays above 0, or fewer than two worlds were added."""

    def __init__(self, candidates: int) -> None:
        self.diff = [0.0] * candidates
        self.diff2 = [0.0] * candidates
        self.count = 0  # worlds added

    def add(self, utils: list[float]) -> None:
        base = utils[0]
        for i in range(1, len(self.diff)):
            d = utils[i] - base
            self.diff[i] += d
            self.diff2[i] += d * d
        self.count += 1

    def worlds(self, i: int) -> int:
        """The worlds candidate ``i`` was compared on."""
        return self.count

    def score(self, i: int, z: float) -> float:
        """Candidate ``i``'s mean difference to the prior less ``z`` standard errors (plus,
        for a negative ``z``); at least two worlds."""
        n = self.worlds(i)
        mean = self.diff[i] / n
        var = max(0.0, self.diff2[i] / n - mean * mean) * n / (n - 1)
        return mean - z * math.sqrt(var / n)

    def best(self, z: float) -> int:
        best, best_score = 0, 0.0
        for i in range(1, len(self.diff)):
            if self.worlds(i) >= 2:
                score = self.score(i, z)
                if score > best_score:
                    best, best_score = i, score
        return best


class RacingComparison(PairedComparison):
    """``PairedComparison`` that stops rolling out the candidates already out of the race:
    ``active`` lists the candidates still compared (the prior, 0, always); ``add`` takes one
    world's utilities for those alone (the prior first); after ``min_worlds`` shared worlds a
    candidate whose mean difference to the prior stays below 0 even with ``z_drop`` standard
    errors added is dropped, so later worlds go to the candidates that can still win
    (``z_drop=None``: none ever is, and it chooses exactly as ``PairedComparison``).
    ``best(z)`` is ``PairedComparison.best``'s rule over every candidate's own worlds. When only
    the prior is left (``decided``), more worlds cannot change the choice."""

    def __init__(self, candidates: int, z_drop: float | None = 1.5, min_worlds: int = 6) -> None:
        super().__init__(candidates)
        self.counts = [0] * candidates
        self.active = list(range(candidates))
        self.z_drop = z_drop
        self.min_worlds = max(2, min_worlds)

    def add(self, utils: list[float]) -> None:
        base = utils[0]
        for i, u in zip(self.active[1:], utils[1:]):
            d = u - base
            self.diff[i] += d
            self.diff2[i] += d * d
            self.counts[i] += 1
        self.count += 1
        if self.z_drop is not None and self.count >= self.min_worlds:
            self.active = [0] + [i for i in self.active[1:] if self.score(i, -self.z_drop) >= 0.0]

    def worlds(self, i: int) -> int:
        return self.counts[i]

    @property
    def decided(self) -> bool:
        return len(self.active) == 1
