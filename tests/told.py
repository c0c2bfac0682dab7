"""What a person is told between their turns (issue 34 item 1), checked against the record of
the match: every other seat's action in its words, in order, never a value the person did not
see; every round's end with each row summed, the round score and the running total."""

from __future__ import annotations

import re

#: an opponent's action as the narration words it, by action type
OPPONENT_WORDS = {
    "peek": lambda a: rf"looks at its slots {a['slots'][0]} and {a['slots'][1]}$",
    "draw": lambda a: r"draws from the draw pile$",
    "take_discard": lambda a: r"takes the -?\d+( \(\w[\w ]*\))? from the discard pile$",
    "swap": lambda a: rf"puts the held .* into slot {a['slot']}; the .* goes to the discard pile$",
    "refuse": lambda a: rf"discards the held .* and turns slot {a['slot']} face up: -?\d+",
    "spy": lambda a: rf"plays the Spy and looks at .*slot {a['slot']}$",
    "exchange": lambda a: rf"plays the Exchange: its slot {a['slot']} for .*slot {a['their_slot']}",
    "play_twice": lambda a: r"plays Play twice: two extra turns follow$",
    "get_rid": lambda a: rf"rid of slots {', '.join(map(str, a['slots']))} ",
    "call": lambda a: r"calls Arschmallows!$",
    "pass": lambda a: r"ends its turn$",
}


def check_arschmallows(story: list[str], record: dict, me: int) -> None:
    """``story``: the lines the person at seat ``me`` was shown, in order."""
    story = [line.rstrip() for line in story]
    names = record["players"]
    n = len(names)
    for seat in range(n):
        if seat == me:
            continue
        who = f"seat {seat} ({names[seat]}) "
        said = [line[len(who) :] for line in story if line.startswith(who)]
        done = [e["action"] for e in record["events"] if e.get("seat") == seat and "action" in e]
        assert len(said) == len(done) > 0, (said, done)
        for line, action in zip(said, done):
            assert re.search(OPPONENT_WORDS[action["type"]](action), line), (line, action)
        drawn = [line for line in said if line.startswith("draws")]
        assert all(not re.search(r"\d", line) for line in drawn)  # never the hidden value
    totals = [0] * n
    ends = [e for e in record["events"] if e["type"] == "round_end"]
    assert len(ends) == record["options"]["rounds"]
    for e in ends:
        head = f"round {e['round'] + 1} ends on"
        at = story.index(next(line for line in story if line.startswith(head)))
        for seat, score in enumerate(e["scores"]):
            line = story[at + 1 + seat]
            before, totals[seat] = totals[seat], totals[seat] + score
            who = "you" if seat == me else f"seat {seat}"
            assert re.match(rf"\s*{who}.*: (-?\d+ \+ )*-?\d+ = -?\d+", line), line
            assert line.endswith(f"round score {score}, total {before} + {score} = {totals[seat]}")
            if seat == e["caller"]:
                assert "caller" in line
    final = ", ".join(
        f"{'you' if s == me else f'seat {s} ({names[s]})'} {t}" for s, t in enumerate(totals)
    )
    assert f"final totals: {final}" in story
