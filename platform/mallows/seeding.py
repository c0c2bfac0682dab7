"""Every random stream of a match, derived from the match's one integer seed.

Streams are numpy ``SeedSequence`` children addressed by a fixed spawn key, so a stream depends
only on (seed, purpose, index) and never on what happened earlier in the match:

- ``stream_rng(seed, name, r)``: a game's chance stream ``name`` in round r (see
  ``mallows.games.base.SeededChance``). The names ``"deal"``, ``"reshuffle"`` and ``"race"``
  keep the spawn keys they have had since record v1 (0, 1 and 2 followed by the round), so the
  same seed still deals the same cards. Any other name gets the key ``(5, *its UTF-8 bytes, r)``:
  stable, and distinct from every other name's and from the fixed keys, so a new game names its
  own streams without a change here.
- ``bot_seed(seed, seat)``: the integer seed handed to the bot in that seat (key 3).
- ``fallback_seed(seed, seat)``: the random policy that plays for a seat after it forfeits (key 4).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

# numpy is imported when a stream or seed is first derived, not with this module: the games'
# packages (and so a bot process that imports only a game's random policy) stay free of it.
_numpy = None


def _np():
    global _numpy
    if _numpy is None:
        import numpy
        _numpy = numpy
    return _numpy

_DEAL, _RESHUFFLE, _RACE, _BOT, _FALLBACK, _NAMED = range(6)
#: chance streams whose spawn keys predate named streams (record v1): name -> key prefix
FIXED_STREAMS = {"deal": _DEAL, "reshuffle": _RESHUFFLE, "race": _RACE}
STREAM_NAME = re.compile(r"[a-z][a-z0-9_]{0,39}")


def _stream(seed: int, *key: int) -> np.random.Generator:
    random = _np().random
    return random.Generator(random.PCG64(random.SeedSequence(seed, spawn_key=key)))


def stream_key(name: str, round_: int) -> tuple[int, ...]:
    """The spawn key of chance stream ``name`` in round ``round_``. ``ValueError`` for a name
    that is not lower-case letters, digits and ``_`` (1 to 40, a letter first) or a negative
    round."""
    if not isinstance(name, str) or not STREAM_NAME.fullmatch(name):
        raise ValueError(f"chance stream name {name!r}: use lower-case letters, digits and _, "
                         f"a letter first, at most 40 characters (e.g. \"deal\")")
    if isinstance(round_, bool) or not isinstance(round_, int) or round_ < 0:
        raise ValueError(f"chance stream {name!r}: the round is a whole number >= 0, "
                         f"not {round_!r}")
    fixed = FIXED_STREAMS.get(name)
    if fixed is not None:
        return (fixed, round_)
    return (_NAMED, *name.encode(), round_)


def stream_rng(seed: int, name: str, round_: int) -> np.random.Generator:
    """A fresh generator for chance stream ``name`` of round ``round_`` of match ``seed``."""
    return _stream(seed, *stream_key(name, round_))


def _int_seed(seq: np.random.SeedSequence) -> int:
    """A non-negative integer below 2**53: exact in JSON, in JavaScript and in every language."""
    hi, lo = (int(x) for x in seq.generate_state(2, _np().uint32))
    return ((hi & 0x1FFFFF) << 32) | lo


def bot_seed(seed: int, seat: int) -> int:
    """The integer seed handed to the bot in ``seat`` (derived from the match seed and the seat)."""
    return _int_seed(_np().random.SeedSequence(seed, spawn_key=(_BOT, seat)))


def fallback_seed(seed: int, seat: int) -> int:
    """The seed of the random policy that plays a seat's decisions after it forfeits."""
    return _int_seed(_np().random.SeedSequence(seed, spawn_key=(_FALLBACK, seat)))


def child_seed(seed: int, index: int) -> int:
    """Match seed number ``index`` of a tournament: depends only on (tournament seed, index)."""
    return _int_seed(_np().random.SeedSequence(seed, spawn_key=(index,)))


MAX_SEED = 2**63 - 1


def check_seed(seed: int, where: str = "--seed") -> int:
    """One rule for every seed a user gives (command line or file): a whole number from 0 to
    ``MAX_SEED``; a negative one is refused, never folded into another."""
    from mallows.errors import MallowsError

    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        example = "--seed 7" if where.startswith("-") else f"{where} = 7"
        raise MallowsError(f"{where} must be a whole number from 0 to {MAX_SEED} (seeds are "
                           f"never negative), got {seed!r}: for example {example}")
    return seed
