"""Fuzzing the inputs a user controls (issue 11, item 7): tournament files (wrong types, huge,
negative, NaN and infinite numbers, unicode, deep nesting, binary, empty, a folder) and the
arguments of every command. Each ends in exit 0 or exit 2 with a message (``bots check`` may
also exit 1: its bot failed, reported), never a traceback, never a hang (an alarm fails an
example that takes more than a minute). Bounded: a few hundred examples in all."""

from __future__ import annotations

import contextlib
import json
import math
import shutil
import signal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import REPO, invoke as run_app
from mallows.errors import MallowsError
from mallows.results.store import Store
from mallows.tournaments.roundrobin.spec import check_tournament_bots, load_tournament

EXAMPLES = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
BASE = {
    "name": "fz",
    "game": "take4",
    "players": 2,
    "deals": 1,
    "seed": 1,
    "bots": ["random", "greedy"],
}
KEYS = list(BASE) + ["rules", "options", "limits", "ratings"]


@contextlib.contextmanager
def alarm(seconds: int = 60):
    def fire(signum, frame):
        raise TimeoutError(f"no answer in {seconds} s: a hang")

    old = signal.signal(signal.SIGALRM, fire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def invoke(args, allowed=(0, 2)):
    with alarm():
        result = run_app(*args)  # an exception fails the test with its traceback
    assert result.exit_code in allowed, (args, result.exit_code, result.output[-2000:])
    if result.exit_code == 2:
        assert "error" in result.output.lower() or "usage" in result.output.lower(), (
            args,
            result.output,
        )
    return result


# -- TOML values, written by hand so that any value can be (floats: nan, inf) -----------------


def toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)} = {toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


scalars = st.one_of(
    st.integers(),
    st.integers(min_value=-2, max_value=10),
    st.sampled_from([2**63, -(2**63), 10**30, 0, -1, 5_000_001]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 1e300, 1e-300, -0.0]),
    st.booleans(),
    st.text(max_size=30),
    st.sampled_from(
        [
            "random",
            "greedy",
            "heuristic",
            "random:call=nan",
            "bots/random.py",
            "greedy ",
            "nl\n",
            "é🎲",
            "x" * 300,
            "",
            "take4",
            "arschmallows",
            "supermallows",
            "../../etc/passwd",
            "random:call=0.1,call=0.2",
        ]
    ),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=12,
)
sub_tables = st.dictionaries(
    st.sampled_from(
        [
            "decision_seconds",
            "match_seconds",
            "start_seconds",
            "memory_mb",
            "mu",
            "sigma",
            "beta",
            "tau",
            "draw_probability",
            "table_cards",
            "max_rounds",
            "x",
        ]
    ),
    scalars,
    max_size=4,
)


@st.composite
def documents(draw) -> str:
    doc = dict(BASE)
    for key in draw(st.lists(st.sampled_from(KEYS + ["colour", "déals"]), max_size=4)):
        if key in ("options", "limits", "ratings"):
            doc[key] = draw(st.one_of(sub_tables, values))
        else:
            doc[key] = draw(values)
    for key in draw(st.lists(st.sampled_from(list(BASE)), max_size=2)):
        doc.pop(key, None)
    return "\n".join(f"{json.dumps(k)} = {toml(v)}" for k, v in doc.items()) + "\n"


raw_files = st.one_of(
    st.binary(max_size=300),
    st.text(max_size=300),
    st.sampled_from(
        [
            "",
            "\n",
            "[[[",
            "x = " + "[" * 5000 + "]" * 5000,
            "x = " + "{a = " * 3000 + "1" + "}" * 3000,
            'name = "' + "n" * 100_000 + '"',
            "\ufeffname = 'a'",
            "\0\0\0",
        ]
    ),
)


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    folder = tmp_path_factory.mktemp("fuzz")
    db = folder / "m.db"
    shutil.copy(REPO / "tests" / "data" / "schema-v1.db", db)
    Store(db).close()
    return folder


def check_file(path: Path, place: Path) -> None:
    try:
        t = check_tournament_bots(load_tournament(path))
    except MallowsError:
        invoke(
            ["tournament", "run", path, "--db", place / "m.db", "--workers", "1", "--quiet"],
            allowed=(2,),
        )
        return
    # accepted: a sane tournament (never run here: a valid file may schedule hours of play)
    assert t.match_count() >= 1 and all(isinstance(b, str) for b in t.bots)


@EXAMPLES
@given(text=documents())
def test_fuzzed_tournament_files(in_repo, place, text):
    path = place / "fuzz.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    check_file(path, place)


@EXAMPLES
@given(data=raw_files)
def test_raw_and_binary_tournament_files(in_repo, place, data):
    path = place / "raw.toml"
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data, encoding="utf-8", errors="surrogatepass")
    check_file(path, place)


def test_a_folder_and_devices_as_tournament_files(in_repo, place):
    for path in (place, Path("/dev/null"), place / "missing.toml"):
        invoke(["tournament", "run", path, "--db", place / "m.db", "--workers", "1"], allowed=(2,))


# -- command-line arguments of every command ----------------------------------------------------

COMMANDS = [
    ["play", "take4"],
    ["play", "arschmallows"],
    ["play"],
    ["bots", "list"],
    ["bots", "check"],
    ["tournament", "run"],
    ["tournament", "list"],
    ["tournament", "show"],
    ["ratings"],
    ["replay"],
    ["db", "check"],
    [],
]
OPTIONS = [
    "--bot",
    "--rules",
    "--option",
    "--seed",
    "--record",
    "--decision-seconds",
    "--game",
    "--games",
    "--match-seconds",
    "--db",
    "--workers",
    "--address",
    "--batch-size",
    "--tournament",
    "--format",
    "--json",
    "--quiet",
    "--probe",
    "--no-probe",
    "--help",
]
TOKENS = st.one_of(
    st.sampled_from(OPTIONS),
    st.sampled_from(
        [
            "random",
            "greedy",
            "heuristic",
            "example_python",
            "random:call=2",
            "nosuchbot",
            "-1",
            "0",
            "1",
            "2",
            "99999999999999999999999",
            "nan",
            "inf",
            "-inf",
            "1e-9",
            "abc",
            "",
            " ",
            "é🎲",
            "table_cards=4",
            "x=",
            "=1",
            "standard",
            "supermallows",
            "json",
            "csv",
            "markdown",
            "v1-take4",
            "v1-take4/3",
            "v1-take4/999",
            "nope/0",
            "127.0.0.1:1",
            "bad-address",
            "/dev/full",
            "/proc/x/y.db",
            ".",
            "x" * 300,
            "tournaments/demo.toml",
            "{small}",
            "{db}",
            "{folder}",
        ]
    ),
    st.text(max_size=12),
)


@EXAMPLES
@given(command=st.sampled_from(COMMANDS), tokens=st.lists(TOKENS, max_size=8))
def test_fuzzed_command_lines(in_repo, place, command, tokens):
    small = place / "small.toml"
    if not small.exists():
        small.write_text(
            'name = "s"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 1\n'
            'bots = ["random", "greedy"]\n'
        )
    subs = {"{small}": str(small), "{db}": str(place / "m.db"), "{folder}": str(place)}
    args = command + [subs.get(t, t) for t in tokens]
    # a fresh copy per example would be slow: the shared database may grow, never break
    if "--db" not in args and command and command[0] in ("tournament", "ratings", "replay", "db"):
        args += ["--db", str(place / "m.db")]
    if command[:2] == ["tournament", "run"] and "--workers" not in args:
        args += ["--workers", "1"]  # a local Ray per example would take minutes
    if "--workers" in args:
        i = args.index("--workers")
        if i + 1 < len(args) and args[i + 1].lstrip("-").isdigit() and int(args[i + 1]) > 1:
            args[i + 1] = "1"
    allowed = (0, 1, 2) if command[:2] == ["bots", "check"] else (0, 2)
    invoke(args, allowed=allowed)
