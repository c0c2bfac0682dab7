"""The compiled engine core, when there is one: loading it, and its chance streams.

Owns finding and loading the core (``platform/engine-core``, a Rust library with no
dependencies behind a C ABI, built by the install where a Rust toolchain exists) with
``ctypes``, and ``CoreRng``: numpy's ``Generator(PCG64(SeedSequence(seed, spawn_key=key)))``
for the two draws the games make (``permutation(n)``, ``integers(n)``), the same numbers
computed without numpy's per-stream set-up cost.

``lib()`` is the loaded library or None: None where no core was built (no Rust toolchain at
install time), where it was built for another ABI version, or where the environment variable
``MALLOWS_NO_CORE`` is set to anything but ``""``/``0`` (the pure-Python engine, the reference,
then does everything). Nothing else in mallows needs the core: every caller falls back.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path
from typing import Any

ABI = 4
DISABLE_ENV = "MALLOWS_NO_CORE"
_NAME = "_engine_core"
_UNSET: Any = object()
_lib: Any = _UNSET

_u32p = ctypes.POINTER(ctypes.c_uint32)
_i32p = ctypes.POINTER(ctypes.c_int32)
_i64p = ctypes.POINTER(ctypes.c_int64)
_SIGNATURES: dict[str, tuple[Any, list[Any]]] = {
    "mc_abi": (ctypes.c_uint32, []),
    "mc_rng_new": (ctypes.c_void_p, [ctypes.c_uint64, _u32p, ctypes.c_size_t]),
    "mc_rng_free": (None, [ctypes.c_void_p]),
    "mc_rng_get_state": (None, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint64)]),
    "mc_rng_from_state": (ctypes.c_void_p, [ctypes.POINTER(ctypes.c_uint64)]),
    "mc_rng_permutation": (None, [ctypes.c_void_p, ctypes.c_size_t, _u32p]),
    "mc_rng_integers": (ctypes.c_uint64, [ctypes.c_void_p, ctypes.c_uint64]),
    "mc_rng_next_u64": (ctypes.c_uint64, [ctypes.c_void_p]),
    "mc_generate_state": (
        None,
        [ctypes.c_uint64, _u32p, ctypes.c_size_t, ctypes.c_size_t, _u32p],
    ),
    "t4_new": (ctypes.c_void_p, [ctypes.c_uint64, ctypes.c_size_t, ctypes.c_uint32]),
    "t4_free": (None, [ctypes.c_void_p]),
    "t4_pick": (ctypes.c_int32, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_size_t]),
    "t4_to_move": (ctypes.c_uint32, [ctypes.c_void_p]),
    "t4_reason": (ctypes.c_int32, [ctypes.c_void_p]),
    "t4_encode": (None, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    "t4_mask": (None, [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]),
    "t4_observe": (
        None,
        [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p],
    ),
    "t4_state": (ctypes.c_size_t, [ctypes.c_void_p, _i32p, ctypes.c_size_t]),
    "t4_log": (ctypes.c_size_t, [ctypes.c_void_p, _i32p, ctypes.c_size_t]),
    "t4_play_random": (ctypes.c_uint64, [ctypes.c_void_p, ctypes.c_uint64]),
    "ars_play_random": (ctypes.c_uint64, [ctypes.c_void_p, ctypes.c_uint64]),
    "t4_playouts": (
        ctypes.c_uint64,
        [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t, ctypes.c_uint32],
    ),
    "ars_new": (ctypes.c_void_p, [ctypes.c_uint64, ctypes.c_size_t, _i64p]),
    "ars_free": (None, [ctypes.c_void_p]),
    "ars_turn": (ctypes.c_int32, [ctypes.c_void_p]),
    "ars_legal": (ctypes.c_size_t, [ctypes.c_void_p, _i32p, ctypes.c_size_t]),
    "ars_apply": (
        ctypes.c_int32,
        [
            ctypes.c_void_p,
            ctypes.c_int32,
            ctypes.c_int32,
            ctypes.c_int32,
            ctypes.c_int32,
            _i32p,
            ctypes.c_size_t,
        ],
    ),
    "ars_log": (ctypes.c_size_t, [ctypes.c_void_p, _i32p, ctypes.c_size_t]),
    "ars_totals": (None, [ctypes.c_void_p, _i64p]),
    "ars_table": (ctypes.c_size_t, [ctypes.c_void_p, _i32p, ctypes.c_size_t]),
    "ars_playouts": (
        ctypes.c_uint64,
        [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_size_t, _i64p],
    ),
}


def disabled() -> bool:
    """True when ``MALLOWS_NO_CORE`` asks for the pure-Python engine."""
    return os.environ.get(DISABLE_ENV, "") not in ("", "0")


def _candidates() -> list[Path]:
    """Where a built core may be: beside this module (what the install puts there)."""
    here = Path(__file__).resolve().parent
    return sorted(here.glob(_NAME + "*.so")) + sorted(here.glob(_NAME + "*.pyd"))


def _load() -> Any:
    for path in _candidates():
        try:
            lib = ctypes.CDLL(str(path))
            for name, (restype, argtypes) in _SIGNATURES.items():
                fn = getattr(lib, name)
                fn.restype, fn.argtypes = restype, argtypes
            if lib.mc_abi() == ABI:
                return lib
        except (OSError, AttributeError):  # another platform's build, or an older core
            continue
    return None


def lib() -> Any:
    """The loaded core, or None (see the module docstring). Loaded once per process."""
    global _lib
    if disabled():
        return None
    if _lib is _UNSET:
        _lib = _load()
    return _lib


def available() -> bool:
    return lib() is not None


def read_ints(fn: Any, handle: Any) -> list[int]:
    """A core function's variable-length answer (``fn(handle, out, cap) -> length``)."""
    n = fn(handle, None, 0)
    out = (ctypes.c_int32 * n)()
    fn(handle, out, n)
    return out[:]


def key_array(key: tuple[int, ...]) -> Any:
    return (ctypes.c_uint32 * max(1, len(key)))(*key)


class CoreRng:
    """numpy's ``Generator(PCG64(SeedSequence(seed, spawn_key=key)))``, computed by the core,
    for ``permutation(n)`` (a list) and ``integers(n)`` (an int) only. A copy (pickle,
    ``copy.deepcopy``: how OpenSpiel and the conformance checks copy a game's state) carries
    the generator's whole state and draws the same numbers next."""

    __slots__ = ("_lib", "_handle")

    def __init__(
        self, seed: int, key: tuple[int, ...], words: tuple[int, ...] = (), core: Any = None
    ):
        core = core if core is not None else lib()
        assert core is not None, "no compiled core: use numpy's generator"
        self._lib = core
        if words:
            self._handle = core.mc_rng_from_state((ctypes.c_uint64 * 5)(*words))
        else:
            self._handle = core.mc_rng_new(seed, key_array(key), len(key))

    def __reduce__(self) -> tuple[Any, tuple[int, tuple[int, ...], tuple[int, ...]]]:
        words = (ctypes.c_uint64 * 5)()
        self._lib.mc_rng_get_state(self._handle, words)
        return (CoreRng, (0, (), tuple(words)))

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            self._lib.mc_rng_free(handle)

    def permutation(self, n: int) -> list[int]:
        out = (ctypes.c_uint32 * n)()
        self._lib.mc_rng_permutation(self._handle, n, out)
        return list(out)

    def integers(self, n: int) -> int:
        if not 1 <= n <= 2**32:
            raise ValueError(f"the core draws integers(n) for 1 <= n <= 2**32, not {n}")
        return int(self._lib.mc_rng_integers(self._handle, n))
