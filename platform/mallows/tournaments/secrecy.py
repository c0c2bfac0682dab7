"""A tournament's secret chance: which seed derivation it uses, its drawn seed, and its key.

``settle(store, t)`` turns a checked ``Tournament`` into the one that runs against ``store``:

- a tournament stored before derivation 2 (its definition has no ``chance``) resumes with
  derivation 1, the same matches as before;
- a tournament stored with unkeyed deals before ``secret = true`` became the default resumes
  with them, unless its file now says ``secret``;
- a file without ``seed`` resumes with the seed drawn when it was first run (kept in the
  definition with ``drawn_seed``), not with a new one;
- a derivation 2 tournament gets its secret key from the database (made from the operating
  system's random source the first time, kept in ``meta``, never in a definition, a record or a
  report), as ``t.chance``.

``untrusted_seed_warning(t)`` is the warning a run prints before it starts when the file gives
an explicit, unkeyed seed and some bot is not shipped with the project.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar, Protocol, TypeVar

from mallows import seeding
from mallows.errors import SecretKeyError
from mallows.results.interface import ResultStore


class Seeded(Protocol):
    """What ``settle`` reads of a run: a round robin's ``Tournament`` (``roundrobin.spec``), a
    frozen data class it replaces fields of."""

    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    @property
    def name(self) -> str: ...
    @property
    def seed(self) -> int: ...
    @property
    def seed_drawn(self) -> bool: ...
    @property
    def secret(self) -> bool: ...
    @property
    def secret_given(self) -> bool: ...
    @property
    def derivation(self) -> int: ...
    @property
    def written_names(self) -> tuple[str, ...]: ...
    def digest(self) -> str: ...


T = TypeVar("T", bound=Seeded)

SEED_WARNING = (
    "authors who know the seed can compute every deal: leave `seed` out, or keep "
    "the file private until the tournament ends (or leave `secret` out: keyed deals)"
)


def parse_key(text: str) -> bytes:
    """A key given on the command line (``--key``): hexadecimal, at least 16 bytes."""
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) < 16:
        raise SecretKeyError(
            f"--key {text[:80]!r} is not a secret key: give the hexadecimal "
            f"key that mallows tournament show NAME --reveal-key printed (64 "
            f"hex digits)"
        )
    return key


def settle(store: ResultStore, t: T, key: bytes | None = None) -> T:
    """``t`` as it runs in ``store`` (see the module docstring). ``key``: the secret key to use
    (``--key``: replaying a published tournament); refused where ``store`` keeps another."""
    row = store.tournament(t.name)
    if row is not None:
        stored = json.loads(row["definition"])
        if t.seed_drawn and stored.get("drawn_seed") and isinstance(stored.get("seed"), int):
            t = dataclasses.replace(t, seed=stored["seed"])
        if t.secret and not t.secret_given and not stored.get("secret"):
            t = dataclasses.replace(t, secret=False)  # stored before secret became the default
        legacy = stored.get("chance", seeding.LEGACY) == seeding.LEGACY
        if legacy and t.derivation != seeding.LEGACY and not t.secret and not t.seed_drawn:
            old = dataclasses.replace(t, derivation=seeding.LEGACY)
            if old.digest() == row["digest"]:
                t = old  # stored before derivation 2: the same matches as then
    if t.derivation == seeding.LEGACY:
        if key is not None:
            raise SecretKeyError(
                f"--key: tournament {t.name!r} was stored before secret keys "
                f"(derivation 1): it has no key; run it without --key"
            )
        return dataclasses.replace(t, chance=seeding.UNKEYED)
    kept = store.chance_key(t.name)
    if kept is not None and row is None and store.count_matches(t.name) == 0 and key is not None:
        kept = None  # left by a run that never registered: nothing was played with it
        store.forget_chance_key(t.name)
    if kept is None:
        kept = store.put_chance_key(t.name, key if key is not None else seeding.fresh_key())
    if key is not None and kept != key:
        raise SecretKeyError(
            f"--key: tournament {t.name!r} in this database already has "
            f"another secret key (its matches were played with it): leave "
            f"--key out to resume it, or use a new --db to replay the "
            f"published one"
        )
    key = kept
    return dataclasses.replace(t, chance=seeding.Chance(t.derivation, key, t.secret))


def commitment(store: ResultStore, name: str) -> str | None:
    """Tournament ``name``'s key commitment (``seeding.commitment``), None without a key."""
    key = store.chance_key(name)
    return None if key is None else seeding.commitment(key)


def untrusted_seed_warning(t: Seeded) -> str | None:
    """The warning for an explicit, unkeyed seed (or the unkeyed derivation 1) with bots not
    shipped with the project."""
    if (t.seed_drawn or t.secret) and t.derivation != seeding.LEGACY:
        return None
    from mallows.agents.registry import parse_name, trusted_shipped

    trusted = set(trusted_shipped())
    untrusted = [b for b in t.written_names if parse_name(b)[0] not in trusted]
    if not untrusted:
        return None
    named = f"{', '.join(untrusted[:5])}{', ...' if len(untrusted) > 5 else ''}"
    if t.derivation == seeding.LEGACY:
        return (
            f"warning: {t.name} runs under seed derivation 1 (unkeyed) with bots not "
            f"shipped with mallows ({named}): every bot can compute the deals from its own "
            f"seed; use it only to replay an old tournament"
        )
    return (
        f"warning: {t.name} has seed = {t.seed} and bots not shipped with mallows "
        f"({named}): " + SEED_WARNING
    )
