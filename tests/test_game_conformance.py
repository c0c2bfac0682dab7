"""Every registered game keeps the game contract (``mallows.testing.check_game``): random play
to the end in every rule set and player count, determinism by seed, replay from the record,
observation purity and hidden information, every legal action accepted, bad answers refused
without a change of state. Parametrised over the registry: a new game is checked here with no
edit. Each game's own property and rules tests (test_<game>_*.py) go further."""

import pytest
from hypothesis import given, settings, strategies as st

from mallows.games import game_ids
from mallows.testing import check_game


@pytest.mark.parametrize("game_id", game_ids())
@settings(max_examples=2, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_every_registered_game_keeps_the_contract(game_id, seed):
    assert check_game(game_id, seeds=(seed,), sample_every=15) > 0
