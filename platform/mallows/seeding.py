"""Every random stream of a match, derived from the match's one integer seed.

Streams are numpy ``SeedSequence`` children addressed by a fixed spawn key, so a stream depends
only on (seed, purpose, index) and never on what happened earlier in the match:

- ``deal_rng(seed, r)``: round r's deal. The same seed deals the same cards whichever bots play.
- ``reshuffle_rng(seed, r)``: the reshuffles of round r, drawn in order from one stream.
- ``race_rng(seed, r)``: the Benny races of Take4 round r, in position order.
- ``bot_seed(seed, seat)``: the integer seed handed to the bot in that seat.
- ``fallback_seed(seed, seat)``: the random policy that plays for a seat after it forfeits.
"""

from __future__ import annotations

import numpy as np

_DEAL, _RESHUFFLE, _RACE, _BOT, _FALLBACK = range(5)


def _stream(seed: int, *key: int) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


def deal_rng(seed: int, round_: int) -> np.random.Generator:
    return _stream(seed, _DEAL, round_)


def reshuffle_rng(seed: int, round_: int) -> np.random.Generator:
    return _stream(seed, _RESHUFFLE, round_)


def race_rng(seed: int, round_: int) -> np.random.Generator:
    return _stream(seed, _RACE, round_)


def _int_seed(seq: np.random.SeedSequence) -> int:
    """A non-negative integer below 2**53: exact in JSON, in JavaScript and in every language."""
    hi, lo = (int(x) for x in seq.generate_state(2, np.uint32))
    return ((hi & 0x1FFFFF) << 32) | lo


def bot_seed(seed: int, seat: int) -> int:
    """The integer seed handed to the bot in ``seat`` (derived from the match seed and the seat)."""
    return _int_seed(np.random.SeedSequence(seed, spawn_key=(_BOT, seat)))


def fallback_seed(seed: int, seat: int) -> int:
    """The seed of the random policy that plays a seat's decisions after it forfeits."""
    return _int_seed(np.random.SeedSequence(seed, spawn_key=(_FALLBACK, seat)))


def child_seed(seed: int, index: int) -> int:
    """Match seed number ``index`` of a tournament: depends only on (tournament seed, index)."""
    return _int_seed(np.random.SeedSequence(seed, spawn_key=(index,)))
