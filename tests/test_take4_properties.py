"""Take4 properties (hypothesis), through the state machine and through the real runner:
64 cards accounted for every round, identical records for identical seeds, every match ends,
picks are simultaneous (no seat ever sees a pick of the round it is deciding), every seat's
observation of a round is the same apart from ``seat``, and a record replays without its seed.
Also the forfeit path: where the event stands and how the seat ranks.
"""

import json
import random
from collections import Counter

from hypothesis import HealthCheck, given, settings, strategies as st

from mallows.agents.protocol import InProcessBot, Limits
from mallows.games import get_game
from mallows.games.base import ReplayChance, SeededChance
from mallows.games.take4.cards import DECK
from mallows.agents.policy import random_action
from mallows.agents.registry import load_bot
from mallows.runner.match import play_match

take4 = get_game("take4")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LIMITS = Limits(decision_seconds=30.0, match_seconds=1e9)

seeds = st.integers(0, 2**63 - 1)
player_counts = st.integers(2, 4)
# policies a seat can follow: uniform random, always the first or last filled position, greedy
policies = st.sampled_from(["random", "first", "last", "greedy"])


class PolicyBot:
    """A test bot that records every observation it is given."""

    def __init__(self, policy: str):
        self.policy = policy
        self.seen: list[dict] = []
        self.rng = random.Random(0)
        self.greedy = load_bot("greedy").cls() if policy == "greedy" else None

    def match_start(self, info):
        self.rng = random.Random(info["seed"])
        if self.greedy:
            self.greedy.match_start(info)

    def act(self, observation):
        self.seen.append(json.loads(json.dumps(observation)))  # JSON-compatible, and a snapshot
        legal = observation["legal_actions"]
        if self.policy == "first":
            return legal[0]
        if self.policy == "last":
            return legal[-1]
        if self.policy == "greedy":
            return self.greedy.act(observation)
        return random_action(observation, self.rng)


def run(seed, kinds, options=None):
    bots = [PolicyBot(k) for k in kinds]
    handles = [InProcessBot(b, f"{k}{i}", LIMITS) for i, (b, k) in enumerate(zip(bots, kinds))]
    record = play_match("take4", take4.make_options(None, options or {}), seed, handles)
    return record, bots


def accounted(state) -> Counter:
    cards = list(state.deck) + [c for c in state.positions if c is not None]
    for held in state.collections:
        cards += held
    return Counter(cards)


@SETTINGS
@given(seeds, player_counts, st.data())
def test_64_cards_accounted_for_every_round(seed, players, data):
    state = take4.new_state(take4.make_options(), players, SeededChance(seed))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    rounds = 0
    while not state.is_terminal():
        assert accounted(state) == Counter(DECK)
        observation = state.observation(0)
        assert (
            observation["deck"]
            + sum(c is not None for c in observation["positions"])
            + sum(map(len, observation["collections"]))
            == 64
        )
        for seat in state.to_move():
            state.apply(seat, rng.choice(state.legal_actions(seat)))
        rounds += 1
    assert accounted(state) == Counter(DECK)
    assert rounds <= 64  # at least one card is collected every round


@SETTINGS
@given(seeds, st.lists(policies, min_size=2, max_size=4))
def test_identical_seed_identical_record_and_every_match_ends(seed, kinds):
    first, _ = run(seed, kinds)
    second, _ = run(seed, kinds)
    assert json.dumps(first) == json.dumps(second)
    events = first["events"]
    assert events[0]["type"] == "deal" and len(events[0]["deck"]) == 64
    assert sum(e["type"] == "deal" for e in events) == 1
    end = events[-1]
    assert end["type"] == "game_end" and end["reason"] in ("squad", "deck_empty", "round_limit")
    assert end["winners"] == first["result"]["winners"]
    assert (end["reason"] == "squad") == bool(end["winners"])
    assert 1 <= sum(e["type"] == "picks" for e in events) <= 64


@SETTINGS
@given(seeds, st.lists(policies, min_size=2, max_size=4), st.integers(1, 30))
def test_the_deal_depends_only_on_the_seed(seed, kinds, max_rounds):
    a, _ = run(seed, kinds, {"max_rounds": max_rounds})
    b, _ = run(seed, list(reversed(kinds)) + ["random"] * (len(kinds) < 4))
    assert a["events"][0] == b["events"][0]


@SETTINGS
@given(seeds, st.lists(policies, min_size=2, max_size=4))
def test_picks_are_simultaneous_and_observations_identical_but_for_seat(seed, kinds):
    record, bots = run(seed, kinds)
    picks = [e for e in record["events"] if e["type"] == "picks"]
    for seat, bot in enumerate(bots):
        assert len(bot.seen) == len(picks)  # one decision per round
        for r, obs in enumerate(bot.seen):
            assert obs["round"] == r and obs["seat"] == seat and obs["phase"] == "pick"
            # only earlier rounds are visible, exactly as they were played
            assert [h["round"] for h in obs["history"]] == list(range(r))
            assert [h["picks"] for h in obs["history"]] == [p["picks"] for p in picks[:r]]
    for r in range(len(picks)):
        shown = [dict(bot.seen[r], seat=None) for bot in bots]
        assert all(o == shown[0] for o in shown), f"round {r}: observations differ"


@SETTINGS
@given(seeds, player_counts, st.randoms(use_true_random=False))
def test_no_observation_depends_on_a_pick_already_made_this_round(seed, players, rng):
    """Stricter than the runner needs: even asked *after* other seats have answered (in any
    order), a seat's observation is the one it had before anyone answered."""
    state = take4.new_state(take4.make_options(), players, SeededChance(seed))
    while not state.is_terminal():
        before = {s: state.observation(s) for s in state.to_move()}
        order = list(state.to_move())
        rng.shuffle(order)
        for seat in order:
            assert state.observation(seat) == before[seat]
            state.apply(seat, rng.choice(before[seat]["legal_actions"]))


@SETTINGS
@given(seeds, st.lists(policies, min_size=2, max_size=4), st.booleans(), st.integers(1, 70))
def test_a_record_replays_without_its_seed(seed, kinds, by_progress, max_rounds):
    record, _ = run(seed, kinds, {"rank_losers_by_progress": by_progress, "max_rounds": max_rounds})
    record = json.loads(json.dumps(record))  # as read back from a file
    state = take4.replay(record)
    assert state.is_terminal()
    assert state.result(record["result"]["forfeits"]) == record["result"]
    assert state.events == record["events"]
    # and by hand, from the events alone: ReplayChance + the picks
    by_hand = take4.new_state(
        record["options"], len(kinds), ReplayChance(record["events"], take4.CHANCE_EVENTS)
    )
    for event in record["events"]:
        if event["type"] == "picks":
            for seat, position in enumerate(event["picks"]):
                by_hand.apply(seat, {"type": "pick", "position": position})
    assert by_hand.result(record["result"]["forfeits"]) == record["result"]


@SETTINGS
@given(seeds, st.integers(2, 4), st.data())
def test_race_winners_come_from_the_seeds_race_stream(seed, players, data):
    record, _ = run(seed, ["first"] * players)  # everyone on position 1: a race every round
    races = [e for e in record["events"] if e["type"] == "race"]
    picks = [e for e in record["events"] if e["type"] == "picks"]
    assert len(races) == len(picks)
    chance = SeededChance(seed)
    for p, race in zip(picks, races):
        assert race["position"] == 1 and race["contenders"] == list(range(players))
        assert race["winner"] == chance.choice("race", p["round"], list(range(players)))


class CrashOnSecond:
    def __init__(self):
        self.n = 0

    def act(self, observation):
        self.n += 1
        if self.n == 2:
            raise RuntimeError("boom")
        return observation["legal_actions"][0]


class AnswersGarbage:
    def act(self, observation):
        return {"type": "pick", "position": 7}


def test_forfeits_stand_where_the_decision_failed_and_rank_below_everyone():
    for seed in range(20):
        handles = [
            InProcessBot(CrashOnSecond(), "crash", LIMITS),
            InProcessBot(PolicyBot("random"), "r1", LIMITS),
            InProcessBot(AnswersGarbage(), "garbage", LIMITS),
        ]
        record = play_match("take4", take4.make_options(), seed, handles)
        kinds = [e["type"] for e in record["events"]]
        forfeits = [e for e in record["events"] if e["type"] == "forfeit"]
        # seat 2 fails in round 0 (before round 0's picks); seat 0 in round 1, if there is one
        assert forfeits[0]["seat"] == 2 and "illegal" in forfeits[0]["reason"]
        assert kinds.index("forfeit") < kinds.index("picks")
        rounds = kinds.count("picks")
        if rounds >= 2:
            assert forfeits[1]["seat"] == 0 and "boom" in forfeits[1]["reason"]
            picks_at = [i for i, k in enumerate(kinds) if k == "picks"]
            assert picks_at[0] < kinds.index("forfeit", kinds.index("forfeit") + 1) < picks_at[1]
        result = record["result"]
        assert result["forfeits"][2] == forfeits[0]["reason"]
        assert result["forfeits"][1] is None
        failed = [s for s in range(3) if result["forfeits"][s]]
        assert all(result["ranks"][s] > result["ranks"][1] for s in failed)
        assert all(result["ranks"][s] == len(handles) - len(failed) for s in failed)
        assert take4.replay(record).result(result["forfeits"]) == result
