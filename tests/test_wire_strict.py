"""The wire, held exactly (issue 26, item 7): the 256 KiB line limit holds for a line that
arrives whole; ``protocol`` must be the integer 1 (``true`` is refused); a byte-order mark and
CRLF are accepted on every line; a reply that is valid JSON of the wrong shape is told what
was wrong with it, and a number out of range is not called "not JSON".

Each case is a real bot process (``tests/misbehaving_bots/raw_replies.py``) that answers one
request with the exact bytes given, run with process isolation (the sandbox adds nothing to
the wire)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from mallows.agents.process import MAX_LINE_BYTES, SubprocessBot
from mallows.agents.protocol import BotFailure, Limits

RAW = Path(__file__).parent / "misbehaving_bots" / "raw_replies.py"
PLAIN = Limits(decision_seconds=5.0, match_seconds=60.0, start_seconds=10.0, sandbox="off")
OBS = {"legal_actions": [{"type": "pick", "position": 3}]}


def exchange(raw: dict) -> tuple[str, str]:
    """("ok", the action) or (the failure's kind, its reason) for a start, act and end."""
    handle = SubprocessBot("raw", [sys.executable, str(RAW), json.dumps(raw)], limits=PLAIN)
    try:
        handle.start({"seed": 1})
        action = handle.act(OBS)
        handle.end({"seat": 0, "result": {}})
        return "ok", json.dumps(action)
    except BotFailure as exc:
        return exc.kind, " ".join(str(exc).split())
    finally:
        handle.close()


def action_line(size: int, end: str = "\n") -> str:
    """An action reply of exactly ``size`` bytes before ``end``."""
    head = '{"type":"action","action":ACTION,"pad":"'
    fixed = len(head.replace("ACTION", json.dumps(OBS["legal_actions"][0]))) + 2
    return f'{head}PAD{size - fixed}"}}{end}'


@pytest.mark.parametrize(
    "size,accepted", [(MAX_LINE_BYTES, True), (MAX_LINE_BYTES + 1, False), (300 * 1024, False)]
)
def test_the_line_limit_holds_exactly(size, accepted):
    kind, text = exchange({"act": action_line(size)})
    if accepted:
        assert kind == "ok", text
    else:
        assert kind == "flood", text
        assert f"more than {MAX_LINE_BYTES} bytes" in text


@pytest.mark.parametrize("value", ["true", "1.0", '"1"', "2", "null"])
def test_protocol_must_be_the_integer_1(value):
    kind, text = exchange(
        {"hello": f'{{"type":"hello","protocol":{value},"name":"x","version":"1"}}\n'}
    )
    assert kind == "protocol", text
    assert (
        "the bot speaks protocol 2,"
        if value == "2"
        else f'says "protocol": {value}, which is not a protocol version'
    ) in text, text
    assert 'must say "protocol": 1' in text


def test_a_hello_without_protocol_says_so():
    kind, text = exchange({"hello": '{"type":"hello","name":"x","version":"1"}\n'})
    assert kind == "protocol" and 'which has no "protocol"' in text, text


@pytest.mark.parametrize("kind", ["hello", "start", "act", "end"])
@pytest.mark.parametrize("form", ["bom", "crlf", "bom+crlf"])
def test_a_bom_and_crlf_are_accepted_on_every_line(kind, form):
    proper = {
        "hello": '{"type":"hello","protocol":1,"name":"x","version":"1"}',
        "start": '{"type":"ok"}',
        "end": '{"type":"ok"}',
        "act": '{"type":"action","action":ACTION}',
    }[kind]
    line = ("\xef\xbb\xbf" if "bom" in form else "") + proper + ("\r\n" if "crlf" in form else "\n")
    result, text = exchange({kind: line})
    assert result == "ok", text


@pytest.mark.parametrize(
    "kind,line,words",
    [
        ("start", '{"ok":true}', "it has no \"type\" (its keys: 'ok')"),
        ("start", '{"type":"okay"}', 'its "type" is "okay", not "ok"'),
        ("end", '{"status":"ok"}', 'it has no "type"'),
        ("act", '{"type":"ok"}', 'its "type" is "ok", not "action"'),
        ("act", '{"type":"action","move":1}', 'it has no "action"'),
    ],
)
def test_valid_json_of_the_wrong_shape_is_told_what_is_wrong(kind, line, words):
    result, text = exchange({kind: line + "\n"})
    assert result == "garbage", text
    assert words in text and "not JSON" not in text, text


def test_extra_fields_are_ignored():
    for kind, line in (
        ("start", '{"type":"ok","note":1}'),
        ("end", '{"type":"ok","x":[1]}'),
        ("act", '{"type":"action","action":ACTION,"why":"x"}'),
    ):
        result, text = exchange({kind: line + "\n"})
        assert result == "ok", (kind, text)


def test_a_huge_number_is_named_not_called_not_json():
    result, text = exchange(
        {"act": '{"type":"action","action":{"type":"pick","position":' + "9" * 1000 + "}}\n"}
    )
    assert result == "garbage" and "a number out of range" in text, text
    assert "not JSON" not in text
    result, text = exchange({"act": '{"type":"action", oops}\n'})
    assert result == "garbage" and "a line that is not JSON" in text, text
