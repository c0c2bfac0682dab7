"""The bot host's codec (``mallows.agents.wire.HostCodec``, issue 35 item 1: a bot's start):
the standard library's ``json`` until a process has passed ``SWITCH_BYTES``, then orjson, and
whatever it writes means what orjson's bytes would mean; what the standard library would write
differently (NaN, an integer beyond 64 bits, a value only orjson encodes, a string that is not
UTF-8, too deep a nesting) goes through orjson, which writes or refuses it as before. A hosted
bot process does not import orjson to start, nor (through a game's package) the compiled
core's loader (ctypes, pathlib) or numpy."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
import textwrap

import orjson
import pytest
from hypothesis import given, settings, strategies as st

from mallows.agents import wire
from mallows.agents.protocol import Limits
from mallows.agents.registry import load_bot
from mallows.agents.wire import HostCodec

# JSON-like values as a bot's act() may return them: integers of any size, floats (NaN and the
# infinities too), any text (lone surrogates too), lists, tuples, dicts with str or int keys
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text()
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=5) | st.integers(-5, 5), inner, max_size=4)
    ),
    max_leaves=12,
)


def _orjson_meaning(value: object) -> tuple[str, object]:
    try:
        return "ok", orjson.loads(wire.dumps(value))
    except TypeError as exc:
        return "refused", type(exc)


def _codec_meaning(value: object) -> tuple[str, object]:
    try:
        return "ok", orjson.loads(HostCodec().dumps(value))
    except TypeError as exc:
        return "refused", type(exc)


def _same(a: object, b: object) -> bool:
    """Equal as decoded JSON, NaN equal to NaN (orjson writes none: null)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_what_the_codec_writes_means_what_orjson_would_write(value):
    want, got = _orjson_meaning(value), _codec_meaning(value)
    assert want[0] == got[0], (value, want, got)
    assert _same(want[1], got[1]), (value, want, got)


@dataclasses.dataclass
class _Point:
    x: int


@pytest.mark.parametrize(
    "value",
    [
        {"score": float("nan")},  # json would write NaN (not JSON): orjson writes null
        {"score": float("inf")},
        {"position": 2**64},  # orjson refuses an integer beyond 64 bits
        {"position": -(2**63) - 1},
        {"position": 2**64 - 1},  # the largest orjson writes
        {"why": "\ud800"},  # a lone surrogate: not UTF-8
        {1: "a", None: "b", 2.5: "c"},  # non-string keys: orjson's OPT_NON_STR_KEYS
        _Point(3),  # orjson writes a dataclass, json does not
        {"digits": "12345678901234567890123"},  # 19 digits in a string: orjson's path, same text
    ],
)
def test_the_cases_json_writes_differently_go_through_orjson(value):
    want, got = _orjson_meaning(value), _codec_meaning(value)
    assert want[0] == got[0] and _same(want[1], got[1]), (value, want, got)


def test_too_deep_a_nesting_is_refused_as_orjson_refuses_it():
    deep: list = []
    for _ in range(sys.getrecursionlimit() + 10):
        deep = [deep]
    assert _orjson_meaning(deep)[0] == "refused"
    assert _codec_meaning(deep)[0] == "refused"


def test_it_switches_to_orjson_after_its_bytes():
    codec = HostCodec()
    codec.SWITCH_BYTES = 100  # type: ignore[misc]
    message = b'{"type":"act","observation":{"x":"' + b"a" * 60 + b'"}}'
    assert codec.loads(message)["observation"]["x"] == "a" * 60
    assert codec.loads.__func__ is HostCodec.loads  # type: ignore[attr-defined]
    codec.loads(message)  # past 100 bytes
    assert codec.loads is wire.loads and codec.dumps is wire.dumps
    assert codec.loads(message)["type"] == "act"


def test_a_hosted_bot_starts_without_orjson(tmp_path):
    """A real hosted bot process (process isolation) reports, in its hello, whether orjson was
    loaded when its module ran: the host's start no longer imports it."""
    bot = tmp_path / "probe.py"
    bot.write_text(
        textwrap.dedent(
            """
            import sys

            class Bot:
                name = "probe"
                version = "orjson" if "orjson" in sys.modules else "none"
                games = ("take4",)

                def match_start(self, info):
                    pass

                def act(self, observation):
                    return observation["legal_actions"][0]
            """
        )
    )
    spec = load_bot(str(bot))
    assert spec.isolated
    hello = spec.describe(sandbox="off")
    assert hello["version"] == "none", hello
    handle = spec.handle(Limits(decision_seconds=5.0, start_seconds=10.0, sandbox="off"))
    try:
        handle.start({"seed": 1, "game": "take4", "seat": 0, "players": 2})
        action = handle.act({"legal_actions": [{"type": "pick", "position": 2}], "game": "take4"})
        assert action == {"type": "pick", "position": 2}
    finally:
        handle.close()


@pytest.mark.parametrize("game", ["take4", "arschmallows"])
def test_a_games_package_loads_without_the_core_or_numpy(game):
    """What a bot imports to play (a game's package, as the shipped random bot does) loads
    neither ctypes and pathlib (``mallows.core``) nor numpy: they load with the first deal."""
    code = (
        f"import sys, mallows.agents.host, mallows.games.{game}; "
        "print(sorted(m for m in ('ctypes', 'pathlib', 'numpy', 'orjson', 'mallows.core') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout
