"""A Take4 seat's view in words (see ``mallows.games.views``): the four positions, every
seat's collection by squad, the last round's picks; a pick in words; ``pick 2`` or ``2`` read
back."""

from __future__ import annotations

from collections.abc import Mapping

from mallows.games.take4.cards import SQUAD_OF, SQUADS


def _who(observation: Mapping, seat: int) -> str:
    return f"seat {seat} (you)" if seat == observation.get("seat") else f"seat {seat}"


def table_lines(observation: Mapping) -> list[str]:
    lines = [
        (
            f"take4 · round {int(observation['round']) + 1} · {observation['deck']} cards "
            f"left in the deck · you are seat {observation['seat']}"
        )
    ]
    history = observation.get("history") or []
    if history:
        last = history[-1]
        picks = ", ".join(f"{_who(observation, s)} {p}" for s, p in enumerate(last["picks"]))
        lines.append(f"last round: picks {picks}")
        for race in last.get("races") or []:
            lines.append(
                f"  race for position {race['position']} between seats "
                f"{', '.join(map(str, race['contenders']))}: seat {race['winner']} "
                f"took it"
            )
    lines.append("positions:")
    for k, name in enumerate(observation["positions"]):
        shown = f"{name} ({SQUAD_OF[name]})" if name else "- (empty)"
        lines.append(f"  {k + 1}: {shown}")
    lines.append("collections (distinct characters of each squad, 4 complete one):")
    for seat, held in enumerate(observation["collections"]):
        parts = []
        for squad, members in SQUADS.items():
            have = [n for n in members if n in held]
            parts.append(f"{squad} {len(have)}/4" + (f" [{', '.join(have)}]" if have else ""))
        lines.append(f"  {_who(observation, seat)}: " + " · ".join(parts))
    return lines


def action_words(observation: Mapping, action: Mapping) -> str:
    position = action.get("position")
    positions = observation.get("positions") or []
    name = (
        positions[position - 1]
        if isinstance(position, int) and 1 <= position <= len(positions)
        else None
    )
    return f"pick position {position}" + (f": {name} ({SQUAD_OF[name]})" if name else "")


def typing_help() -> str:
    """The short forms ``parse_action`` reads, for a person's ``?``."""
    return "`pick 2`"


def parse_action(observation: Mapping, text: str) -> dict:
    words = text.lower().split()
    if words and words[0] == "pick":
        words = words[1:]
    if len(words) == 1 and words[0].isdigit():
        return {"type": "pick", "position": int(words[0])}
    raise ValueError(
        "a pick is written `pick 2` (position 2), or give the action's number from the list"
    )
