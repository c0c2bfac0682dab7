"""Arschmallows' replay face (``mallows.games.faces.ReplayView``): a record replayed through
the engine, one frame per event; ``table.js`` beside it draws a frame in the browser, and
``text_lines`` prints one for ``mallows replay``.

Owns ``frames(record)``: for every event of the record (in order, forfeits included) the table
as it stood just after it, in plain data the replay page draws and ``mallows replay`` prints:

- ``rows``: per seat, per slot ``[value, face_up (0/1), known_by (bit mask of seats)]``;
- ``discard`` (top value or None), ``discard_size``, ``draw_pile``, ``held`` (value, source,
  seat, or None), ``current``, ``phase``, ``round``, ``totals``, ``caller``, ``final_turns``;
- ``text``: the event in words with every card's value marked with the seats that saw it
  (``mallows.games.describe.seen(text, viewer)`` gives the all-seeing words or one seat's), ``actor`` (the seat that
  acted, or None) and ``event``: the record's event itself.

Nothing here re-implements a rule: the engine (``mallows.games.arschmallows``) plays the record's
actions with its deals and reshuffles read back (``ReplayChance``); what each seat knew is the
engine's own ``Knowledge``. A round's last frame shows the rows as they were scored, turned face
up. The engine's events must equal the record's, or ``ReplayMismatch`` says where they part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources

from mallows.errors import ReplayMismatch
from mallows.games import arschmallows
from mallows.games.arschmallows import cards
from mallows.games.base import ReplayChance, replay_chance
from mallows.games.describe import seat_label, seen
from mallows.safetext import brief


__all__ = ["frames", "meta", "script", "seat_views", "text_lines", "view_line", "card_text"]


def card_text(value: int | None) -> str:
    if value is None:
        return "a hidden card"
    name = cards.ACTION_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


class _WatchedChance(ReplayChance):
    """ReplayChance that keeps the table as scored just before the next round is dealt."""

    state = None
    scored = None

    def _watch(self) -> None:
        if self.state is not None:
            self.scored = _snapshot(self.state, scored=True)

    def shuffle(self, stream, round_, cards):  # the game contract's named streams
        if stream == "deal":
            self._watch()
        return super().shuffle(stream, round_, cards)


def _mask(knowledge, card: int, players: int) -> int:
    views = knowledge.views
    return sum(1 << s for s in range(players) if views[s][card] is not None)


def _rows(state, cache: dict) -> list[list]:
    """The rows as drawn, each rebuilt only when the engine says it changed: ``Knowledge``
    bumps a row's version whenever a card moves in or out, turns face up, or a seat learns one
    of its cards. ``cache``: id(Knowledge) -> (that Knowledge, kept alive; seat -> (version,
    row))."""
    n, kn = state.players, state.knowledge
    built = cache.setdefault(id(kn), (kn, {}))[1]
    out = []
    for p, row in enumerate(state.rows):
        version = kn.version[p]
        hit = built.get(p)
        if hit is None or hit[0] != version:
            hit = built[p] = (
                version,
                [[state.values[c], 1 if state.up[c] else 0, _mask(kn, c, n)] for c in row],
            )
        out.append(hit[1])
    return out


def _snapshot(state, scored: bool = False, cache: dict | None = None) -> dict:
    n = state.players
    kn = state.knowledge
    if scored:  # as scored: every card turned over
        rows = [[[state.values[c], 1, _mask(kn, c, n)] for c in row] for row in state.rows]
    else:
        rows = _rows(state, {} if cache is None else cache)
    held = None
    if state.held is not None:
        held = {
            "value": state.values[state.held],
            "source": state.held_source,
            "seat": state.current,
        }
    return {
        "round": state.round if not scored or state.phase is None else state.round,
        "rows": rows,
        "discard": state.discard_values[-1] if state.discard_values else None,
        "discard_size": len(state.discard),
        "draw_pile": len(state.draw),
        "held": held,
        "current": state.current,
        "phase": "scored" if scored else state.phase,
        "totals": list(state.totals),
        "caller": state.caller,
        "final_turns": state.trigger is not None,
    }


class _Words:
    """An action in words, for every viewer: ``None`` (all-seeing) or a seat."""

    def __init__(self, names, knowledge, players):
        self.names, self.kn, self.n = names, knowledge, players

    def who(self, seat) -> str:
        return (
            f"seat {seat} ({self.names[seat]})" if 0 <= seat < len(self.names) else f"seat {seat}"
        )

    def value(self, card: int) -> str:
        """The card's value in words, marked with the seats that saw it (see ``seen``)."""
        return f"[[{card_text(self.kn.values[card])}|{_mask(self.kn, card, self.n)}]]"


def _describe(w: _Words, before: dict, seat: int, action: dict, after_rows) -> str:
    kind = action.get("type")
    me = w.who(seat)
    row = before["rows"][seat]
    v = w.value
    if kind == "peek":
        i, j = action["slots"]
        return f"{me} looks at its slots {i} and {j}: {v(row[i])} and {v(row[j])}"
    if kind == "draw":
        return f"{me} draws {v(before['draw'][-1])} from the draw pile"
    if kind == "take_discard":
        return f"{me} takes the {v(before['discard'][-1])} from the discard pile"
    held = before["held"]
    if kind == "swap":
        s = action["slot"]
        return (
            f"{me} puts the held {v(held)} into slot {s}; the {v(row[s])} that was there "
            f"goes to the discard pile"
        )
    if kind == "refuse":
        s = action["slot"]
        return f"{me} discards the held {v(held)} and turns slot {s} face up: {v(row[s])}"
    if kind == "spy":
        p, s = action["player"], action["slot"]
        whose = "its own" if p == seat else f"{w.who(p)}'s"
        return f"{me} plays the Spy and looks at {whose} slot {s}: {v(before['rows'][p][s])}"
    if kind == "exchange":
        s, p, t = action["slot"], action["player"], action["their_slot"]
        return (
            f"{me} plays the Exchange: its slot {s} ({v(row[s])}) for {w.who(p)}'s slot "
            f"{t} ({v(before['rows'][p][t])})"
        )
    if kind == "play_twice":
        return f"{me} plays Play twice: two extra turns follow"
    if kind == "get_rid":
        slots = action["slots"]
        shown = ", ".join(v(row[i]) for i in slots)
        if len(after_rows[seat]) < len(row):
            return (
                f"{me} gets rid of slots {', '.join(map(str, slots))} ({shown}): they "
                f"match, go to the discard pile, and the held {v(held)} takes slot "
                f"{slots[0]}"
            )
        return (
            f"{me} tries to get rid of slots {', '.join(map(str, slots))} ({shown}): "
            f"they do not match, so they stay and the held {v(held)} joins the row as a "
            f"penalty card"
        )
    if kind == "call":
        return f"{me} calls Arschmallows!"
    if kind == "pass":
        return f"{me} ends its turn"
    return f"{me} plays {action}"


def _round_end_text(w: _Words, event: dict, history: dict) -> str:
    r = event["round"]
    caller = event["caller"]
    reason = {
        "call": "a call",
        "all_face_up": "a row all face up",
        "exhausted": "no cards left to take",
        "turn_limit": "the turn limit",
    }.get(event["reason"], event["reason"])
    parts = []
    for s, score in enumerate(event["scores"]):
        text = f"{w.names[s]} {score}"
        if s == caller:
            raw = history["raw"][s]
            text += (
                f" (caller: {raw} doubled to {score})"
                if history["doubled"]
                else " (caller, not doubled)"
            )
        parts.append(text)
    return f"round {r + 1} ends on {reason}. Scores: " + ", ".join(parts)


def frames(record: dict) -> list[dict]:
    """One frame per event of ``record`` (see the module docstring)."""
    names = list(record["players"])
    n = len(names)
    events = record["events"]
    chance = replay_chance(arschmallows, events, _WatchedChance)
    state = arschmallows.new_state(record["options"], n, chance)
    chance.state = state
    engine = state.events  # grows as actions are applied
    used = 0  # engine events matched so far
    pending: list[dict] = []  # snapshots for engine events not yet matched
    t = state.table_cards
    cache: dict = {}
    out: list[dict] = []
    last = None

    def take(expected: dict) -> dict:
        nonlocal used
        if used >= len(engine) or engine[used] != expected:
            got = engine[used] if used < len(engine) else "nothing"
            raise ReplayMismatch(
                f"event {len(out)} of the record is {expected}, but the "
                f"engine produced {got}: the record does not replay"
            )
        used += 1
        return pending.pop(0)

    pending.append(_snapshot(state, cache=cache))  # the first deal
    for index, event in enumerate(events):
        kind = event.get("type")
        words = _Words(names, state.knowledge, n)
        if kind == "forfeit":
            frame = dict(last or _snapshot(state, cache=cache))
            reason = brief(str(event.get("reason", "")))  # whole in the event
            what = f"forfeits ({event['kind']})" if event.get("kind") else "forfeits"
            text = (
                f"{words.who(event['seat'])} {what}: {reason}. From here a random policy "
                f"plays its seat"
            )
            frame.update(text=text, actor=event["seat"])
        elif kind == "action":
            seat, action = event["seat"], event["action"]
            before = {
                "rows": [list(r) for r in state.rows],
                "draw": list(state.draw),
                "discard": list(state.discard),
                "held": state.held,
            }
            knowledge = state.knowledge
            chance.scored = None
            start = len(engine)
            state.apply(seat, action)
            ended = any(e["type"] == "round_end" for e in engine[start:])
            if ended:
                scored = chance.scored if chance.scored is not None else _snapshot(state, True)
                scored["round"] = engine[start:][
                    [e["type"] for e in engine[start:]].index("round_end")
                ]["round"]
            for e in engine[start:]:
                if e["type"] in ("action", "round_end"):
                    pending.append(scored if ended else _snapshot(state, cache=cache))
                else:
                    pending.append(_snapshot(state, cache=cache))
            frame = dict(take(event))
            after_rows = scored["rows"] if ended else state.rows
            w = _Words(names, knowledge, n)
            frame.update(text=_describe(w, before, seat, action, after_rows), actor=seat)
        else:
            frame = dict(take(event))
            if kind == "deal":
                deck = event["deck"]
                text = (
                    f"round {event['round'] + 1}: {n} rows of {t} cards dealt face down; "
                    f"the discard pile shows {card_text(deck[n * t])}, the draw pile has "
                    f"{len(deck) - n * t - 1} cards"
                )
            elif kind == "reshuffle":
                deck = event["deck"]
                text = (
                    f"the discard pile is shuffled into a new draw pile of {len(deck) - 1} "
                    f"cards; {card_text(deck[0]) if deck else '-'} is turned face up"
                )
            elif kind == "round_end":
                text = _round_end_text(words, event, state.history[event["round"]])
            else:
                text = str(event)
            frame.update(text=text, actor=None)
        frame["event"] = event
        frame["index"] = index
        out.append(frame)
        last = frame
    if used != len(engine):
        raise ReplayMismatch(
            f"the engine produced {len(engine) - used} more events than the "
            f"record holds ({engine[used]}): the record is cut short"
        )
    if not state.is_terminal():
        raise ReplayMismatch("the record ends before the match does: it is cut short")
    return out


# -- the rest of the replay face (mallows.games.faces.ReplayView) ------------------------------


def meta(options: Mapping) -> dict:
    return {}


def script() -> str:
    return resources.files(__package__).joinpath("table.js").read_text(encoding="utf-8")


def seat_views() -> bool:
    return True


def _who(names: Sequence[str], seat: int) -> str:
    return seat_label({"players": names}, seat)


def _row(frame: Mapping, seat: int, viewer: int | None) -> str:
    cells = []
    for value, up, mask in frame["rows"][seat]:
        shown = up or viewer is None or (mask >> viewer) & 1
        cells.append((str(value) if up else f"({value})") if shown else "?")
    return " ".join(cells)


def view_line(names: Sequence[str], viewer: int | None) -> str:
    if viewer is None:
        return "view: all-seeing (every card's value; (v) is face down)"
    return f"view: {_who(names, viewer)}: only the cards it saw, the others as ?"


def text_lines(frame: Mapping, names: Sequence[str], viewer: int | None) -> list[str]:
    """A frame for ``mallows replay``: a deal heads its round and shows the rows as dealt, a
    round's end the rows as scored."""
    kind = frame["event"].get("type")
    lines = ["  " + seen(frame["text"], viewer)]
    if kind == "deal":
        lines.insert(0, f"-- round {frame['event']['round'] + 1} --")
        lines += [f"    {_who(names, s)}: {_row(frame, s, viewer)}" for s in range(len(names))]
    elif kind == "round_end":
        lines += [
            f"    {_who(names, s)}: {' '.join(str(c[0]) for c in frame['rows'][s])}"
            f" = {sum(c[0] for c in frame['rows'][s])}"
            for s in range(len(names))
        ]
    return lines
