"""The forward model of an Arschmallows round for search bots: ``Sim``, one determinized round
on card ids with per-seat knowledge, played to its end by a cheap greedy policy and scored by
the engine's own ``rules.score_round``; and ``sample_world``, which deals a ``Sim`` from an
observation (hidden cards only from what the seat has not seen).
"""

from __future__ import annotations

import math
import random
from collections import Counter

from mallows.games.arschmallows.botkit.counting import (
    ACTION_SET,
    DECK_MEAN,
    _phi,
    expected_unknown,
    unseen,
    variance_unknown,
)
from mallows.games.arschmallows.botkit.heuristic import TUNED_IMPROVE, TUNED_RISK
from mallows.games.arschmallows.cards import PLAY_TWICE, SPY
from mallows.games.arschmallows.rules import score_round


class Sim:
    """One determinized Arschmallows round, from some decision to the round's end.

    Cards are ids into ``values``; ``rows[p]`` holds ids by slot, ``up`` marks face-up ids,
    ``know[p][id]`` whether seat p has seen that card. The draw pile's top is its last item.
    ``me`` is the seat the determinization was made for; ``e`` the value it gives an unknown
    card. Phases are "take", "use", "end"; ``None`` once the round is over (``scores`` set).
    """

    __slots__ = (
        "values",
        "n",
        "rows",
        "up",
        "know",
        "draw",
        "discard",
        "current",
        "phase",
        "held",
        "src",
        "extra",
        "trigger",
        "caller",
        "queue",
        "turns",
        "max_turns",
        "final_on",
        "scoring",
        "scores",
        "me",
        "e",
        "var",
        "risk",
        "improve",
        "rng",
    )

    def __init__(
        self,
        values: list[int],
        rows: list[list[int]],
        up: list[bool],
        know: list[bytearray],
        draw: list[int],
        discard: list[int],
        *,
        me: int,
        current: int,
        phase: str | None,
        held: int | None = None,
        src: str | None = None,
        extra: int = 0,
        caller: int | None = None,
        trigger: str | None = None,
        queue: list[int] | None = None,
        turns: int = 0,
        max_turns: int = 500,
        final_on: bool = True,
        scoring: dict | None = None,
        e: float = DECK_MEAN,
        var: float = 16.0,
        risk: float = TUNED_RISK,
        improve: float = TUNED_IMPROVE,
        rng: random.Random | None = None,
    ) -> None:
        """A round as it lies: ``values`` (card id -> value), ``rows`` (seat -> ids by slot),
        ``up`` (id -> face up), ``know`` (seat -> id -> seen by that seat), the draw pile
        (top last) and the discard pile as ids; ``me`` the seat it was dealt for, ``current``
        the seat to move in ``phase``, ``held`` the id in hand (-1 once used; from ``src``: "draw" or
        "discard"), ``extra`` turns still owed (play twice), ``caller`` who called, ``trigger``
        and ``queue`` the final turns ("call" or "all_face_up", the seats still to play one),
        ``turns`` played of ``max_turns``; ``final_on`` and ``scoring`` the rule options; ``e``
        and ``var`` the value of an unknown card (mean, variance), ``risk`` and ``improve`` the
        rollout's call rule, ``rng`` its randomness (``rollout`` sets it)."""
        self.values = values
        self.n = len(rows)
        self.rows = rows
        self.up = up
        self.know = know
        self.draw = draw
        self.discard = discard
        self.current = current
        self.phase = phase
        self.held = -1 if held is None else held  # -1: no card in hand
        self.src = src
        self.extra = extra
        self.trigger = trigger
        self.caller = caller
        self.queue = [] if queue is None else queue
        self.turns = turns
        self.max_turns = max_turns
        self.final_on = final_on
        self.scoring = (
            {"caller_strictly_lowest": True, "double_negative": False}
            if scoring is None
            else scoring
        )
        self.scores: list[int] | None = None
        self.me = me
        self.e = e
        self.var = var
        self.risk = risk
        self.improve = improve
        self.rng = rng if rng is not None else random.Random(0)

    def copy(self) -> "Sim":
        # field by field, without the constructor: search bots copy a Sim per iteration
        s = Sim.__new__(Sim)
        s.values = self.values
        s.n = self.n
        s.rows = [r[:] for r in self.rows]
        s.up = self.up[:]
        s.know = [k[:] for k in self.know]
        s.draw = self.draw[:]
        s.discard = self.discard[:]
        s.current, s.phase, s.held, s.src = self.current, self.phase, self.held, self.src
        s.extra, s.trigger, s.caller = self.extra, self.trigger, self.caller
        s.queue = self.queue[:]
        s.turns, s.max_turns, s.final_on = self.turns, self.max_turns, self.final_on
        s.scoring, s.scores = self.scoring, self.scores
        s.me, s.e, s.var, s.risk = self.me, self.e, self.var, self.risk
        s.improve = self.improve
        s.rng = self.rng
        return s

    # -- knowledge
    def _show(self, card: int) -> None:
        for k in self.know:
            k[card] = 1

    # -- decisions (no validation: callers pass legal actions)
    def take(self, from_draw: bool) -> None:
        if from_draw:
            card = self.draw.pop()
            self.know[self.current][card] = 1
            self.src = "draw"
        else:
            card = self.discard.pop()
            self.src = "discard"
        self.held = card
        self.phase = "use"

    def swap(self, slot: int) -> None:
        s = self.current
        row = self.rows[s]
        old = row[slot]
        row[slot] = self.held
        self.know[s][self.held] = 1
        self.discard.append(old)
        self._show(old)
        self._used(s)

    def refuse(self, slot: int) -> None:
        s = self.current
        self.discard.append(self.held)
        self._show(self.held)
        card = self.rows[s][slot]
        self.up[card] = True
        self._show(card)
        self._used(s)

    def spy(self, player: int, slot: int) -> None:
        s = self.current
        self.know[s][self.rows[player][slot]] = 1
        self.discard.append(self.held)
        self._show(self.held)
        self._used(s)

    def exchange(self, slot: int, player: int, their: int) -> None:
        s = self.current
        mine, others = self.rows[s], self.rows[player]
        mine[slot], others[their] = others[their], mine[slot]
        self.discard.append(self.held)
        self._show(self.held)
        self._used(s)

    def play_twice(self) -> None:
        s = self.current
        self.extra += 2
        self.discard.append(self.held)
        self._show(self.held)
        self._used(s)

    def get_rid(self, slots: list[int]) -> None:
        s = self.current
        row, values = self.rows[s], self.values
        listed = [row[i] for i in slots]
        first = values[listed[0]]
        same = True
        for card in listed:
            self._show(card)
            if values[card] != first:
                same = False
                break
        if same and len(listed) >= (2 if first in ACTION_SET else 3):
            for card in listed:
                self.discard.append(card)
            gone = set(slots[1:])
            row[slots[0]] = self.held
            self.rows[s] = [c for i, c in enumerate(row) if i not in gone]
        else:
            row.append(self.held)
        self.know[s][self.held] = 1
        self._used(s)

    def call(self) -> None:
        s = self.current
        self.caller = s
        if not self._trigger(s, "call"):
            self._end_turn()

    def pass_(self) -> None:
        self._end_turn()

    def apply(self, action: dict) -> None:
        """Apply a protocol action dict (the root decision of a search)."""
        kind = action["type"]
        if kind == "draw":
            self.take(True)
        elif kind == "take_discard":
            self.take(False)
        elif kind == "swap":
            self.swap(action["slot"])
        elif kind == "refuse":
            self.refuse(action["slot"])
        elif kind == "spy":
            self.spy(action["player"], action["slot"])
        elif kind == "exchange":
            self.exchange(action["slot"], action["player"], action["their_slot"])
        elif kind == "play_twice":
            self.play_twice()
        elif kind == "get_rid":
            self.get_rid(list(action["slots"]))
        elif kind == "call":
            self.call()
        elif kind == "pass":
            self.pass_()
        else:
            raise ValueError(f"the simulator cannot apply {action!r}")

    # -- flow
    def _used(self, s: int) -> None:
        self.held = -1
        self.src = None
        up = self.up
        for card in self.rows[s]:
            if not up[card]:
                if self.trigger is None:
                    self.phase = "end"
                else:
                    self._end_turn()
                return
        if self.trigger is None:
            if self._trigger(s, "all_face_up"):
                return
        else:
            self.extra = 0
        self._end_turn()

    def _trigger(self, s: int, reason: str) -> bool:
        self.trigger = reason
        self.extra = 0
        if not self.final_on:
            self._end_round()
            return True
        self.queue = [(s + k) % self.n for k in range(1, self.n)]
        return False

    def resume_final_turns(self) -> None:
        """For a round already in its final turns (an observation's ``final_turns``): its
        trigger (the caller, else the first seat with no face-down card, else this seat) and
        the seats still to play their final turn, after the current one up to the trigger
        seat."""
        self.trigger = "call" if self.caller is not None else "all_face_up"
        trigger_seat = self.caller
        if trigger_seat is None:
            for p in range(self.n):
                if all(self.up[c] for c in self.rows[p]):
                    trigger_seat = p
                    break
        if trigger_seat is None:
            trigger_seat = self.me
        k = (self.current + 1) % self.n
        while k != trigger_seat:
            self.queue.append(k)
            k = (k + 1) % self.n

    def _end_turn(self) -> None:
        self.turns += 1
        if self.trigger is None:
            if self.turns >= self.max_turns:
                self._end_round()
                return
            if self.extra:
                self.extra -= 1
            else:
                self.current = (self.current + 1) % self.n
        elif self.extra:
            self.extra -= 1
        elif self.queue:
            self.current = self.queue.pop(0)
        else:
            self._end_round()
            return
        if not self.draw and len(self.discard) >= 2:
            pile = self.discard
            self.rng.shuffle(pile)
            self.discard = [pile[0]]
            self.draw = pile[:0:-1]
        if not self.draw and not self.discard:
            self._end_round()
        else:
            self.phase = "take"

    def _end_round(self) -> None:
        values = self.values
        raw = [sum(values[c] for c in row) for row in self.rows]
        self.scores = score_round(raw, self.caller, self.scoring)[0]  # the engine's scoring
        self.phase = None

    # -- the rollout policy
    def _best_slot(self, s: int, v: int) -> tuple[float, int]:
        """(gain, slot) of putting a card of value ``v`` in s's best face-down slot."""
        row, up, know, values, e = self.rows[s], self.up, self.know[s], self.values, self.e
        best, where = -99.0, -1
        for i, c in enumerate(row):
            if up[c]:
                continue
            g = (values[c] if know[c] else e) - v
            if g > best:
                best, where = g, i
        return best, where

    def estimate(self, s: int, viewer: int) -> float:
        know, values, up, e = self.know[viewer], self.values, self.up, self.e
        return sum(values[c] if (up[c] or know[c]) else e for c in self.rows[s])

    def policy_step(self) -> None:
        """One decision of the current seat by the rollout policy."""
        s = self.current
        phase = self.phase
        if phase == "take":
            if not self.draw:
                self.take(False)
                return
            if self.discard:
                top = self.values[self.discard[-1]]
                gain, _ = self._best_slot(s, top)
                if gain >= 2.5:
                    self.take(False)
                    return
            self.take(True)
            return
        if phase == "use":
            v = self.values[self.held]
            gain, slot = self._best_slot(s, v)
            if gain > 0.5:
                self.swap(slot)
                return
            row, up, know, values = self.rows[s], self.up, self.know[s], self.values
            if self.src == "draw" and v in ACTION_SET:
                if v == SPY:
                    for i, c in enumerate(row):
                        if not up[c] and not know[c]:
                            self.spy(s, i)
                            return
                elif v == PLAY_TWICE:
                    self.play_twice()
                    return
                else:  # exchange the worst known card for an opponent's best card
                    worst, wi = -99, -1
                    for i, c in enumerate(row):
                        if not up[c] and know[c] and values[c] > worst:
                            worst, wi = values[c], i
                    if wi >= 0 and worst >= self.e + 1:
                        best, bp, bj = 99.0, -1, -1
                        for p in range(self.n):
                            if p == s:
                                continue
                            for j, c in enumerate(self.rows[p]):
                                if up[c]:
                                    continue
                                val = values[c] if know[c] else self.e
                                if val < best:
                                    best, bp, bj = val, p, j
                        if bp >= 0 and worst - best > 1:
                            self.exchange(wi, bp, bj)
                            return
            # refuse: lock the lowest known card, else an unknown one
            best, slot = 99.0, -1
            for i, c in enumerate(row):
                if up[c]:
                    continue
                val = values[c] if know[c] else self.e + 1.0
                if val < best:
                    best, slot = val, i
            self.refuse(slot)
            return
        # end: the heuristic's risk model, P(strictly lowest) from normal estimates
        know, values, up, e = self.know[s], self.values, self.up, self.e
        est, unk = [], []
        for row in self.rows:
            total, u = 0.0, 0
            for c in row:
                if up[c] or know[c]:
                    total += values[c]
                else:
                    total += e
                    u += 1
            est.append(total)
            unk.append(u)
        mine = est[s]
        if mine <= 0 and unk[s] == 0:
            self.call()
            return
        prob, var = 1.0, self.var
        for p in range(self.n):
            if p != s:
                prob *= _phi(
                    (est[p] - self.improve - mine - 0.5) / math.sqrt((unk[s] + unk[p]) * var + 1.0)
                )
                if prob < self.risk:
                    break
        if prob >= self.risk:
            self.call()
        else:
            self.pass_()

    def rollout(self, rng: random.Random, max_turns: int | None = None) -> list[int]:
        """Play the round to its end with the rollout policy; return the round scores. With
        ``max_turns``, after that many more turns the round is scored as it lies (no caller
        doubling unless someone called)."""
        self.rng = rng
        if max_turns is not None:
            self.max_turns = min(self.max_turns, self.turns + max_turns)
        while self.phase is not None:
            self.policy_step()
        assert self.scores is not None  # set when the round ends
        return self.scores


def sample_world(
    obs: dict,
    rng: random.Random,
    pool: Counter | None = None,
    risk: float = TUNED_RISK,
    improve: float = TUNED_IMPROVE,
    skew: float = 0.0,
) -> Sim:
    """One determinization of ``obs`` (an Arschmallows observation of the seat to move) as a
    ``Sim``. Hidden cards (unknown row slots, the draw pile) come only from ``unseen(obs)``."""
    pool = unseen(obs) if pool is None else pool
    hidden = list(pool.elements())
    rng.shuffle(hidden)
    me = obs["seat"]
    n = obs["players"]
    values: list[int] = []
    rows: list[list[int]] = []
    up: list[bool] = []
    mine_known: list[int] = []
    theirs: list[tuple[int, bool]] = []  # (id, face up) of opponents' cards
    opts = obs["options"]
    table = opts.get("table_cards", 6) or 6
    p_know = min(0.9, (2 + obs.get("turn", 0) / n) / table)
    # Opponents keep low cards they drew (unseen by us): with probability q an opponent's
    # unknown card is the lower of two unseen cards (the other goes back to the pool).
    q = skew * min(1.0, obs.get("turn", 0) / n / 6)
    for p, row in enumerate(obs["rows"]):
        ids = []
        for slot in row:
            v = slot["value"]
            if v is None:
                v = hidden.pop() if hidden else round(DECK_MEAN)
                if p != me and q and hidden and rng.random() < q:
                    other = hidden.pop()
                    if other < v:
                        v, other = other, v
                    hidden.insert(rng.randrange(len(hidden) + 1), other)
            else:
                mine_known.append(len(values))
            ids.append(len(values))
            if p != me:
                theirs.append((len(values), slot["face_up"]))
            values.append(v)
            up.append(bool(slot["face_up"]))
        rows.append(ids)
    discard = []
    for v in obs["discard"]:
        discard.append(len(values))
        mine_known.append(len(values))
        values.append(v)
        up.append(False)
    draw_n = obs["draw_pile"]
    draw = []
    for _ in range(draw_n):
        draw.append(len(values))
        values.append(hidden.pop() if hidden else round(DECK_MEAN))
        up.append(False)
    held = obs.get("held")
    held_id = None
    if held is not None:
        held_id = len(values)
        mine_known.append(held_id)
        values.append(held["value"])
        up.append(False)
    size = len(values)
    know = [bytearray(size) for _ in range(n)]
    for c in mine_known:
        know[me][c] = 1
    for c in discard:
        for k in know:
            k[c] = 1
    for c in range(size):
        if up[c]:
            for k in know:
                k[c] = 1
    # Opponents' knowledge of their own cards: unknown to us, so drawn at random.
    for p in range(n):
        if p == me:
            continue
        kp = know[p]
        for c in rows[p]:
            if up[c] or rng.random() < p_know:
                kp[c] = 1
    current = obs.get("current_seat", me) if obs.get("current_seat") is not None else me
    s = Sim(
        values,
        rows,
        up,
        know,
        draw,
        discard,
        me=me,
        current=current,
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
        e=expected_unknown(obs, pool),
        var=variance_unknown(obs, pool),
        risk=risk,
        improve=improve,
        rng=rng,
    )
    if obs.get("final_turns"):
        s.resume_final_turns()
    else:
        s.trigger = None
    return s
