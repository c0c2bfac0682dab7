"""Take4: one table test per ruling (the T-numbers cite the rulings of
platform/mallows/games/take4/RULES.md).

Scenarios are built with ``FixedChance``: a deck whose top cards the test chooses (the rest of
the 64 follow in a fixed order) and races decided by the test, every call logged.
"""

from collections import Counter

import pytest

from mallows.errors import GameConfigError, IllegalAction
from mallows.games import get_game
from mallows.games.take4 import rules
from mallows.games.take4.cards import DECK, SQUADS

take4 = get_game("take4")


class FixedChance:
    """A deck with the given top cards (rest in a fixed order) and races decided by ``race``:
    a dict position -> winner, or a callable (round, position, contenders) -> winner."""

    def __init__(self, top=(), race=None):
        rest = Counter(DECK)
        rest.subtract(top)
        assert min(rest.values()) >= 0, "the top asks for more than four copies of a character"
        self.deck = list(top)
        for card in DECK:
            if rest[card] > 0:
                rest[card] -= 1
                self.deck.append(card)
        assert sorted(self.deck) == sorted(DECK)
        self.races = race if race is not None else {}
        self.calls = []

    def shuffle(self, stream, round_, cards):
        assert stream == "deal", "take4 shuffles once, the deal"
        assert round_ == 0 and sorted(cards) == sorted(DECK)
        return list(self.deck)

    def choice(self, stream, round_, contenders, at=None):
        assert stream == "race"
        position = at
        self.calls.append((round_, position, list(contenders)))
        if callable(self.races):
            return self.races(round_, position, list(contenders))
        return self.races[position]


def new(players, chance, **overrides):
    return take4.new_state(take4.make_options(None, overrides), players, chance)


def play_round(state, picks):
    assert state.to_move() == tuple(range(state.players))
    for seat, position in enumerate(picks):
        state.apply(seat, {"type": "pick", "position": position})


def events_of(state, kind):
    return [e for e in state.events if e["type"] == kind]


# -- T1 / T2: the deck and the player count -------------------------------------------------


def test_T1_deck_is_16_characters_times_4_in_four_squads():
    assert len(DECK) == 64
    assert Counter(DECK) == {name: 4 for members in SQUADS.values() for name in members}
    assert {s: set(m) for s, m in SQUADS.items()} == {
        "Classic": {"Cam", "Winston", "Malcolm", "Lola"},
        "Fantasy": {"Tatiana", "Michaela", "Leonard", "Patty"},
        "Sealife": {"Archie", "Sheldon", "Stacy", "Gordon"},
        "Food": {"Maui", "Carl", "Chanel", "Floyd"},
    }


@pytest.mark.parametrize("players", [-1, 0, 1, 5, 6, True, "3"])
def test_T2_player_count_outside_2_to_4_is_a_config_error(players):
    with pytest.raises(GameConfigError, match="2 to 4 players"):
        take4.new_state(take4.make_options(), players, FixedChance())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_T2_two_to_four_players_start(players):
    state = take4.new_state(take4.make_options(), players, FixedChance())
    assert state.to_move() == tuple(range(players))
    assert len(state.collections) == players


# -- T3 / T4: one shuffle, positions from the top ---------------------------------------------


def test_T3_T4_one_deal_event_with_the_whole_deck_and_positions_from_the_top():
    top = ["Lola", "Gordon", "Maui", "Cam", "Patty", "Carl", "Stacy", "Leonard"]
    chance = FixedChance(top)
    state = new(2, chance)
    assert state.events == [{"type": "deal", "deck": chance.deck}]
    assert state.positions == top[:4]
    assert len(state.deck) == 60 and state.deck[:4] == top[4:]
    play_round(state, [1, 2])
    assert state.positions == top[4:8]
    assert len(events_of(state, "deal")) == 1


# -- T6: uncontested positions ----------------------------------------------------------------


def test_T6_uncontested_picks_take_their_cards_without_a_race():
    top = ["Cam", "Tatiana", "Archie", "Maui"]
    chance = FixedChance(top)
    state = new(4, chance)
    play_round(state, [4, 3, 2, 1])
    assert state.collections == [["Maui"], ["Archie"], ["Tatiana"], ["Cam"]]
    assert chance.calls == [] and events_of(state, "race") == []
    assert events_of(state, "picks") == [{"type": "picks", "round": 0, "picks": [4, 3, 2, 1]}]


# -- T7: contested positions ------------------------------------------------------------------


def test_T7_contested_position_is_raced_among_its_pickers_only():
    top = ["Cam", "Tatiana", "Archie", "Maui"]
    chance = FixedChance(top, race={2: 1})
    state = new(3, chance)
    play_round(state, [2, 2, 3])
    assert chance.calls == [(0, 2, [0, 1])]
    assert state.collections == [[], ["Tatiana"], ["Archie"]]
    assert events_of(state, "race") == [
        {"type": "race", "position": 2, "contenders": [0, 1], "winner": 1}
    ]
    # the race follows the round's picks in the record
    kinds = [e["type"] for e in state.events]
    assert kinds == ["deal", "picks", "race"]


def test_T7_several_contests_in_one_round_race_in_position_order():
    top = ["Cam", "Tatiana", "Archie", "Maui"]
    chance = FixedChance(top, race={1: 3, 3: 0})
    state = new(4, chance)
    play_round(state, [3, 1, 3, 1])
    assert chance.calls == [(0, 1, [1, 3]), (0, 3, [0, 2])]
    assert [(e["position"], e["contenders"], e["winner"]) for e in events_of(state, "race")] == [
        (1, [1, 3], 3),
        (3, [0, 2], 0),
    ]
    assert state.collections == [["Archie"], [], [], ["Cam"]]
    assert state.history[-1]["races"] == [
        {"position": 1, "contenders": [1, 3], "winner": 3},
        {"position": 3, "contenders": [0, 2], "winner": 0},
    ]


def test_T7_everyone_on_one_position():
    chance = FixedChance(["Cam", "Tatiana", "Archie", "Maui"], race={4: 2})
    state = new(4, chance)
    play_round(state, [4, 4, 4, 4])
    assert chance.calls == [(0, 4, [0, 1, 2, 3])]
    assert state.collections == [[], [], ["Maui"], []]


def test_T7_a_race_winner_outside_the_contenders_is_refused():
    with pytest.raises(ValueError, match="not one of its contenders"):
        rules.resolve(["Cam", "Lola", None, None], [1, 1, 2], lambda p, seats: 2)


# -- T8: leftovers to the bottom in position order -------------------------------------------


def test_T8_leftovers_go_to_the_bottom_in_position_order():
    top = ["Cam", "Tatiana", "Archie", "Maui", "Lola", "Patty", "Gordon", "Floyd"]
    chance = FixedChance(top)
    state = new(2, chance)
    play_round(state, [3, 2])  # positions 1 and 4 are left
    assert state.deck[-2:] == ["Cam", "Maui"]
    assert len(state.deck) == 64 - 4 - 4 + 2
    assert state.positions == top[4:]
    play_round(state, [4, 1])  # positions 2 and 3 are left
    assert state.deck[-4:] == ["Cam", "Maui", "Patty", "Gordon"]


def test_T8_leftovers_come_back_up_in_that_order_after_the_deck_cycles():
    # Two seats always contesting position 1: three leftovers a round, each round. After the
    # first 16 rounds the deck (64 - 16*4 = 0 fresh cards) serves the leftovers in order.
    chance = FixedChance(race=lambda r, p, seats: seats[r % 2])
    state = new(2, chance)
    leftovers = []
    for _ in range(16):
        leftovers += state.positions[1:]
        play_round(state, [1, 1])
    assert state.positions == leftovers[:4]


# -- T4 / T10: a short deck, the deck_empty ending -------------------------------------------


def _no_squad_owner():
    """Seat 0 collects the first three characters of every squad, seat 1 the fourth: 64 cards
    in two collections and nobody holds four different characters of one squad."""
    fourth = {members[3] for members in SQUADS.values()}
    return lambda card: 1 if card in fourth else 0


def _drain(state):
    """Both seats always pick position 1 until the game ends; returns the rounds played."""
    rounds = 0
    while not state.is_terminal():
        play_round(state, [1, 1])
        rounds += 1
    return rounds


def test_T4_T10_short_deck_fills_fewer_positions_and_empty_ones_cannot_be_picked():
    owner = _no_squad_owner()
    holder = {}
    chance = FixedChance(race=lambda r, p, seats: owner(holder["s"].positions[p - 1]))
    state = holder["s"] = new(2, chance)
    for _ in range(61):
        play_round(state, [1, 1])
    assert state.round == 61 and len(state.deck) == 0
    assert state.positions[:3] != [None] * 3 and state.positions[3] is None
    assert [a["position"] for a in state.legal_actions(0)] == [1, 2, 3]
    assert [a["position"] for a in state.observation(1)["legal_actions"]] == [1, 2, 3]
    with pytest.raises(IllegalAction, match="empty"):
        state.apply(0, {"type": "pick", "position": 4})
    assert state.to_move() == (0, 1)  # the refused pick changed nothing
    play_round(state, [1, 1])
    assert state.positions == [state.positions[0], state.positions[1], None, None]
    play_round(state, [1, 1])
    assert state.positions[1:] == [None, None, None]
    assert [a["position"] for a in state.legal_actions(1)] == [1]


def test_T10_deck_empty_ends_the_game_with_no_winner():
    owner = _no_squad_owner()
    holder = {}
    chance = FixedChance(race=lambda r, p, seats: owner(holder["s"].positions[p - 1]))
    state = holder["s"] = new(2, chance, max_rounds=64)  # both endings due: deck_empty first
    rounds = _drain(state)
    assert rounds == 64
    assert state.deck == [] and sum(map(len, state.collections)) == 64
    assert state.reason == "deck_empty"
    assert state.events[-1] == {"type": "game_end", "reason": "deck_empty", "winners": []}
    assert state.result([None, None]) == {
        "ranks": [0, 0],
        "winners": [],
        "collections": state.collections,
        "forfeits": [None, None],
    }


@pytest.mark.parametrize("max_rounds", [1, 3, 17])
def test_T10_round_limit_ends_after_max_rounds_rounds_without_a_winner(max_rounds):
    # Position 1 holds character r of the unshuffled deck in round r < 16 and the seats take it
    # in turn: a seat gets every third character, never more than two of one squad.
    chance = FixedChance(race=lambda r, p, seats: seats[r % 3])
    state = new(3, chance, max_rounds=max_rounds)
    for _ in range(max_rounds - 1):
        play_round(state, [1, 1, 1])
        assert not state.is_terminal()
    play_round(state, [1, 1, 1])
    assert state.is_terminal() and state.reason == "round_limit"
    assert len(events_of(state, "picks")) == max_rounds
    assert state.events[-1] == {"type": "game_end", "reason": "round_limit", "winners": []}
    assert state.result()["ranks"] == [0, 0, 0]
    assert state.to_move() == () and state.legal_actions(0) == []
    with pytest.raises(IllegalAction, match="over"):
        state.apply(0, {"type": "pick", "position": 1})


# -- T9: winning, shared wins ----------------------------------------------------------------


def _two_squads_deck():
    """Round r: seat 0's Classic character r at position 1, seat 1's Fantasy character r at 2,
    fillers for seats 2 and 3 (copies of one character each) at 3 and 4."""
    top = []
    for r in range(4):
        top += [SQUADS["Classic"][r], SQUADS["Fantasy"][r], "Archie", "Maui"]
    return top


def test_T9_completing_a_squad_ends_the_game_and_copies_do_not_count():
    # seat 0 gets Cam, Cam, Winston, Malcolm (no win: a copy), then Lola (win)
    top = [
        "Cam",
        "Archie",
        "Archie",
        "Archie",
        "Cam",
        "Archie",
        "Maui",
        "Maui",
        "Winston",
        "Sheldon",
        "Maui",
        "Maui",
        "Malcolm",
        "Sheldon",
        "Carl",
        "Carl",
        "Lola",
        "Sheldon",
        "Carl",
        "Carl",
    ]
    state = new(2, FixedChance(top))
    for r in range(4):
        play_round(state, [1, 2])
        assert not state.is_terminal(), f"round {r}"
    assert state.collections[0] == ["Cam", "Cam", "Winston", "Malcolm"]
    play_round(state, [1, 2])
    assert state.is_terminal() and state.reason == "squad" and state.winners == [0]
    assert state.events[-1] == {"type": "game_end", "reason": "squad", "winners": [0]}
    assert state.result()["ranks"] == [0, 1]


def test_T9_T12_simultaneous_completions_share_the_win():
    state = new(4, FixedChance(_two_squads_deck()))
    for _ in range(3):
        play_round(state, [1, 2, 3, 4])
        assert not state.is_terminal()
    play_round(state, [1, 2, 3, 4])
    assert state.winners == [0, 1]
    assert state.events[-1] == {"type": "game_end", "reason": "squad", "winners": [0, 1]}
    result = state.result([None] * 4)
    assert result["winners"] == [0, 1]
    assert result["ranks"] == [0, 0, 2, 2]  # everyone else: rank = number of winners


# -- T12: ranks, progress, forfeits -----------------------------------------------------------

C, F, S, D = (SQUADS[k] for k in ("Classic", "Fantasy", "Sealife", "Food"))
WIN = list(C)


@pytest.mark.parametrize(
    "winners, collections, forfeits, by_progress, expected",
    [
        # one winner, everyone else shares rank 1
        ([0], [WIN, [F[0]], [S[0], S[1]], []], [None] * 4, False, [0, 1, 1, 1]),
        # no winner: everyone shares first place
        ([], [[C[0]], [F[0], F[1]], []], [None] * 3, False, [0, 0, 0]),
        # progress: best squad's distinct count first, then total distinct count, more is better
        (
            [0],
            [
                WIN,
                [C[0], C[1], C[2], F[0], F[1]],
                [C[0], C[1], C[2], F[0], F[1], S[0], S[1]],
                [C[0], C[1], F[0], F[1], S[0], S[1], D[0], D[1]],
            ],
            [None] * 4,
            True,
            [0, 2, 1, 3],
        ),
        # progress: copies do not count; equal progress shares a place
        ([], [[C[0], C[0], C[0]], [F[2]], [S[0], S[1]]], [None] * 3, True, [1, 1, 0]),
        # progress off: the same collections share first place
        ([], [[C[0], C[0], C[0]], [F[2]], [S[0], S[1]]], [None] * 3, False, [0, 0, 0]),
        # a forfeited loser ranks below everyone
        ([0], [WIN, [], [], []], [None, "crashed", None, None], False, [0, 3, 1, 1]),
        # a forfeited winner ranks below everyone and is not counted in 'rank = number of winners'
        ([0, 1], [WIN, list(F), [], []], ["timeout", None, None, None], False, [3, 0, 1, 1]),
        # the only winner forfeited: the rest share first place
        ([2], [[], [], list(S)], [None, None, "illegal"], False, [0, 0, 2]),
        # forfeited seats tie among themselves, whatever their progress
        ([], [[C[0], C[1]], [], [F[0]]], ["a", "b", None], True, [1, 1, 0]),
    ],
)
def test_T12_ranks(winners, collections, forfeits, by_progress, expected):
    assert rules.ranks(winners, collections, forfeits, by_progress) == expected


@pytest.mark.parametrize("by_progress, expected", [("true", [0, 1, 3, 2]), ("false", [0, 1, 1, 1])])
def test_T12_progress_option_reaches_the_result_of_a_played_match(by_progress, expected):
    state = new(
        4,
        FixedChance(_two_squads_deck()[:12] + ["Lola", "Stacy", "Archie", "Carl"]),
        rank_losers_by_progress=by_progress,
    )
    for _ in range(4):
        play_round(state, [1, 2, 3, 4])
    # seat 0 completes Classic; seat 1 holds 3 Fantasy + Stacy; seats 2 and 3 hold one
    # character (four Archie) and two (three Maui and a Carl)
    assert state.winners == [0]
    assert state.result([None] * 4)["ranks"] == expected


def test_T10_T12_options_are_read_once_so_a_bot_mutating_them_changes_nothing():
    state = new(2, FixedChance(race=lambda r, p, seats: seats[r % 2]), max_rounds=3)
    state.options["max_rounds"] = 1  # what a bot could do to the dict the runner hands it
    state.options["rank_losers_by_progress"] = True
    play_round(state, [1, 1])
    assert not state.is_terminal()
    play_round(state, [1, 1])
    play_round(state, [1, 1])
    assert state.reason == "round_limit" and state.result()["ranks"] == [0, 0]


# -- T5 / T11: picks, observations --------------------------------------------------------------


@pytest.mark.parametrize(
    "action, message",
    [
        (None, "dict"),
        ("pick 1", "dict"),
        ({"type": "draw"}, "pick"),
        ({"type": "pick"}, "integer"),
        ({"type": "pick", "position": "1"}, "integer"),
        ({"type": "pick", "position": 1.0}, "integer"),
        ({"type": "pick", "position": True}, "integer"),
        ({"type": "pick", "position": 0}, "does not exist"),
        ({"type": "pick", "position": 5}, "does not exist"),
        ({"type": "pick", "position": 1, "extra": 2}, "keys"),
    ],
)
def test_T5_malformed_picks_are_illegal_and_change_nothing(action, message):
    state = new(2, FixedChance())
    before = (state.observation(0), list(state.events))
    with pytest.raises(IllegalAction, match=message):
        state.apply(0, action)
    assert (state.observation(0), state.events) == before
    assert state.to_move() == (0, 1)


def test_T5_a_seat_picks_once_a_round():
    state = new(3, FixedChance())
    state.apply(1, {"type": "pick", "position": 2})
    assert state.to_move() == (0, 2)
    with pytest.raises(IllegalAction, match="already picked"):
        state.apply(1, {"type": "pick", "position": 3})
    with pytest.raises(IllegalAction, match="no seat"):
        state.apply(3, {"type": "pick", "position": 3})


def test_T5_T11_a_pending_pick_shows_nowhere():
    state = new(3, FixedChance())
    before = [state.observation(s) for s in range(3)]
    state.apply(0, {"type": "pick", "position": 4})
    state.apply(2, {"type": "pick", "position": 1})
    assert state.observation(1) == before[1]
    assert state.events == [e for e in state.events if e["type"] == "deal"]


def test_T11_observation_keys_and_public_state():
    top = ["Cam", "Tatiana", "Archie", "Maui", "Lola", "Patty", "Gordon", "Floyd"]
    state = new(3, FixedChance(top, race={1: 1}), max_rounds=50)
    play_round(state, [1, 1, 4])
    assert state.observation(2) == {
        "protocol": 1,
        "game": "take4",
        "options": {"max_rounds": 50, "rank_losers_by_progress": False},
        "seat": 2,
        "players": 3,
        "phase": "pick",
        "legal_actions": [{"type": "pick", "position": k} for k in (1, 2, 3, 4)],
        "round": 1,
        "positions": top[4:8],
        "collections": [[], ["Cam"], ["Maui"]],
        "deck": 64 - 8 + 2,
        "history": [
            {
                "round": 0,
                "positions": top[:4],
                "picks": [1, 1, 4],
                "races": [{"position": 1, "contenders": [0, 1], "winner": 1}],
            }
        ],
        "squads": {k: list(v) for k, v in SQUADS.items()},
    }


def test_T11_observations_are_fresh_objects():
    state = new(2, FixedChance(race={1: 0}))
    play_round(state, [1, 1])
    obs = state.observation(0)
    obs["positions"][0] = "Benny"
    obs["collections"][0].append("Benny")
    obs["history"][0]["picks"][0] = 9
    obs["history"][0]["races"][0]["contenders"].append(7)
    obs["legal_actions"][0]["position"] = 9
    obs["options"]["max_rounds"] = 1
    assert state.observation(0) != obs
    assert state.observation(1) == dict(state.observation(0), seat=1)
    assert "Benny" not in state.positions and state.collections[0] == [
        state.history[0]["positions"][0]
    ]
