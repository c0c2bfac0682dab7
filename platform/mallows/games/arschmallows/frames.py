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
from typing import TYPE_CHECKING

from mallows.errors import ReplayMismatch
from mallows.games import arschmallows
from mallows.games.arschmallows import narration
from mallows.games.base import ReplayChance, replay_chance
from mallows.games.describe import seat_label, seen
from mallows.safetext import brief

if TYPE_CHECKING:
    from mallows.games.arschmallows.observation import Knowledge
    from mallows.games.arschmallows.state import ArschmallowsState


__all__ = ["frames", "meta", "script", "seat_views", "text_lines", "view_line", "card_text"]


card_text = narration.card


class _WatchedChance(ReplayChance):
    """ReplayChance that keeps the table as scored just before the next round is dealt."""

    state = None
    scored = None

    def _watch(self) -> None:
        if self.state is not None:
            self.scored = _snapshot(self.state, scored=True)

    def shuffle(self, stream: str, round_: int, cards: Sequence) -> list:  # named streams
        if stream == "deal":
            self._watch()
        return super().shuffle(stream, round_, cards)


def _mask(knowledge: Knowledge, card: int, players: int) -> int:
    views = knowledge.views
    return sum(1 << s for s in range(players) if views[s][card] is not None)


def _rows(state: ArschmallowsState, cache: dict) -> list[list]:
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


def _snapshot(state: ArschmallowsState, scored: bool = False, cache: dict | None = None) -> dict:
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

    def __init__(self, names: Sequence[str], knowledge: Knowledge, players: int) -> None:
        self.names, self.kn, self.n = names, knowledge, players

    def who(self, seat: int) -> str:
        return (
            f"seat {seat} ({self.names[seat]})" if 0 <= seat < len(self.names) else f"seat {seat}"
        )

    def value(self, card: int) -> str:
        """The card's value in words, marked with the seats that saw it (see ``seen``)."""
        return f"[[{card_text(self.kn.values[card])}|{_mask(self.kn, card, self.n)}]]"


def _describe(w: _Words, before: dict, seat: int, action: dict, after_rows: list[list]) -> str:
    """The action in the game's words (``narration.action_text``), every card's value marked
    with the seats that saw it."""
    kind = str(action.get("type"))
    row = before["rows"][seat]
    v = w.value
    f: dict = dict(action)
    held = before["held"]
    f["held"] = v(held) if held is not None else None
    if kind == "peek":
        f["values"] = [v(row[i]) for i in action["slots"]]
    elif kind == "draw":
        f["value"] = v(before["draw"][-1])
    elif kind == "take_discard":
        f["value"] = v(before["discard"][-1])
    elif kind == "swap":
        f["old"] = v(row[action["slot"]])
    elif kind == "refuse":
        f["face_up"] = v(row[action["slot"]])
    elif kind in ("spy", "exchange"):
        p = action["player"]
        f["whose"] = "its own" if p == seat else f"{w.who(p)}'s"
        if kind == "spy":
            f["value"] = v(before["rows"][p][action["slot"]])
        else:
            f["mine"] = v(row[action["slot"]])
            f["theirs"] = v(before["rows"][p][action["their_slot"]])
    elif kind == "get_rid":
        f["revealed"] = [v(row[i]) for i in action["slots"]]
        f["success"] = len(after_rows[seat]) < len(row)
    return narration.action_text(w.who(seat), False, kind, f)


def _round_end_text(w: _Words, event: dict, scored: dict, options: dict) -> str:
    """A round's end in the game's words (``narration.round_end_lines``): every row as scored,
    each score's making, the totals after it; one line each."""
    rows = [[c[0] for c in row] for row in scored["rows"]]
    totals_before = [t - s for t, s in zip(scored["totals"], event["scores"])]
    names = [w.who(s) for s in range(w.n)]
    return "\n".join(
        narration.round_end_lines(dict(event, rows=rows), totals_before, names, options)
    )


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
            text = narration.forfeit_text(words.who(event["seat"]), event.get("kind"), reason)
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
                text = narration.deal_text(
                    event["round"],
                    None,
                    n,
                    t,
                    discard=card_text(deck[n * t]),
                    draw_pile=len(deck) - n * t - 1,
                    starter=f"{words.who(frame['current'])} starts"
                    if frame.get("current") is not None
                    else None,
                )
            elif kind == "reshuffle":
                deck = event["deck"]
                text = narration.reshuffle_text(card_text(deck[0]) if deck else "-", len(deck) - 1)
            elif kind == "round_end":
                text = _round_end_text(words, event, frame, record["options"])
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
    round's end is the narration's lines (every row revealed and how each score was made)."""
    kind = frame["event"].get("type")
    if kind == "round_end":  # the narration's lines: every row revealed and summed, the totals
        return ["  " + line for line in seen(frame["text"], viewer).splitlines()]
    lines = ["  " + seen(frame["text"], viewer)]
    if kind == "deal":
        lines.insert(0, f"-- round {frame['event']['round'] + 1} --")
        lines += [f"    {_who(names, s)}: {_row(frame, s, viewer)}" for s in range(len(names))]
    return lines
