"""The Arschmallows bot kit, for the shipped reference bots and anyone else's: card counting,
the determinization of an Arschmallows observation, and a compact forward model of a round.
What it offers a bot is ``__all__`` (import it from here); the generic parameter helper is
``mallows.agents.kit``.

Modules: ``counting`` (what a seat has not seen and what an unknown card is worth),
``sim`` (``Sim``, the forward model of a round, and ``sample_world``, the determinization),
``heuristic`` (the shipped ``heuristic`` bot's decision rules and call model).

Everything here reads *observation dicts only* (protocol v1, bots/README.md): nothing touches an
engine object, so a bot built on it sees exactly what the platform shows its seat.

Arschmallows
------------
- ``unseen(obs)``: the multiset (``Counter`` value -> copies) of the cards this seat has not
  seen: the full deck minus every value the observation shows (known row values of every seat,
  the discard pile, the held card). Its size is always the number of this seat's unknown row
  slots plus the draw pile's count, since every other card is shown.
- ``expected_unknown(obs)``: the mean of that multiset, the value of a card one cannot see.
- ``row_estimate(row, e)``: a row's total with each unknown card valued at ``e``.
- ``sample_world(obs, rng)`` -> ``Sim``: one determinization. Unknown row cards and the draw
  pile are dealt from ``unseen(obs)`` only (shuffled, without replacement), known cards are
  where the observation shows them. Opponents' own knowledge is not shown to us; each of their
  face-down cards is assumed known to them with a probability that grows with the turns played.
  With ``skew`` > 0 an opponent's unknown card is, with a probability growing with the turns
  played, the lower of two unseen cards (opponents keep the low cards they draw).
- ``Sim``: the rest of a round, the Arschmallows rulings (take / use / end, actions,
  get_rid, call, final turns, reshuffles, the turn limit) on card ids with per-seat knowledge,
  scored by the engine's own ``rules.score_round`` (caller doubling), about 25,000 turns a second in pure Python.
  ``Sim.rollout(rng)`` plays to the round's end with ``Sim.policy_step``, a cheap greedy
  player (swap when the card beats the worst known card or the expected unknown, spy own
  unknown cards, exchange a high known card away, refuse otherwise, and call by the
  heuristic's risk model).
- ``heuristic_decide(obs, risk, improve)``: the rules of the shipped ``heuristic`` bot (see
  ``bots/heuristic.py``), here so that the search bot can use them as its prior.
- ``candidate_actions(obs)``: the actions a search compares (``search``);
  ``PairedComparison`` weighs them on shared worlds (``ismcts``), ``RacingComparison``
  also stops rolling out those that cannot beat the prior (``belief``).
- ``Belief``: the belief tracker (``belief``), fed protocol-2 events: which hidden cards can be
  where (groups that hold exactly their values), what each seat has seen, what each opponent
  kept; ``belief_decide``, ``BeliefWorlds`` (``history``): the heuristic on its numbers, and
  determinizations drawn from it for a search (the ``belief`` bot).

Modules (continued): ``search`` (candidate actions), ``belief`` (the tracker), ``history``
(decisions and determinizations from the tracker).
"""

from mallows.games.arschmallows.botkit.counting import (
    ACTION_SET,
    DECK_MEAN,
    expected_unknown,
    face_down,
    row_estimate,
    unseen,
    variance_unknown,
)
from mallows.games.arschmallows.botkit.heuristic import (
    IMPROVE,
    RISK,
    TUNED_IMPROVE,
    TUNED_RISK,
    cheapest_to_lock,
    heuristic_decide,
    p_lowest,
)
from mallows.games.arschmallows.botkit.sim import Sim, sample_world
from mallows.games.arschmallows.botkit.search import (
    PairedComparison,
    RacingComparison,
    candidate_actions,
)
from mallows.games.arschmallows.botkit.belief import Belief, BeliefError, Card
from mallows.games.arschmallows.botkit.history import (
    BELIEF_IMPROVE,
    BELIEF_RISK,
    BeliefWorlds,
    belief_decide,
    belief_world,
    p_lowest_belief,
)

__all__ = [
    "ACTION_SET",
    "DECK_MEAN",
    "RISK",
    "IMPROVE",
    "TUNED_RISK",
    "TUNED_IMPROVE",
    "unseen",
    "expected_unknown",
    "variance_unknown",
    "row_estimate",
    "face_down",
    "Sim",
    "sample_world",
    "cheapest_to_lock",
    "p_lowest",
    "heuristic_decide",
    "candidate_actions",
    "Belief",
    "BeliefError",
    "Card",
    "BELIEF_RISK",
    "BELIEF_IMPROVE",
    "belief_decide",
    "belief_world",
    "BeliefWorlds",
    "p_lowest_belief",
    "PairedComparison",
    "RacingComparison",
]
