"""An Arschmallows seat's view in words (see ``mallows.games.views``): every row as the seat
sees it (a face-up card's value, ``(v)`` for a face-down card it has seen, ``?`` for one it
has not), the piles, the held card; each legal action in words; a typed action read back
(``swap 3``, ``spy 1 4``, ``exchange 0 2 5``, ``get_rid 1 4 5``, ``peek 0 3``, ``draw``, ...).
"""

from __future__ import annotations

from collections.abc import Mapping

from mallows.games.arschmallows.cards import ACTION_NAMES

PHASE = {
    "peek": "look at two of your cards",
    "take": "take a card",
    "use": "use the held card",
    "end": "call or end the turn",
}


def card(value: int | None) -> str:
    if value is None:
        return "a hidden card"
    name = ACTION_NAMES.get(value)
    return f"{value} ({name})" if name else str(value)


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _who(observation: Mapping, seat: int) -> str:
    return "you" if seat == observation.get("seat") else f"seat {seat}"


def table_lines(observation: Mapping) -> list[str]:
    me, players = observation["seat"], observation["players"]
    options = observation.get("options") or {}
    current = observation.get("current_seat")
    phase = observation.get("phase")
    head = (
        f"arschmallows ({observation.get('rules')}) · round {observation['round'] + 1} of "
        f"{options.get('rounds', '?')} · you are seat {me}"
    )
    lines = [head]
    if phase in PHASE and isinstance(current, int):
        who = "your turn" if current == me else f"seat {current}'s turn"
        lines.append(
            f"{who}: {PHASE[phase]}"
            + (
                f" (+{observation['extra_turns']} extra turns)"
                if observation.get("extra_turns")
                else ""
            )
        )
    if observation.get("caller") is not None:
        lines.append(
            f"{_who(observation, observation['caller'])} called: final turns"
            if observation.get("final_turns")
            else f"{_who(observation, observation['caller'])} called"
        )
    elif observation.get("final_turns"):
        lines.append("final turns")
    discard = observation.get("discard") or []
    held = observation.get("held")
    lines.append(
        f"discard pile: {card(discard[-1]) if discard else 'empty'}"
        f" ({_cards(len(discard))}) · draw pile: {_cards(observation['draw_pile'])}"
        + (f" · you hold {card(held['value'])} (from the {held['source']} pile)" if held else "")
    )
    rows = observation["rows"]
    width = max((len(r) for r in rows), default=0)
    label = max(len(f"seat {s} (you)") for s in range(players))
    lines.append(" " * (label + 4) + " ".join(f"{j:>4}" for j in range(width)) + "   slot")
    for s, row in enumerate(rows):
        cells = []
        for c in row:
            v = c["value"]
            cells.append(
                f"{v:>4}"
                if c["face_up"]
                else f"{'(' + str(v) + ')':>4}"
                if v is not None
                else f"{'?':>4}"
            )
        name = f"seat {s} (you)" if s == me else f"seat {s}"
        score = observation["scores"][s]
        lines.append(f"  {name:<{label}}: " + " ".join(cells) + f"   total {score}")
    lines.append(
        "  (v) face down, seen by you · ? face down, unseen · 9 Spy, 10 Exchange, 11 Play twice"
    )
    return lines


def _your(observation: Mapping, seat: int) -> str:
    return "your" if seat == observation.get("seat") else f"seat {seat}'s"


def _slot(observation: Mapping, seat: int, slot: int) -> str:
    try:
        value = observation["rows"][seat][slot]["value"]
    except (IndexError, KeyError, TypeError):
        value = None
    return f"{_your(observation, seat)} slot {slot}" + (f" ({value})" if value is not None else "")


def action_words(observation: Mapping, action: Mapping) -> str:
    kind = action.get("type")
    me = int(observation["seat"])
    held = observation.get("held")
    holding = f" ({card(held['value'])})" if held else ""
    discard = observation.get("discard") or []
    if kind == "peek":
        i, j = action["slots"]
        return f"look at your slots {i} and {j}"
    if kind == "draw":
        return f"draw from the draw pile ({observation.get('draw_pile')} cards)"
    if kind == "take_discard":
        return f"take the top of the discard pile ({card(discard[-1]) if discard else '-'})"
    if kind == "swap":
        return f"swap the held card{holding} into {_slot(observation, me, action['slot'])}"
    if kind == "refuse":
        return (
            f"discard the held card{holding} and turn "
            f"{_slot(observation, me, action['slot'])} face up"
        )
    if kind == "spy":
        return f"spy: look at {_slot(observation, action['player'], action['slot'])}"
    if kind == "exchange":
        return (
            f"exchange {_slot(observation, me, action['slot'])} with "
            f"{_slot(observation, action['player'], action['their_slot'])}"
        )
    if kind == "play_twice":
        return "play twice: discard it and take two extra turns"
    if kind == "get_rid":
        slots = action.get("slots")
        if slots is not None:
            return f"get rid of your slots {', '.join(map(str, slots))} (revealed in this order)"
        return (
            f"get rid of matching cards: name two or more of your face-down slots "
            f"{', '.join(map(str, action['choose_from']))} in reveal order"
        )
    if kind == "call":
        return "call Arschmallows! (the others get their final turns)"
    if kind == "pass":
        return "end your turn"
    return str(dict(action))


_SHAPES = {
    "peek": ["slots", "slots"],
    "swap": ["slot"],
    "refuse": ["slot"],
    "spy": ["player", "slot"],
    "exchange": ["slot", "player", "their_slot"],
}
_WORDS = {
    "take": "take_discard",
    "discard": "take_discard",
    "twice": "play_twice",
    "getrid": "get_rid",
    "rid": "get_rid",
}


def typing_help() -> str:
    """The short forms ``parse_action`` reads, for a person's ``?``."""
    return (
        "`draw`, `take`, `swap 3`, `refuse 3`, `spy 1 4`, `exchange 0 2 5`, "
        "`get_rid 1 4`, `twice`, `peek 0 3`, `call`, `pass`"
    )


def parse_action(observation: Mapping, text: str) -> dict:
    words = text.lower().replace(",", " ").split()
    if not words:
        raise ValueError("type an action's number, or an action such as `draw` or `swap 3`")
    kind = _WORDS.get(words[0].replace("-", "_"), words[0].replace("-", "_"))
    try:
        numbers = [int(w) for w in words[1:]]
    except ValueError:
        raise ValueError(f"after {words[0]!r} come slot and seat numbers, e.g. `swap 3`") from None
    if kind in ("draw", "take_discard", "play_twice", "call", "pass"):
        if numbers:
            raise ValueError(f"{kind} takes no numbers")
        return {"type": kind}
    if kind == "get_rid":
        return {"type": "get_rid", "slots": numbers}
    if kind in _SHAPES:
        keys = _SHAPES[kind]
        if len(numbers) != len(keys):
            examples = {
                "peek": "peek 0 3",
                "swap": "swap 3",
                "refuse": "refuse 3",
                "spy": "spy SEAT SLOT, e.g. spy 1 4",
                "exchange": "exchange YOUR_SLOT SEAT THEIR_SLOT, e.g. exchange 0 2 5",
            }
            raise ValueError(f"{kind} takes {len(keys)} numbers: {examples[kind]}")
        if kind == "peek":
            return {"type": "peek", "slots": numbers}
        return {"type": kind, **dict(zip(keys, numbers))}
    raise ValueError(
        f"unknown action {words[0]!r}: the actions are draw, take (the discard), "
        f"swap N, refuse N, spy SEAT N, exchange N SEAT M, twice, get_rid N M ..., "
        f"peek N M, call, pass"
    )
