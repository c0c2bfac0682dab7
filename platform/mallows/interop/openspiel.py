"""The games as OpenSpiel Python games (``pip install 'mallows[openspiel]'``): importing this
module registers ``mallows_take4`` and ``mallows_arschmallows`` with ``pyspiel``.

    import pyspiel, mallows.interop.openspiel
    game = pyspiel.load_game("mallows_arschmallows(players=2,table_cards=4,rounds=1)")

Parameters: ``players`` (default 2); Take4 ``max_rounds``; Arschmallows ``table_cards``,
``rounds``, ``rules`` (``standard`` or ``supermallows``), ``max_turns_per_round`` and
``slots`` (the action space's row size, see ``mallows.games.arschmallows.encoding``).

How the games are put to OpenSpiel:

- **Sequential, imperfect information.** Take4's simultaneous picks are taken seat by seat,
  each seat seeing none of this round's earlier picks (they are applied to the engine when
  the last seat has picked), the way OpenSpiel turns a simultaneous game into a sequential
  one. Arschmallows' multi-slot actions are taken one slot per step (the game's encoder).
- **Explicit chance, drawn on demand.** The engine asks its chance for a shuffle or a choice
  whenever its rules need one (a deal, a reshuffle, a Take4 race). Here the engine's state is
  copied before each action; when the engine asks for a draw nobody has made yet, the copy is
  put back and the state becomes a chance node. A shuffle is drawn card by card (an outcome is
  a card kind, with probability its share of the cards left: Take4's 16 characters,
  Arschmallows' 14 values), a choice is one outcome (a race's winning seat, uniform); then the
  action is applied again with those draws. So OpenSpiel sees every chance event with its
  true probabilities, and the engine's rules are the only rules.
- **Observations** are the game's encoder vectors (the same as the PettingZoo environments
  and a trained bot) and the seat's card table in words. The information state string is the
  seat's own history: every observation it was shown at its decisions and what it chose.
- **Returns** are each seat's place mapped onto [-1, 1] (``mallows.interop.rewards``).

``resample_from_infostate(state, player, rng)`` draws a state the player cannot tell from
this one (the engine's ``hidden_variants``, and other seats' picks of the current Take4 round);
``ismcts_bot(game, ...)`` is OpenSpiel's ISMCTS bot using it.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import random
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as exc:  # pragma: no cover - the optional extra is missing
    raise ImportError(
        "mallows.interop.openspiel needs OpenSpiel: pip install 'mallows[openspiel]'"
    ) from exc

from mallows.errors import NeedChance
from mallows.games import get_game
from mallows.games.faces import Codec, interop_of
from mallows.games.take4.cards import CHARACTERS
from mallows.games.views import table_lines
from mallows.interop.rewards import place_reward

__all__ = [
    "NAMES",
    "ismcts_bot",
    "load",
    "resample_from_infostate",
    "take4_state_from_observation",
]

NAMES = {"take4": "mallows_take4", "arschmallows": "mallows_arschmallows"}


def short_name(game: str) -> str:
    """OpenSpiel's name of mallows game ``game``."""
    return NAMES.get(game, f"mallows_{game}")


class Need:
    """A chance node's draw, as plain data: ``kind`` ("shuffle" or "choice") and ``items``
    (the cards to shuffle, or the options to choose from)."""

    def __init__(self, kind: str, items: list):
        self.kind, self.items = kind, items


class OnDemandChance:
    """The engine's chance: serves the draws made so far for the action being applied, in
    order, and raises ``NeedChance`` for the next one."""

    def __init__(self) -> None:
        self.draws: list[Any] = []
        self.used = 0

    def _next(self, kind: str, items: Sequence) -> Any:
        if self.used < len(self.draws):
            value = self.draws[self.used]
            self.used += 1
            return value
        raise NeedChance(kind, items)

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:
        return list(self._next("shuffle", cards))

    def choice(self, stream: str, round_: int, options: Sequence, at: Any = None) -> Any:
        return self._next("choice", options)


def _game_type(game: str) -> Any:
    module = get_game(game)
    return pyspiel.GameType(
        short_name=short_name(game),
        long_name=f"mallows {game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=module.MAX_PLAYERS,
        min_num_players=module.MIN_PLAYERS,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(interop_of(game).openspiel_defaults()),
    )


class MallowsGame(pyspiel.Game):
    """A mallows game for OpenSpiel (see the module docstring)."""

    game_id = ""

    def __init__(self, params: dict | None = None):
        game = self.game_id
        face = interop_of(game)
        merged = dict(face.openspiel_defaults(), **(params or {}))
        self.players = int(merged["players"])
        self.module = get_game(game)
        self.options = self.module.make_options(merged.get("rules"), face.openspiel_options(merged))
        self.slots = int(merged.get("slots", 24))
        codec = face.codec(self.players, self.slots)
        #: chance outcome id -> what it draws: a card kind for a shuffle (a choice's outcome is
        #: the chosen option's index, e.g. a race's winning seat as its index among the options)
        self.kinds = tuple(face.chance_kinds())
        length = face.max_game_length(self.options, self.players, self.slots)
        info = pyspiel.GameInfo(
            num_distinct_actions=codec.actions,
            max_chance_outcomes=max(len(self.kinds), self.module.MAX_PLAYERS),
            num_players=self.players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=None,
            max_game_length=length,
        )
        super().__init__(_game_type(game), info, merged)
        self.codec_size = codec.size

    def new_initial_state(self) -> MallowsState:
        return MallowsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Observer:
        return Observer(self, iig_obs_type)


class Take4Game(MallowsGame):
    game_id = "take4"


class ArschmallowsGame(MallowsGame):
    game_id = "arschmallows"


class MallowsState(pyspiel.State):
    """One match: the engine's state, the draws of the chance node in progress, the picks of
    a Take4 round not yet applied, each seat's information state."""

    def __init__(self, game: MallowsGame):
        super().__init__(game)
        # plain data only: OpenSpiel clones a Python state with copy.deepcopy
        self.game_id = game.game_id
        self.players = game.players
        self.options = dict(game.options)
        self.codec = interop_of(self.game_id).codec(self.players, game.slots)
        self.kinds = game.kinds
        self.chance = OnDemandChance()
        self._engine: _Engine = _Engine(None)
        self.pending: tuple[int, dict] | None = None  # the action waiting for draws
        self.need: Need | None = None
        self.partial: list[Any] = []  # a shuffle being drawn
        self.buffer: dict[int, dict] = {}  # a Take4 round's picks so far
        self.info = [""] * self.players
        self._obs: dict[int, dict] = _Cache()
        self._run(None)

    # -- the engine, with chance on demand --------------------------------------------------

    def _run(self, pending: tuple[int, dict] | None) -> None:
        """Apply ``pending`` (None: make the new match) with the draws made so far; on a
        missing draw, put the engine back and wait at a chance node."""
        chance = self.chance
        chance.used = 0
        saved = None if self.engine is None else _copy(self.engine)
        try:
            if pending is None:
                self.engine = get_game(self.game_id).new_state(self.options, self.players, chance)
            else:
                self.engine.chance = chance  # both engines draw from ``self.chance``
                self.engine.apply(*pending)
        except NeedChance as need:
            self.engine = saved
            self.pending, self.need, self.partial = pending, Need(need.kind, need.items), []
            return
        chance.draws, chance.used = [], 0
        self.pending, self.need = None, None
        self._obs = _Cache()

    @property
    def engine(self) -> Any:
        return self._engine.state

    @engine.setter
    def engine(self, value: Any) -> None:
        self._engine = _Engine(value)

    def _observation(self, seat: int) -> dict:
        obs = self._obs.get(seat)
        if obs is None:
            obs = self._obs[seat] = self.engine.observation(seat)
        return obs

    def _started(self) -> bool:
        return self.engine is not None

    # -- OpenSpiel's interface ----------------------------------------------------------------

    def current_player(self) -> int:
        if self.need is not None:
            return pyspiel.PlayerId.CHANCE
        if self.engine.is_terminal():
            return pyspiel.PlayerId.TERMINAL
        for seat in self.engine.to_move():
            if seat not in self.buffer:
                return seat
        raise AssertionError("every seat to move has answered")  # pragma: no cover

    def _legal_actions(self, player: int) -> list[int]:
        mask = self.codec.mask(self._observation(player), player)
        return [int(i) for i in np.flatnonzero(mask)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        need = self.need
        assert need is not None
        if need.kind == "choice":
            p = 1.0 / len(need.items)
            return [(i, p) for i in range(len(need.items))]
        left = Counter(need.items)
        left.subtract(Counter(self.partial))
        total = sum(left.values())
        kinds = self.kinds
        return [
            (kinds.index(k), n / total)
            for k, n in sorted(left.items(), key=lambda kv: kinds.index(kv[0]))
            if n > 0
        ]

    def _apply_action(self, action: int) -> None:
        if self.need is not None:
            self._draw(int(action))
            return
        seat = self.current_player()
        obs = self._observation(seat)
        self.info[seat] = _chain(self.info[seat], obs, self.codec, seat, int(action))
        done = self.codec.take(obs, seat, int(action))
        if done is None:
            self._obs.pop(seat, None)  # the step in progress changes the vector
            return
        self.buffer[seat] = done
        if any(s not in self.buffer for s in self.engine.to_move()):
            return  # a Take4 round: the other seats pick before any pick is applied
        picks, self.buffer = self.buffer, {}
        for s in sorted(picks):
            if self.need is not None:  # pragma: no cover - the engine draws at the last pick
                raise AssertionError("chance before the round's last pick")
            self._run((s, picks[s]))

    def _draw(self, outcome: int) -> None:
        need = self.need
        assert need is not None
        if need.kind == "choice":
            self.chance.draws.append(need.items[outcome])
        else:
            self.partial.append(self.kinds[outcome])
            if len(self.partial) < len(need.items):
                return
            self.chance.draws.append(self.partial)
        pending, self.need = self.pending, None
        self._run(pending)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if self.need is not None and self.need.kind == "choice":
                return f"chance: {self.need.items[action]!r}"
            return f"chance: card {self.kinds[action]}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.need is None and self.engine.is_terminal()

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.players
        ranks = self.engine.result([None] * self.players)["ranks"]
        return [place_reward(ranks, s) for s in range(self.players)]

    def __str__(self) -> str:
        if self.engine is None:
            return "dealing"
        seat = self.current_player()
        seat = max(seat, 0)
        return "\n".join(table_lines(self._observation(seat)))


def _copy(state: Any) -> Any:
    """An engine state's copy (pickle: some twenty times faster than ``copy.deepcopy``)."""
    return pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL))


class _Cache(dict):
    """Observations built since the last action: not copied with the state."""

    def __deepcopy__(self, memo: dict) -> _Cache:
        return _Cache()


class _Engine:
    """The engine's state inside an OpenSpiel state, copied by pickle when OpenSpiel clones
    (the chance it holds is set again before each use)."""

    __slots__ = ("state",)

    def __init__(self, state: Any):
        self.state = state

    def __deepcopy__(self, memo: dict) -> _Engine:
        return _Engine(None if self.state is None else _copy(self.state))


def _chain(previous: str, obs: dict, codec: Codec, seat: int, action: int) -> str:
    """The next link of a seat's information state: what it saw and what it chose."""
    text = json.dumps({k: v for k, v in obs.items() if k != "options"}, sort_keys=True)
    pending = getattr(codec, "steps", None)
    step = [pending[seat].kind, pending[seat].chosen] if pending is not None else None
    digest = hashlib.blake2b(
        f"{previous}|{text}|{step}|{action}".encode(), digest_size=16
    ).hexdigest()
    return digest


class Observer:
    """OpenSpiel's observer: the encoder's vector as ``tensor``, the table as a string; with
    ``perfect_recall``, the seat's information state string."""

    def __init__(self, game: MallowsGame, iig_obs_type: Any):
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.tensor = np.zeros(game.codec_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MallowsState, player: int) -> None:
        if state.engine is None or state.need is not None and state.engine is None:
            self.tensor.fill(0)
            return
        self.tensor[:] = state.codec.vector(state._observation(player), player)

    def string_from(self, state: MallowsState, player: int) -> str:
        if state.engine is None:
            return "dealing"
        if self.perfect_recall:
            return f"seat {player} history {state.info[player]} now " + json.dumps(
                {k: v for k, v in state._observation(player).items() if k != "options"},
                sort_keys=True,
            )
        return "\n".join(table_lines(state._observation(player)))


def resample_from_infostate(
    state: MallowsState, player: int, rng: random.Random | None = None
) -> MallowsState:
    """A state ``player`` cannot tell from ``state``: the cards it has not seen dealt anew
    (the engine's ``hidden_variants``) and the current Take4 round's other picks redrawn."""
    rng = rng or random.Random()
    out = state.clone()
    variants_of = getattr(get_game(out.game_id), "hidden_variants", None)
    if out.engine is not None and out.need is None and variants_of is not None:
        variants = variants_of(out.engine, player, rng, 1)
        if variants:
            out.engine = variants[0]
            out._obs = _Cache()
    for seat in list(out.buffer):
        if seat != player:
            legal = out.engine.legal_actions(seat)
            out.buffer[seat] = dict(rng.choice(legal))
    return out


def take4_state_from_observation(
    game: Any, observation: dict, rng: random.Random | None = None
) -> MallowsState:
    """An OpenSpiel Take4 state consistent with a seat's protocol observation, at that seat's
    decision: the deck's unseen cards in a random order (the cards that came back to the
    bottom of the deck where they did), the recorded rounds played again through the engine
    (their picks and race winners), and this round's earlier seats' picks drawn at random
    (the seat cannot see them). What OpenSpiel's ISMCTS plays a mallows match from."""
    from mallows.games.take4.cards import DECK, POSITIONS

    rng = rng or random.Random()
    queue: list[Any] = [("deck", k) for k in range(len(DECK))]
    known: dict[int, str] = {}
    rounds = list(observation["history"]) + [{"positions": observation["positions"], "picks": None}]
    for entry in rounds:
        drawn, queue = queue[: len(POSITIONS)], queue[len(POSITIONS) :]
        for item, card in zip(drawn, entry["positions"]):
            if card is not None and isinstance(item, tuple):
                known[item[1]] = card
        if entry["picks"] is not None:
            queue += [
                card
                for p, card in enumerate(entry["positions"], 1)
                if card is not None and p not in entry["picks"]
            ]
    rest = Counter(DECK)
    rest.subtract(Counter(known.values()))
    unseen = list(rest.elements())
    rng.shuffle(unseen)
    deck = [known[k] if k in known else unseen.pop() for k in range(len(DECK))]
    state = game.new_initial_state()
    for card in deck:
        state.apply_action(CHARACTERS.index(card))
    for entry in observation["history"]:
        races = {r["position"]: r for r in entry["races"] or []}
        for position in entry["picks"]:  # seat by seat
            state.apply_action(position - 1)
        for position in sorted(races):  # the engine asks for the races in position order
            race = races[position]
            assert state.is_chance_node()
            state.apply_action(race["contenders"].index(race["winner"]))
    seat = int(observation["seat"])
    legal = [a["position"] for a in observation["legal_actions"]]
    for _ in range(seat):
        state.apply_action(rng.choice(legal) - 1)
    if state.current_player() != seat:
        raise ValueError(f"the observation of seat {seat} does not replay to its decision")
    return state


def ismcts_bot(game: Any, max_simulations: int = 200, seed: int = 0, uct_c: float = 2.0) -> Any:
    """OpenSpiel's ISMCTS bot (random rollouts) on a mallows game, resampling hidden
    information with ``resample_from_infostate``. It plays in OpenSpiel's own
    ``evaluate_bots`` too: it searches afresh at every step, so ``restart_at`` and
    ``inform_action`` (which OpenSpiel's ISMCTS does not implement) have nothing to do."""
    from open_spiel.python.algorithms import ismcts, mcts

    class _ISMCTSBot(ismcts.ISMCTSBot):
        def restart_at(self, state: Any) -> None:
            self.reset()

        def inform_action(self, state: Any, player_id: int, action: int) -> None:
            pass

        def inform_actions(self, state: Any, actions: Any) -> None:
            pass

    rng = np.random.RandomState(seed)
    bot = _ISMCTSBot(
        game,
        mcts.RandomRolloutEvaluator(1, rng),
        uct_c,
        max_simulations=max_simulations,
        random_state=rng,
    )
    py_rng = random.Random(seed)
    bot.set_resampler(lambda s, p: resample_from_infostate(s, p, py_rng))
    return bot


def load(game: str, **params: Any) -> Any:
    """``pyspiel.load_game`` of a mallows game with ``params``."""
    register(game)
    return pyspiel.load_game(short_name(game), {k: v for k, v in params.items()})


_REGISTERED: dict[str, type] = {"take4": Take4Game, "arschmallows": ArschmallowsGame}


def register(game: str) -> type:
    """Register mallows game ``game`` with ``pyspiel`` as ``mallows_<game>`` (once; the two
    shipped games are registered on import), from its codec face: ``MissingFace`` for a game
    without one. Returns its ``pyspiel.Game`` class."""
    interop_of(game)  # MissingFace before anything is registered
    cls = _REGISTERED.get(game)
    if cls is None:
        cls = _REGISTERED[game] = type(f"MallowsGame_{game}", (MallowsGame,), {"game_id": game})
    if short_name(game) not in pyspiel.registered_names():
        pyspiel.register_game(_game_type(game), cls)
    return cls


for _game in list(_REGISTERED):
    register(_game)
