"""The match record, version 1, checked: ``parse_record(text, where)`` and ``check_record``.

A record read from a file (``mallows replay FILE``) may have been edited by hand or damaged, so
it is checked against the record format (docs/records.md) before anything uses it. The
first thing wrong is named by its place in the record (``events[12].seat``, ``result.ranks``)
with what was expected and what was found, so the message points at the line to fix; nothing
downstream then meets a value of the wrong type (no ``AttributeError`` or ``TypeError``).

What is checked:

- the text: UTF-8 JSON (a byte-order mark is named), at most ``MAX_DEPTH`` levels of nesting
  (a 10,000-deep event is refused, not a ``RecursionError``), no number too long to read;
- the top level: an object with ``game`` (a known game), ``players`` (a non-empty list of
  strings), ``events`` (a list of objects), ``result`` (an object); ``record_version`` 1 when
  present; ``seed`` an integer, ``options`` an object, ``rules`` a string, ``isolation`` a
  list of strings (one per seat) when present;
- each event: an object with a string ``type``; its common fields of the right type (``seat``
  a seat of the match, ``round`` and ``position`` non-negative integers, ``picks`` a list of
  integers, ``deck`` a list of cards, ``action`` an object with a string ``type``, ``reason`` and
  ``kind`` strings, ``scores`` a list of numbers);
- ``result.ranks``: one integer per seat, a 0-based standard competition ranking (tied seats
  share the better rank and the next skips: 0, 0, 2).

Whether the events replay (the game's rules) is the replay's job (``ReplayMismatch``).
"""

from __future__ import annotations

import json
from typing import Any

from mallows.errors import RecordError

RECORD_VERSION = 1
#: Deeper nesting than any record has (an Arschmallows event is 4 levels deep).
MAX_DEPTH = 32
_FORMAT = "the record format is in docs/records.md"


def parse_record(text: bytes | str, where: str) -> dict:
    """The record in ``text`` (the contents of ``where``), checked; ``RecordError`` naming the
    first thing wrong otherwise."""
    if isinstance(text, bytes):
        if text.startswith(b"\xef\xbb\xbf"):
            raise RecordError(
                f"{where} starts with a UTF-8 byte-order mark (BOM): save it as "
                f"UTF-8 without a BOM (a record is plain UTF-8 JSON)"
            )
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(
                f"{where} is not UTF-8 text (byte {exc.start}): a record is "
                f"UTF-8 JSON, as mallows play --record writes it"
            ) from None
    if text.startswith("\ufeff"):
        raise RecordError(f"{where} starts with a byte-order mark (BOM): save it without one")
    depth = _text_depth(text)
    if depth > MAX_DEPTH:
        raise RecordError(
            f"{where} nests lists and objects more than {MAX_DEPTH} levels deep "
            f"(no match record does): it is not a match record; {_FORMAT}"
        )
    try:
        record = json.loads(text)
    except RecursionError:  # pragma: no cover (refused by depth above)
        raise RecordError(f"{where} nests too deeply to be a match record") from None
    except ValueError as exc:
        if "digits" in str(exc):  # Python's limit on the length of an integer
            raise RecordError(
                f"{where} holds a number too long to read ({exc}): no record field is that large"
            ) from None
        raise RecordError(
            f"{where} is not JSON ({exc}), so not a match record: a record is "
            f"one JSON object, as "
            f"mallows play --record writes it"
        ) from None
    check_record(record, where)
    return record


def _text_depth(text: str) -> int:
    """The deepest nesting of brackets in JSON text, outside strings (without parsing)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > deepest:
                deepest = depth
                if deepest > MAX_DEPTH:
                    return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, (int, float)):
        return f"the number {value if len(repr(value)) < 30 else repr(value)[:20] + '...'}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    if isinstance(value, list):
        return f"a list of {len(value)}"
    return "an object"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Checker:
    def __init__(self, where: str):
        self.where = where

    def fail(self, place: str, expected: str, value: Any) -> None:
        raise RecordError(
            f"{self.where} is not a valid match record: {place} should be "
            f"{expected}, but is {_kind(value)}; {_FORMAT}"
        )

    def missing(self, place: str, key: str, expected: str) -> None:
        raise RecordError(
            f"{self.where} is not a valid match record: {place} has no "
            f"{key!r} ({expected}); {_FORMAT}"
        )


def check_record(record: Any, where: str) -> None:
    """Raise ``RecordError`` naming the first thing in ``record`` that the format forbids."""
    from mallows.games import GAMES

    c = _Checker(where)
    if not isinstance(record, dict):
        c.fail("the record", "an object with 'game', 'players', 'events' and 'result'", record)
    for key, expected in (
        ("game", "a game's name"),
        ("players", "a list of bot names"),
        ("events", "a list of events"),
        ("result", "an object"),
    ):
        if key not in record:
            c.missing("the record", key, expected)
    if "record_version" in record and (
        not _is_int(record["record_version"]) or record["record_version"] != RECORD_VERSION
    ):
        c.fail(
            "record_version",
            f"{RECORD_VERSION} (this mallows reads record version {RECORD_VERSION})",
            record["record_version"],
        )
    game = record["game"]
    if not isinstance(game, str) or game not in GAMES:
        c.fail("game", f"one of {', '.join(sorted(GAMES))}", game)
    players = record["players"]
    if not isinstance(players, list) or not players:
        c.fail("players", "a non-empty list of bot names (one per seat)", players)
    for i, p in enumerate(players):
        if not isinstance(p, str) or not p:
            c.fail(f"players[{i}]", "a bot's name (a string)", p)
    seats = len(players)
    if "seed" in record and not _is_int(record["seed"]):
        c.fail("seed", "an integer", record["seed"])
    if "options" in record and not isinstance(record["options"], dict):
        c.fail("options", "an object of the match's options", record["options"])
    if "rules" in record and not isinstance(record["rules"], str):
        c.fail("rules", "the rule set's name (a string)", record["rules"])
    if "isolation" in record:
        iso = record["isolation"]
        if (
            not isinstance(iso, list)
            or len(iso) != seats
            or not all(isinstance(x, str) for x in iso)
        ):
            c.fail("isolation", f"a list of {seats} strings (one per seat)", iso)
    events = record["events"]
    if not isinstance(events, list):
        c.fail("events", "a list of events", events)
    for i, event in enumerate(events):
        _check_event(c, f"events[{i}]", event, seats)
    _check_result(c, record["result"], seats)


_INT_FIELDS = ("round", "position", "winner", "slot", "player")
_ACTION_INTS = ("slot", "player", "their_slot", "position")
_INT_LISTS = ("picks", "contenders", "winners", "slots")


def _check_event(c: _Checker, place: str, event: Any, seats: int) -> None:
    if not isinstance(event, dict):
        c.fail(place, "an event (an object with a 'type')", event)
    if "type" not in event:
        c.missing(place, "type", "the event's kind, e.g. 'action'")
    if not isinstance(event["type"], str):
        c.fail(f"{place}.type", "the event's kind (a string)", event["type"])
    if "seat" in event:
        seat = event["seat"]
        if not _is_int(seat) or not 0 <= seat < seats:
            c.fail(f"{place}.seat", f"a seat of the match (0 to {seats - 1})", seat)
    elif event["type"] in ("action", "forfeit"):
        c.missing(place, "seat", "the seat it is about")
    if (
        "caller" in event
        and event["caller"] is not None
        and (not _is_int(event["caller"]) or not 0 <= event["caller"] < seats)
    ):
        c.fail(f"{place}.caller", f"a seat (0 to {seats - 1}) or null", event["caller"])
    for key in _INT_FIELDS:
        if key in event and (not _is_int(event[key]) or event[key] < 0):
            c.fail(f"{place}.{key}", "a non-negative integer", event[key])
    for key in _INT_LISTS:
        if key in event:
            value = event[key]
            if not isinstance(value, list):
                c.fail(f"{place}.{key}", "a list of integers", value)
            for j, v in enumerate(value):
                if not _is_int(v):
                    c.fail(f"{place}.{key}[{j}]", "an integer", v)
    if "deck" in event:
        deck = event["deck"]
        if not isinstance(deck, list):
            c.fail(f"{place}.deck", "a list of cards", deck)
        for j, card in enumerate(deck):
            if isinstance(card, bool) or not isinstance(card, (int, str)):
                c.fail(f"{place}.deck[{j}]", "a card (a value or a name)", card)
    if "scores" in event:
        _numbers(c, f"{place}.scores", event["scores"], seats)
    for key in ("reason", "kind"):
        if key in event and not isinstance(event[key], str):
            c.fail(f"{place}.{key}", "a string", event[key])
    if event["type"] == "action":
        if "action" not in event:
            c.missing(place, "action", "the action taken")
        action = event["action"]
        if not isinstance(action, dict):
            c.fail(f"{place}.action", "an action (an object with a 'type')", action)
        if not isinstance(action.get("type"), str):
            c.fail(f"{place}.action.type", "the action's kind (a string)", action.get("type"))
        for key in _ACTION_INTS:
            if key in action and not _is_int(action[key]):
                c.fail(f"{place}.action.{key}", "an integer", action[key])
        if "slots" in action:
            slots = action["slots"]
            if not isinstance(slots, list) or not all(_is_int(v) for v in slots):
                c.fail(f"{place}.action.slots", "a list of integers", slots)


def _numbers(c: _Checker, place: str, value: Any, seats: int | None) -> None:
    if not isinstance(value, list) or (seats is not None and len(value) != seats):
        c.fail(
            place,
            f"a list of {seats} numbers (one per seat)" if seats else "a list of numbers",
            value,
        )
    for j, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            c.fail(f"{place}[{j}]", "a number", v)


def _check_result(c: _Checker, result: Any, seats: int) -> None:
    if not isinstance(result, dict):
        c.fail("result", "an object with 'ranks'", result)
    if "ranks" not in result:
        c.missing("result", "ranks", "one rank per seat")
    ranks = result["ranks"]
    if not isinstance(ranks, list) or len(ranks) != seats:
        c.fail("result.ranks", f"a list of {seats} ranks (one per seat)", ranks)
    for i, r in enumerate(ranks):
        if not _is_int(r) or not 0 <= r < seats:
            c.fail(f"result.ranks[{i}]", f"a rank from 0 (first) to {seats - 1}", r)
    for i, r in enumerate(ranks):
        better = sum(1 for other in ranks if other < r)
        if r != better:
            raise RecordError(
                f"{c.where} is not a valid match record: result.ranks {ranks} is not a "
                f"standard competition ranking (0 = first; tied seats share the better rank and "
                f"the next rank skips, e.g. 0, 0, 2): seat {i} has rank {r} but {better} "
                f"seat{'s' if better != 1 else ''} rank{'' if better != 1 else 's'} above it; "
                f"{_FORMAT}"
            )
    for key in ("totals", "round_wins"):
        if key in result:
            _numbers(c, f"result.{key}", result[key], seats)
    if "round_scores" in result:
        rs = result["round_scores"]
        if not isinstance(rs, list):
            c.fail("result.round_scores", "a list of rounds' scores", rs)
        for j, scores in enumerate(rs):
            _numbers(c, f"result.round_scores[{j}]", scores, seats)
    if "collections" in result:
        col = result["collections"]
        if not isinstance(col, list) or len(col) != seats:
            c.fail("result.collections", f"a list of {seats} collections (one per seat)", col)
        for j, cards in enumerate(col):
            if not isinstance(cards, list) or not all(isinstance(x, str) for x in cards):
                c.fail(f"result.collections[{j}]", "a list of card names", cards)
    if "winners" in result:
        w = result["winners"]
        if not isinstance(w, list) or not all(_is_int(x) and 0 <= x < seats for x in w):
            c.fail("result.winners", f"a list of seats (0 to {seats - 1})", w)
    if "forfeits" in result:
        f = result["forfeits"]
        if (
            not isinstance(f, list)
            or len(f) != seats
            or not all(x is None or isinstance(x, str) for x in f)
        ):
            c.fail("result.forfeits", f"a list of {seats} entries (a reason or null)", f)
