"""ismcts: determinized Monte Carlo search over the bot's own information set (Arschmallows).

Idea. At each decision with more than one sensible choice, repeat until the time budget is
spent: deal one *determinization* of the hidden cards consistent with what this seat has seen
(``botkit.sample_world``: the unknown row cards and the draw pile are drawn, without
replacement, only from the multiset of cards it has not seen: the deck minus every value its
observation shows), then, for every candidate action, play the rest of the round in that world
with the cheap rollout policy of ``botkit.Sim`` for every seat (greedy swaps, spying,
exchanges, play twice, and the heuristic's risk model for calling, each seat using only what it
knows in that world), and score the round's end as (mean of the opponents' round scores) minus
(its own round score, caller doubling included). All candidates share each determinization and
the rollout's random stream (common random numbers), so their differences are paired.
(``botkit`` is ``mallows.games.arschmallows.botkit``, the Arschmallows bot kit.)

Two refinements make the search pay at small budgets:

- a prior: the ``heuristic`` bot's choice (``botkit.heuristic_decide``) is the default,
  and another candidate replaces it only when its mean paired advantage exceeds ``z`` standard
  errors (``z`` = 1.5 at the call decision, ``z_play`` = 2.5 at the take and use decisions,
  where more candidates make a lucky winner likelier);
- opponents' unknown cards are skewed low: opponents keep the low cards they draw unseen by us,
  so with a probability growing with the turns played (times ``skew``) an opponent's unknown
  card is dealt as the lower of two unseen cards (the other goes back: still only unseen cards).

The candidates are pruned by what cannot differ in this seat's information set: the take
decision (draw or take the discard), call or pass, and at the use decision the swaps and
refusals into every known face-down slot plus one unknown slot (all unknown own slots are
alike to it), spying one own unknown card or one opponent's, the best exchanges, play twice,
and every get_rid of known equal cards. A decision with one candidate (the peek: no slot is
known yet, so any two are alike) is answered at once, spending nothing. Opponents' knowledge of
their own cards is not shown to us; in each determinization each of their face-down cards is
known to them with a probability that grows with the turns played.

Strength: above ``heuristic``, below ``belief`` (protocol 2) at the same budget (the ladder,
``benchmarks/ladder.py``, measures them at 0.05 s; ``mallows compare`` figures in
``bots/belief.py``). At 0.02 s much of its margin over
the default ``heuristic`` is its better-tuned call rule; at 0.05 s the search also beats the
tuned heuristic (``heuristic:risk=0.85,improve=5``), and more budget helps further.
Speed: its budget per decision, default 0.2 s (it stops at 90% of the budget to leave slack for
the platform's own per-decision limit); about 1500-3000 rollouts a second on one core.

Parameters (``ismcts:iterations=20``, ``ismcts:budget=0.5,seed=3``): ``budget`` seconds per
decision (0 < budget <= 60; default 0.2 unless ``iterations`` is given); ``iterations`` determinizations per decision (0 = none): given without ``budget`` it is the
whole budget, the search stops on its count alone and the same seed plays the same match on any
machine under any load (how the strength table in bots/README.md measures it); with
``budget`` too, whichever comes first; ``seed`` overrides the seat seed; ``z``, ``z_play``
(the prior's margins above); ``skew`` (0..1, default 1); ``search`` the phases searched,
joined by ``+`` (default ``end+use+take``; the others follow the heuristic); ``risk`` and
``improve``, the call rule of its prior and of every seat in its rollouts (default 0.85 and 5,
tuned on the ladder; the ``heuristic`` bot's defaults, 0.7 and 2, call too early).
"""

from __future__ import annotations

import functools
import math
import random
import time

from mallows.agents.kit import number_param
from mallows.games.arschmallows.botkit import (
    TUNED_IMPROVE,
    TUNED_RISK,
    PairedComparison,
    candidate_actions,
    heuristic_decide,
    sample_world,
    unseen,
)


#: Seconds a searched decision when neither ``budget`` nor ``iterations`` is given.
DEFAULT_BUDGET = 0.2
#: A rollout plays at most this many more turns (a round of cautious players can run long).
ROLLOUT_TURNS = 120


_number = functools.partial(number_param, "ismcts")


class Bot:
    name = "ismcts"
    version = "1.0"
    games = ("arschmallows",)

    def __init__(
        self,
        budget: float | str | None = None,
        iterations: int | str = 0,
        seed: int | str | None = None,
        z: float | str = 1.5,
        z_play: float | str = 2.5,
        search: str = "end+use+take",
        skew: float | str = 1.0,
        risk: float | str = TUNED_RISK,
        improve: float | str = TUNED_IMPROVE,
    ):
        self.budget = DEFAULT_BUDGET if budget is None else _number("budget", budget, 1e-6, 60.0)
        self.z_end = _number("z", z, 0.0, 10.0)
        self.z_play = _number("z_play", z_play, 0.0, 10.0)
        self.z = self.z_end  # the margin of the decision being searched
        self.skew = _number("skew", skew, 0.0, 1.0)
        self.risk = _number("risk", risk, 0.0, 1.0)
        self.improve = _number("improve", improve, -50.0, 50.0)
        self.phases = set(str(search).split("+"))
        if not self.phases or not self.phases <= {"end", "use", "take"}:
            raise ValueError(
                f"ismcts: parameter search={search!r} must name phases from "
                f"end, use, take joined by +, for example search=end+use"
            )
        self.iterations = _number("iterations", iterations, 0, 10**9, int)
        #: ``iterations`` without ``budget``: the search stops on its count alone, so the same
        #: seed plays the same match on any machine under any load
        self.untimed = budget is None and self.iterations > 0
        self.fixed_seed = None if seed is None else _number("seed", seed, 0, 2**63, int)
        self.rng = random.Random(self.fixed_seed or 0)
        self.last_iterations = 0

    def match_start(self, info: dict) -> None:
        self.rng = random.Random(info["seed"] if self.fixed_seed is None else self.fixed_seed)

    def act(self, obs: dict) -> dict:
        if obs.get("game") != "arschmallows":
            raise ValueError(f"ismcts plays arschmallows only, not {obs.get('game')!r}")
        start = time.perf_counter()
        if obs["phase"] not in self.phases and obs["phase"] != "peek":
            self.last_iterations = 0
            return heuristic_decide(obs, self.risk, self.improve)
        candidates = candidate_actions(obs)
        self.z = self.z_end if obs["phase"] == "end" else self.z_play
        if len(candidates) == 1:
            self.last_iterations = 0
            return candidates[0]
        prior = heuristic_decide(obs, self.risk, self.improve)
        if prior in candidates:
            candidates.remove(prior)
        candidates.insert(0, prior)
        deadline = math.inf if self.untimed else start + 0.9 * self.budget
        return self.search(obs, candidates, deadline)

    def search(self, obs: dict, candidates: list[dict], deadline: float) -> dict:
        """Compare the candidates on shared determinizations; ``candidates[0]`` is the prior
        (the heuristic's choice), kept unless another beats it by ``z`` standard errors of the
        paired difference."""
        rng = self.rng
        me = obs["seat"]
        pool = unseen(obs)
        k = len(candidates)
        paired = PairedComparison(k)
        while True:
            world = sample_world(
                obs, rng, pool, risk=self.risk, improve=self.improve, skew=self.skew
            )
            seed = rng.getrandbits(48)
            utils = []
            for action in candidates:
                w = world.copy()
                w.apply(action)
                scores = w.rollout(random.Random(seed), ROLLOUT_TURNS)
                utils.append((sum(scores) - scores[me]) / (len(scores) - 1) - scores[me])
                if time.perf_counter() >= deadline and not self.iterations:
                    break
            if len(utils) < k:  # out of time inside an iteration: drop it
                break
            paired.add(utils)
            if (
                self.iterations and paired.count >= self.iterations
            ) or time.perf_counter() >= deadline:
                break
        self.last_iterations = paired.count
        return candidates[paired.best(self.z)]
