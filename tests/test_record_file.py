"""A record read from a file is checked against the record format before anything uses it
(issue 26, item 4): ``mallows replay FILE`` of a hand-edited or damaged record ends with a
message naming the first thing wrong (exit 2), never a traceback. Table cases for the edits
the issue found ending in ``AttributeError``/``TypeError``, and a seeded fuzz of several
hundred random edits."""

from __future__ import annotations

import copy
import json
import random
import subprocess
from pathlib import Path

import pytest
from conftest import MALLOWS, REPO
from mallows.cli import app
from mallows.errors import RecordError
from mallows.runner.record_format import MAX_DEPTH, check_record, parse_record
from typer.testing import CliRunner

DATA = REPO / "tests" / "data"
RECORDS = {
    g: json.loads((DATA / f"record-{g}.json").read_text()) for g in ("arschmallows", "take4")
}


def replay(path: Path, *extra: str):
    result = CliRunner().invoke(app, ["replay", str(path), *extra])
    assert result.exception is None or isinstance(result.exception, SystemExit), "".join(
        __import__("traceback").format_exception(result.exception)
    )
    return result


def edited(tmp_path: Path, game: str, edit) -> Path:
    record = copy.deepcopy(RECORDS[game])
    edit(record)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(record))
    return path


def _set(path, value):
    def edit(record):
        node = record
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value

    return edit


def _delete(*path):
    def edit(record):
        node = record
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]

    return edit


CASES = [
    ("players not a list", _set(["players"], "greedy"), "players should be a non-empty list"),
    ("a player not a string", _set(["players", 1], 7), "players[1] should be a bot's name"),
    ("a player an object", _set(["players", 0], {"a": 1}), "players[0] should be"),
    ("no players", _set(["players"], []), "players should be a non-empty list"),
    ("events an object", _set(["events"], {}), "events should be a list of events"),
    ("an event a string", _set(["events", 3], "deal"), "events[3] should be an event"),
    ("an event a list", _set(["events", 0], [1, 2]), "events[0] should be an event"),
    ("an event with no type", _set(["events", 2], {"seat": 0}), "events[2] has no 'type'"),
    (
        "a seat out of range",
        _set(["events", 1, "seat"], 9),
        "events[1].seat should be a seat of the match (0 to 2), but is the number 9",
    ),
    ("a seat a boolean", _set(["events", 1, "seat"], True), "events[1].seat should be"),
    (
        "an action a string",
        _set(["events", 1, "action"], "draw"),
        "events[1].action should be an action",
    ),
    ("a deck not a list", _set(["events", 0, "deck"], 3), "events[0].deck should be a list"),
    (
        "ranks too short",
        _set(["result", "ranks"], [0, 1]),
        "result.ranks should be a list of 3 ranks",
    ),
    (
        "ranks not a ranking",
        _set(["result", "ranks"], [0, 0, 1]),
        "is not a standard competition ranking",
    ),
    ("a rank a string", _set(["result", "ranks", 0], "first"), "result.ranks[0] should be"),
    ("a rank negative", _set(["result", "ranks", 2], -1), "result.ranks[2] should be"),
    ("result not an object", _set(["result"], [0, 1, 2]), "result should be an object"),
    ("result without ranks", _delete("result", "ranks"), "result has no 'ranks'"),
    ("no result", _delete("result"), "the record has no 'result'"),
    ("no game", _delete("game"), "the record has no 'game'"),
    ("an unknown game", _set(["game"], "chess"), "game should be one of"),
    ("options a list", _set(["options"], [1]), "options should be an object"),
    ("a record version 2", _set(["record_version"], 2), "record_version should be 1"),
    ("a seed a string", _set(["seed"], "7"), "seed should be an integer"),
    ("totals a string", _set(["result", "totals"], "111"), "result.totals should be a list"),
    (
        "forfeits not by seat",
        _set(["result", "forfeits"], [None]),
        "result.forfeits should be a list of 3",
    ),
    (
        "a round end's scores wrong",
        lambda r: next(e for e in r["events"] if e["type"] == "round_end").__setitem__(
            "scores", [1, "x", 2]
        ),
        ".scores[1] should be a number",
    ),
]


@pytest.mark.parametrize("name,edit,words", CASES, ids=[c[0] for c in CASES])
def test_a_hand_edited_record_names_the_first_thing_wrong(tmp_path, name, edit, words):
    path = edited(tmp_path, "arschmallows", edit)
    result = replay(path)
    text = " ".join(result.output.split())
    assert result.exit_code == 2, (name, text)
    assert text.startswith(f"error: {path}"), text
    assert words in text, (name, text)
    assert "platform.md" not in text  # the format is in a file that exists
    assert (REPO / "docs" / "records.md").is_file()


def test_take4_edits(tmp_path):
    for edit, words in (
        (_set(["events", 0, "deck", 0], None), "events[0].deck[0] should be"),
        (_set(["events", 1, "picks"], "1,2"), "events[1].picks should be"),
        (_set(["players", 1], None), "players[1] should be"),
    ):
        result = replay(edited(tmp_path, "take4", edit))
        assert result.exit_code == 2 and words in " ".join(result.output.split())


def test_ten_thousand_deep_nesting_is_refused(tmp_path):
    record = copy.deepcopy(RECORDS["arschmallows"])
    text = json.dumps(record)
    deep = "[" * 10000 + "]" * 10000
    path = tmp_path / "deep.json"
    path.write_text(text.replace('"events": [', f'"events": [{deep}, ', 1))
    result = replay(path)
    assert result.exit_code == 2
    assert f"more than {MAX_DEPTH} levels deep" in " ".join(result.output.split())
    path.write_text('{"a": ' + '{"a": ' * 10000 + "1" + "}" * 10001)
    assert replay(path).exit_code == 2


def test_text_that_is_not_a_record(tmp_path):
    path = tmp_path / "x.json"
    for content, words in (
        (b"\xef\xbb\xbf" + json.dumps(RECORDS["take4"]).encode(), "byte-order mark (BOM)"),
        (b"\xff\xfe{}", "is not UTF-8 text"),
        (b'{"game": ', "is not JSON"),
        (b"[1, 2]", "the record should be an object"),
        (b'{"seed": ' + b"9" * 5000 + b"}", "number too long to read"),
    ):
        path.write_bytes(content)
        result = replay(path)
        text = " ".join(result.output.split())
        assert result.exit_code == 2 and words in text, (content[:20], text)


def test_a_1000_digit_seed_is_named_not_called_not_json(tmp_path):
    path = edited(tmp_path, "take4", _set(["seed"], 0))
    path.write_text(path.read_text().replace('"seed": 0', '"seed": ' + "7" * 1000))
    result = replay(path)
    assert "not JSON" not in result.output
    assert result.exit_code == 0, result.output  # an integer is an integer: it replays


def test_records_mallows_writes_pass(tmp_path):
    for record in RECORDS.values():
        check_record(record, "x")
    import shutil

    from mallows.results.store import Store

    db = tmp_path / "v1.db"
    shutil.copy(DATA / "schema-v1.db", db)
    store = Store(db, readonly=True)
    rows = list(store.export())
    assert rows
    for row in rows:
        check_record(json.loads(row["record"]), row["id"])


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _hostile(rng: random.Random):
    return rng.choice(
        [
            None,
            True,
            False,
            -1,
            0,
            2**70,
            1.5,
            float("1e308"),
            "",
            "x" * 300,
            [],
            [None],
            [[[]]],
            {},
            {"type": None},
            {"type": "action"},
            {"type": "action", "seat": 0},
            "deal",
            99,
            [1, "a", None],
        ]
    )


@pytest.mark.parametrize("game", ["arschmallows", "take4"])
def test_fuzzed_records_never_end_in_a_traceback(tmp_path, game):
    """200 seeded random edits per game (a value replaced, a key deleted, a list shortened):
    each replays (exit 0) or is refused with a message (exit 2), with --json and --seat too."""
    rng = random.Random(26)
    base = RECORDS[game]
    paths = [p for p in _paths(base) if p]
    refused = 0
    for n in range(200):
        record = copy.deepcopy(base)
        for _ in range(rng.choice([1, 1, 2])):
            path = rng.choice(paths)
            node = record
            try:
                for key in path[:-1]:
                    node = node[key]
                action = rng.random()
                if action < 0.7:
                    node[path[-1]] = _hostile(rng)
                elif isinstance(node, dict):
                    del node[path[-1]]
                elif isinstance(node, list) and node:
                    node.pop()
            except (KeyError, IndexError, TypeError):
                pass  # an earlier edit removed that place
        file = tmp_path / f"f{n}.json"
        file.write_text(json.dumps(record))
        result = replay(file, *rng.choice([(), (), ("--seat", "1"), ("--json",)]))
        assert result.exit_code in (0, 2), (n, result.output)
        if result.exit_code == 2:
            refused += 1
            assert result.output.startswith("error: "), (n, result.output)
    assert refused > 60  # the edits do break records


def test_console_script_refuses_with_the_message(tmp_path):
    path = edited(tmp_path, "arschmallows", _set(["players"], "greedy"))
    proc = subprocess.run(
        [MALLOWS, "replay", str(path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "players should be a non-empty list of bot names" in proc.stderr


def test_parse_record_is_the_check(tmp_path):
    with pytest.raises(RecordError):
        parse_record(b"{}", "x")
