"""Arschmallows told in words, as one seat may follow it: what every seat did, each round's
scoring with every row revealed, the running totals.

Owns the game's phrasing of what happened, in one place: ``action_text`` (one action, its
cards' values given as texts or None for a card the reader did not see), ``deal_text``,
``reshuffle_text``, ``forfeit_text`` and ``round_end_lines`` (every row revealed, how each
score was made: the row's sum, the caller doubled or not, and the totals after it); and
``Narrator``, which turns a seat's match events (``mallows.games.arschmallows.events``,
public parts and that seat's private ones) into those lines. The person at the terminal
(``mallows.agents.human``), the browser's play page and the report's replay
(``mallows.games.arschmallows.frames``, which passes values marked with the seats that saw
them) all speak through these functions.

Pure: no I/O; a ``Narrator`` only reads the events it is given.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mallows.games.narration import Narration

from mallows.games.arschmallows import rules
from mallows.games.arschmallows.cards import ACTION_NAMES

__all__ = [
    "Narrator",
    "action_text",
    "card",
    "deal_text",
    "forfeit_text",
    "reshuffle_text",
    "round_end_lines",
]

REASONS = {
    "call": "a call",
    "all_face_up": "a row all face up",
    "exhausted": "no cards left to take",
    "turn_limit": "the turn limit",
}


def card(value: int | None) -> str:
    """A card's value in words (``9 (Spy)``), or ``a hidden card``."""
    if value is None:
        return "a hidden card"
    name = ACTION_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


def _verb(word: str, you: bool) -> str:
    """``draws`` for a seat, ``draw`` for the reader (``you``)."""
    if not you:
        return word
    return {"tries": "try", "has": "have", "goes": "go"}.get(word, word[:-1])


def action_text(who: str, you: bool, kind: str, f: Mapping[str, Any]) -> str:
    """One action of seat ``who`` (``you``: the reader's own) in words. ``f`` holds the
    action's slots and seats as numbers (``slot``, ``slots``, ``their_slot``) and its cards as
    texts, None where the reader did not see the card: ``values`` (peek), ``value`` (draw,
    take, spy), ``held`` (the card used), ``old`` (a swapped-out card), ``face_up``
    (refuse), ``mine``/``theirs`` (exchange), ``revealed`` and ``success`` (get_rid);
    ``whose`` names the other row of a spy or exchange (``seat 2's``, ``your``, ``its own``)."""

    def v(word: str) -> str:
        return _verb(word, you)

    its = "your" if you else "its"

    def shown(text: Any, lead: str = " ") -> str:
        return f"{lead}{text}" if text is not None else ""

    if kind == "peek":
        i, j = f["slots"]
        values = f.get("values")
        seen = f": {values[0]} and {values[1]}" if values else ""
        return f"{who} {v('looks')} at {its} slots {i} and {j}{seen}"
    if kind == "draw":
        value = f.get("value")
        return f"{who} {v('draws')} {value + ' ' if value is not None else ''}from the draw pile"
    if kind == "take_discard":
        return f"{who} {v('takes')} the {f['value']} from the discard pile"
    held = f.get("held")
    held_words = f"the held {held}" if held is not None else "the held card"
    if kind == "swap":
        s = f["slot"]
        return (
            f"{who} {v('puts')} {held_words} into slot {s}; the {f['old']} that was there "
            f"goes to the discard pile"
        )
    if kind == "refuse":
        return (
            f"{who} {v('discards')} {held_words} and {v('turns')} slot {f['slot']} face "
            f"up: {f['face_up']}"
        )
    if kind == "spy":
        return (
            f"{who} {v('plays')} the Spy and {v('looks')} at {f['whose']} slot {f['slot']}"
            + shown(f.get("value"), ": ")
        )
    if kind == "exchange":
        mine, theirs = f.get("mine"), f.get("theirs")
        return (
            f"{who} {v('plays')} the Exchange: {its} slot {f['slot']}{shown(mine and f'({mine})')}"
            f" for {f['whose']} slot {f['their_slot']}{shown(theirs and f'({theirs})')}"
        )
    if kind == "play_twice":
        return f"{who} {v('plays')} Play twice: two extra turns follow"
    if kind == "get_rid":
        slots = ", ".join(map(str, f["slots"]))
        revealed = f"{', '.join(map(str, f['revealed']))}"
        if f["success"]:
            return (
                f"{who} {v('gets')} rid of slots {slots} ({revealed}): they match, go to the "
                f"discard pile, and {held_words} takes slot {f['slots'][0]}"
            )
        return (
            f"{who} {v('tries')} to get rid of slots {slots} ({revealed}): they do not match, "
            f"so they stay and {held_words} joins the row as a penalty card"
        )
    if kind == "call":
        return f"{who} {v('calls')} Arschmallows!"
    if kind == "pass":
        return f"{who} {v('ends')} {its} turn"
    return f"{who} {v('plays')} {kind}"


def deal_text(round_: int, rounds: Any, players: int, table_cards: int, **f: Any) -> str:
    """A round's deal: ``discard`` (the first discard card's text), ``draw_pile`` (count),
    ``starter`` (``seat 1 starts``) where known."""
    starter = f.get("starter")
    return (
        f"round {round_ + 1}{' of ' + str(rounds) if rounds else ''}: {players} rows of "
        f"{table_cards} cards dealt face down; the discard pile shows {f['discard']}, the draw "
        f"pile has {f['draw_pile']} cards" + (f"; {starter}" if starter else "")
    )


def reshuffle_text(discard: str, draw_pile: int) -> str:
    return (
        f"the discard pile is shuffled into a new draw pile of {draw_pile} cards; {discard} "
        f"is turned face up"
    )


def forfeit_text(who: str, kind: str | None, reason: str | None = None) -> str:
    what = f"forfeits ({kind})" if kind else "forfeits"
    return (
        f"{who} {what}"
        + (f": {reason}" if reason else "")
        + (". From here a random policy plays its seat")
    )


def round_end_lines(
    event: Mapping[str, Any],
    totals_before: Sequence[int],
    names: Sequence[str],
    options: Mapping[str, Any],
) -> list[str]:
    """A round's end (a ``round_end`` match event: ``round``, ``reason``, ``caller``,
    ``scores``, ``rows``): why it ended, then per seat its row revealed, the row's sum, the
    caller's doubling or not, the round score and the total after it; the round's winners.
    ``names``: each seat in words (``you``, ``seat 1 (greedy)``)."""
    caller = event.get("caller")
    scores = list(event["scores"])
    rows = [list(r) for r in event["rows"]]
    raw = [sum(r) for r in rows]
    reason = REASONS.get(event["reason"], str(event["reason"]))
    head = f"round {event['round'] + 1} ends on {reason}"
    if caller is not None:
        head += f" ({names[caller]} called)"
    lines = [head + "; every row is revealed:"]
    totals = [t + s for t, s in zip(totals_before, scores)]
    for s, row in enumerate(rows):
        sum_text = (" + ".join(str(x) for x in row) or "no cards") + f" = {raw[s]}"
        if s == caller:
            others = [raw[o] for o in range(len(raw)) if o != s]
            strict = options.get("caller_strictly_lowest", True)
            lowest = not others or (raw[s] < min(others) if strict else raw[s] <= min(others))
            if scores[s] != raw[s]:
                why = "not strictly the lowest" if strict else "not the lowest"
                sum_text += f"; caller: {raw[s]} doubled to {scores[s]} ({why})"
            elif lowest:
                sum_text += "; caller, not doubled (the lowest)"
            else:
                sum_text += "; caller, not doubled (a score of 0 or less is never doubled)"
        lines.append(
            f"  {names[s]}: {sum_text} -> round score {scores[s]}, total "
            f"{totals_before[s]} + {scores[s]} = {totals[s]}"
        )
    winners = rules.round_winners(scores)
    lines.append(
        "  round won by "
        + " and ".join(names[w] for w in winners)
        + f" with {scores[winners[0]]}; totals: "
        + ", ".join(f"{names[s]} {t}" for s, t in enumerate(totals))
    )
    return lines


class Narrator(Narration):
    """A seat's Arschmallows events in words (``mallows.games.narration.Narration``);
    ``totals`` are the running totals after the events told."""

    def setup(self) -> None:
        self.totals = [0] * self.players
        self._held: str | None = None  # the held card's text, if the reader saw it

    def lines(self, e: Mapping[str, Any]) -> list[str]:
        """One event's lines (one, or a round end's several)."""
        kind = e["type"]
        private = e.get("private") or {}
        if kind == "deal":
            t = int(self.options["table_cards"])
            self._held = None
            return [
                deal_text(
                    e["round"],
                    self.options.get("rounds"),
                    self.players,
                    t,
                    discard=card(e["discard"]),
                    draw_pile=e["draw_pile"],
                    starter=f"{self.who(e['starting_seat'])} "
                    + _verb("starts", e["starting_seat"] == self.seat),
                )
            ]
        if kind == "reshuffle":
            return [reshuffle_text(card(e["discard"]), e["draw_pile"])]
        if kind == "forfeit":
            return [forfeit_text(self.who(e["seat"]), e.get("kind"))]
        if kind == "round_end":
            before = list(self.totals)
            self.totals = [t + s for t, s in zip(self.totals, e["scores"])]
            names = [self.who(s) for s in range(self.players)]
            return round_end_lines(e, before, names, self.options)
        seat = e["seat"]
        you = seat == self.seat
        f: dict[str, Any] = dict(e)
        f["held"] = self._held
        if kind == "peek":
            values = private.get("values")
            f["values"] = [card(x) for x in values] if values else None
        elif kind == "draw":
            value = private.get("value")
            self._held = f["value"] = card(value) if value is not None else None
        elif kind == "take_discard":
            self._held = f["value"] = card(e["value"])
        elif kind == "swap":
            f["old"] = card(e["discarded"])
        elif kind == "refuse":
            f["held"] = card(e["discarded"])
            f["face_up"] = card(e["face_up"])
        elif kind in ("spy", "exchange"):
            other = e["player"]
            f["whose"] = "its own" if other == seat else f"{self.who(other)}'s"
            if other == self.seat and not you:
                f["whose"] = "your"
            f["held"] = card(e["discarded"])
            if kind == "spy":
                value = private.get("value")
                f["value"] = card(value) if value is not None else None
        elif kind == "play_twice":
            f["held"] = card(e["discarded"])
        elif kind == "get_rid":
            f["revealed"] = [card(x) for x in e["revealed"]]
        if kind in ("swap", "refuse", "spy", "exchange", "play_twice", "get_rid"):
            self._held = None
        return [action_text(self.who(seat), you, kind, f)]

    def final_lines(self, result: Mapping[str, Any] | None = None) -> list[str]:
        """The match's end: every seat's total."""
        return [
            "final totals: " + ", ".join(f"{self.who(s)} {t}" for s, t in enumerate(self.totals))
        ]
