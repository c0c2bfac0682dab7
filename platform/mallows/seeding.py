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

Those two are derivation 1: public functions of the match seed, which a bot can invert by
search. ``Chance`` (below) is how a match derives them now: derivation 2 keys the bots' and the
fallback's seeds, ``play``'s match seeds and (``secret = true``) a tournament's match seeds with
a secret key the bots never see (``keyed``: BLAKE2b with the key); ``Chance()`` is derivation 1,
which tournaments stored before it resume with. ``fresh_seed``/``fresh_key`` come from the
operating system; ``commitment`` is what an organiser publishes before revealing a key;
``local_key`` is this user's key for ``mallows play --seed`` and repeated checks.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

# numpy and the compiled core (``mallows.core``: ctypes, pathlib) are imported when a stream or
# seed is first derived, not with this module: the games' packages (and so a bot process that
# imports only a game's random policy) stay free of them, about 6 ms of every bot's start.
_numpy = None


def _np() -> Any:
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
        raise ValueError(
            f"chance stream name {name!r}: use lower-case letters, digits and _, "
            f'a letter first, at most 40 characters (e.g. "deal")'
        )
    if isinstance(round_, bool) or not isinstance(round_, int) or round_ < 0:
        raise ValueError(
            f"chance stream {name!r}: the round is a whole number >= 0, not {round_!r}"
        )
    fixed = FIXED_STREAMS.get(name)
    if fixed is not None:
        return (fixed, round_)
    return (_NAMED, *name.encode(), round_)


def stream_rng(seed: int, name: str, round_: int) -> np.random.Generator:
    """A fresh generator for chance stream ``name`` of round ``round_`` of match ``seed``."""
    return _stream(seed, *stream_key(name, round_))


def stream_draws(seed: int, name: str, round_: int) -> Any:
    """``stream_rng``'s draws ``permutation(n)`` and ``integers(n)``, the same numbers: from
    the compiled core where there is one (``mallows.core.CoreRng``, without numpy's set-up
    cost of a new stream, about 30 us), else from numpy's generator itself."""
    from mallows import core

    key = stream_key(name, round_)
    lib = core.lib()
    if lib is not None and 0 <= seed < 2**64:
        return core.CoreRng(seed, key, core=lib)
    return _stream(seed, *key)


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
        raise MallowsError(
            f"{where} must be a whole number from 0 to {MAX_SEED} (seeds are "
            f"never negative), got {seed!r}: for example {example}"
        )
    return seed


# -- secret chance (derivation 2) ----------------------------------------------------------------
#
# Derivation 1 (above, every tournament stored before it existed) derives a bot's seed, the
# fallback policy's and the match seeds from public numbers only: whoever knows a tournament's
# seed (it is in the file) can compute every deal, and a bot can find its match seed from its
# own seed by trying small tournament seeds and schedule places. Derivation 2 keys every hidden
# number with a secret the bots never see: ``keyed(key, purpose, *numbers)`` is BLAKE2b with
# that key, the purpose as its personalisation, the numbers as fixed-width big-endian integers.

LEGACY, KEYED = 1, 2
DERIVATIONS = (LEGACY, KEYED)
KEY_BYTES = 32
_SEED_MASK = (1 << 53) - 1  # the same range as ``_int_seed``: exact in JSON and JavaScript


def keyed(key: bytes, purpose: bytes, *numbers: int) -> int:
    """A non-negative integer below 2**53 that only someone holding ``key`` can compute from
    ``numbers`` (which must be whole numbers from 0 to 2**64 - 1)."""
    import hashlib

    data = b"".join(int(n).to_bytes(8, "big") for n in numbers)
    digest = hashlib.blake2b(data, digest_size=8, key=key, person=purpose[:16])
    return int.from_bytes(digest.digest(), "big") & _SEED_MASK


def fresh_key() -> bytes:
    """A new secret key from the operating system's random source."""
    import os

    return os.urandom(KEY_BYTES)


def fresh_seed() -> int:
    """A new seed from the operating system's random source (0 to 2**53 - 1: shown, stored
    and written in JSON exactly)."""
    import secrets

    return secrets.randbits(53)


def commitment(key: bytes) -> str:
    """What an organiser may publish before a tournament: the key's SHA-256, which fixes the
    key without revealing it (``verify_key`` checks a revealed key against it)."""
    import hashlib

    return "sha256:" + hashlib.sha256(b"mallows chance key\0" + key).hexdigest()


def verify_key(key: bytes, published: str) -> bool:
    import hmac

    return hmac.compare_digest(commitment(key), published)


class Chance:
    """How a match's hidden numbers derive from its seed: the bots' seeds, the fallback
    policy's and (``secret_deals``) the match seeds of a schedule.

    ``Chance()`` is derivation 1 (no key: what every stored tournament before derivation 2
    replays with); ``Chance(KEYED, key)`` keys the bots' and the fallback's seeds, and with
    ``secret_deals`` the deals too (``match_seed``). The key never appears in ``repr``."""

    __slots__ = ("derivation", "key", "secret_deals")

    def __init__(self, derivation: int = LEGACY, key: bytes = b"", secret_deals: bool = False):
        if derivation not in DERIVATIONS:
            raise ValueError(
                f"unknown seed derivation {derivation!r}: this version knows "
                f"{', '.join(map(str, DERIVATIONS))} (a newer mallows made it?)"
            )
        if derivation == KEYED and len(key) < 16:
            raise ValueError("derivation 2 needs a secret key of at least 16 bytes")
        if secret_deals and derivation != KEYED:
            raise ValueError("secret deals need derivation 2 (a key)")
        self.derivation, self.key, self.secret_deals = derivation, bytes(key), secret_deals

    def __repr__(self) -> str:
        return (
            f"Chance(derivation={self.derivation}"
            + (", key=<secret>" if self.key else "")
            + (", secret_deals=True" if self.secret_deals else "")
            + ")"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chance) and (self.derivation, self.key, self.secret_deals) == (
            other.derivation,
            other.key,
            other.secret_deals,
        )

    def __hash__(self) -> int:
        return hash((self.derivation, self.key, self.secret_deals))

    def __reduce__(
        self,
    ) -> tuple[
        type[Chance], tuple[int, bytes, bool]
    ]:  # shipped to workers (a process pool, a Ray cluster) with its key
        return (Chance, (self.derivation, self.key, self.secret_deals))

    def bot_seed(self, seed: int, seat: int) -> int:
        if self.derivation == LEGACY:
            return bot_seed(seed, seat)
        return keyed(self.key, b"mallows bot", seed, seat)

    def fallback_seed(self, seed: int, seat: int) -> int:
        if self.derivation == LEGACY:
            return fallback_seed(seed, seat)
        return keyed(self.key, b"mallows fallback", seed, seat)

    def match_seed(self, seed: int, place: int) -> int:
        """With ``secret_deals``: the seed of the deal at schedule ``place`` of a tournament
        of seed ``seed``, which only the key's holder can compute (and one match's seed says
        nothing about another's). Without: ``child_seed(seed, place)``, public."""
        if not self.secret_deals:
            return child_seed(seed, place)
        return keyed(self.key, b"mallows deal", seed, place)

    def play_seed(self, seed: int) -> int:
        """The match seed of ``mallows play --seed S`` and of a check's match: keyed, so a bot
        cannot find it by trying small numbers against its own cards."""
        if self.derivation == LEGACY:
            return seed
        return keyed(self.key, b"mallows play", seed)


UNKEYED = Chance()


def local_key(create: bool = True) -> bytes | None:
    """This machine's (this user's) key for ``mallows play --seed S`` and for a check run with
    ``--seed``: kept in ``$XDG_STATE_HOME/mallows/chance.key`` (``~/.local/state/...``), made
    from the operating system's random source the first time (mode 0600). The same key, the
    same seed: the same match, on this machine only. None where no such file can be kept."""
    import os
    from pathlib import Path

    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    path = Path(base) / "mallows" / "chance.key"
    try:
        data = path.read_bytes()
        if len(data) >= 16:
            return data
    except OSError:
        pass
    if not create:
        return None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        key = fresh_key()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(key)
        return key
    except FileExistsError:  # made by another process meanwhile: use that one
        return local_key(create=False)
    except OSError:
        return None
