"""A person at the table: the ``human`` bot, an in-process handle that reads a terminal.

``mallows play take4 --bot human --bot greedy`` (or ``human`` as a seat in a tournament file,
for a small human league). At each decision the person is shown exactly their seat's
observation, drawn as the card table (``mallows.games.views``), and the legal actions as a
numbered list in words; they answer with a number or a typed action (``swap 3``, ``pick 2``,
or the action as JSON). An answer the game would refuse is explained and asked again, so a
person never forfeits for a typo; Arschmallows' ``get_rid`` asks for the slots in reveal order.
Nothing but the observation reaches this handle: it holds no engine state.

Parameters: ``human:seconds=60`` gives each decision a time limit (none by default; a
decision over it is a forfeit, as for a bot: the seat is then played by the random policy);
``human:name=Ada`` the name shown at the table. Ctrl-C raises ``KeyboardInterrupt`` out of the
match (the runner closes every bot; ``mallows play`` says the match was abandoned). End of
input (the terminal closed) is a forfeit of kind ``exit``.
"""

from __future__ import annotations

import select
import sys
import time
from collections.abc import Callable, Mapping
from typing import Any, TextIO

from mallows.agents.protocol import BotFailure
from mallows.games.views import action_words, narrator, parse_action, table_lines, typing_help

__all__ = ["NAME", "HumanSeat", "Narrated", "WebSeat", "check", "choose"]

NAME = "human"


def _same(a: Mapping, b: Mapping) -> bool:
    if a.get("type") == "peek" and b.get("type") == "peek":
        return sorted(a.get("slots") or []) == sorted(b.get("slots") or [])
    return dict(a) == dict(b)


def check(observation: Mapping, action: Any) -> tuple[dict | None, str | None]:
    """``(action, None)`` when ``action`` is one of the observation's legal actions (a
    ``get_rid`` when its slots are two or more distinct ones of ``choose_from``), else
    ``(None, why)``: a refusal in words."""
    legal = observation["legal_actions"]
    if not isinstance(action, dict):
        return None, "an action is one of the listed ones: give its number"
    if action.get("type") == "get_rid":
        template = next((a for a in legal if a["type"] == "get_rid"), None)
        if template is None:
            return None, "get_rid is not possible now"
        slots = action.get("slots")
        if not isinstance(slots, list) or not all(isinstance(s, int) for s in slots):
            return None, "get_rid names slot numbers, e.g. `get_rid 1 4`"
        allowed = template["choose_from"]
        if len(slots) < 2 or len(set(slots)) != len(slots):
            return None, "get_rid needs two or more different slots, in reveal order"
        bad = [s for s in slots if s not in allowed]
        if bad:
            return None, (
                f"slot {bad[0]} is not one of your face-down slots ({', '.join(map(str, allowed))})"
            )
        return {"type": "get_rid", "slots": list(slots)}, None
    for candidate in legal:
        if candidate.get("type") != "get_rid" and _same(candidate, action):
            return dict(candidate), None
    kinds = sorted({a["type"] for a in legal})
    if action.get("type") not in kinds:
        return None, (
            f"{action.get('type')!r} is not possible now: the possible kinds are {', '.join(kinds)}"
        )
    return None, "that is not one of the legal actions listed"


def choose(observation: Mapping, ask: Callable[[str], str], say: Callable[[str], None]) -> dict:
    """Ask until the answer is a legal action, and return it. ``ask(prompt)`` returns a line
    (raising ``EOFError`` at the end of input); ``say(text)`` shows a line."""
    legal = observation["legal_actions"]
    for line in table_lines(observation):
        say(line)
    say("your actions:")
    for k, action in enumerate(legal, 1):
        say(f"  {k:>3}. {action_words(observation, action)}")
    while True:
        text = ask(f"your action (1-{len(legal)}, or type it; ? for help): ").strip()
        if not text:
            continue
        if text in ("?", "help"):
            say(
                "give the number of an action from the list, or type an action: "
                + (typing_help(observation) or "")
                + ', or the action as JSON, e.g. {"type": "pass"}; Ctrl-C ends the match'
            )
            continue
        if text.isdigit():
            k = int(text)
            if not 1 <= k <= len(legal):
                say(f"there is no action {k}: choose 1 to {len(legal)}")
                continue
            action = dict(legal[k - 1])
            if action["type"] == "get_rid":  # the one template: the slots come next
                slots = ask(
                    f"slots to get rid of, in reveal order (of "
                    f"{', '.join(map(str, action['choose_from']))}): "
                )
                try:
                    action = {
                        "type": "get_rid",
                        "slots": [int(w) for w in slots.replace(",", " ").split()],
                    }
                except ValueError:
                    say("slots are numbers separated by spaces, e.g. 1 4")
                    continue
        else:
            try:
                action = parse_action(observation, text)
            except ValueError as exc:
                say(f"not understood: {exc}")
                continue
        chosen, why = check(observation, action)
        if chosen is not None:
            return chosen
        say(f"refused: {why}; try again")


class Narrated:
    """What a person's seat is told between its turns: it speaks protocol 2 (the runner hands
    it its match events since its last decision) and turns them into the game's narration
    (``mallows.games.views.narrator``). ``story`` holds every line so far; ``begin(info)``,
    ``hear(observation, events)`` (the protocol-1-shaped observation the views draw, and the
    new lines) and ``finish(info)`` (the last lines: the last round's scoring, the totals)."""

    protocol = 2
    history = "delta"
    observation_mode = "full"

    def begin(self, info: Mapping[str, Any]) -> None:
        from mallows.agents.history import start_info

        self.story: list[str] = []
        self._narrator = narrator(info)
        # the keys a protocol-2 observation leaves out, put back for the views
        full = start_info(info, self.history)
        self._fixed = {
            k: v for k, v in full.items() if k not in ("protocol", "history", "seed", "names")
        }
        self._fixed["protocol"] = 1

    def hear(self, observation: Mapping, events: list | None) -> tuple[dict, list[str]]:
        lines = self._narrator.add(events or []) if self._narrator is not None else []
        self.story.extend(lines)
        return {**observation, **self._fixed}, lines

    def finish(self, info: Mapping[str, Any]) -> list[str]:
        lines: list[str] = []
        if self._narrator is not None:
            lines = self._narrator.add(info.get("events") or [])
            lines += self._narrator.final_lines(info.get("result"))
        self.story.extend(lines)
        return lines


class HumanSeat(Narrated):
    """The ``BotHandle`` of a person at a terminal (``stdin``/``stdout`` by default)."""

    def __init__(
        self,
        name: str = NAME,
        seconds: float | str | None = None,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        **params: Any,
    ):
        unknown = sorted(set(params) - {"name"})
        if unknown:
            raise ValueError(
                f"human: unknown parameter {unknown[0]!r}: the parameters are "
                f"seconds (a time limit per decision) and name"
            )
        self.name = name
        self.shown = str(params.get("name") or "you")
        self.limit: float | None = None
        if seconds not in (None, ""):
            try:
                self.limit = float(seconds)
            except ValueError:
                raise ValueError(
                    f"human: seconds must be a number, got {seconds!r} (for "
                    f"example human:seconds=60)"
                ) from None
            if not 1 <= self.limit <= 86400:
                raise ValueError(f"human: seconds={seconds} is out of range 1..86400")
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.isolation = "in-process"
        self.seat: int | None = None
        self.names: list[str] = []

    def _say(self, text: str) -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def _ask(self, prompt: str, deadline: float | None) -> str:
        self.stdout.write(prompt)
        self.stdout.flush()
        if deadline is not None:
            left = deadline - time.monotonic()
            try:
                ready = select.select([self.stdin], [], [], max(0.0, left))[0]
            except (OSError, ValueError, TypeError):  # not a file descriptor: no clock
                ready = [self.stdin]
            if not ready:
                self._say("")
                raise BotFailure(
                    f"no answer within {self.limit:g} s (the seat's time limit, human:seconds)",
                    kind="timeout",
                )
        line = self.stdin.readline()
        if line == "":
            raise EOFError
        return line.rstrip("\n")

    def start(self, info: dict) -> None:
        if getattr(self.stdin, "closed", False):
            raise BotFailure("a human seat needs a terminal to read from", kind="error")
        self.seat, self.names = info["seat"], list(info.get("names") or [])
        self.begin(info)
        others = ", ".join(f"seat {s} {n}" for s, n in enumerate(self.names) if s != self.seat)
        self._say(
            f"== {info['game']}: {self.shown} at seat {self.seat} of {info['players']}"
            + (f", against {others}" if others else "")
            + " =="
        )

    def act(self, observation: dict, events: list | None = None) -> dict:
        deadline = None if self.limit is None else time.monotonic() + self.limit
        observation, lines = self.hear(observation, events)
        self._say("")
        for line in lines:
            self._say(line)
        if lines:
            self._say("")
        try:
            return choose(observation, lambda p: self._ask(p, deadline), self._say)
        except EOFError:
            raise BotFailure("the person left: end of input", kind="exit") from None

    def end(self, info: dict) -> None:
        self._say("")
        for line in self.finish(info):
            self._say(line)
        result = info.get("result") or {}
        ranks = result.get("ranks") or []
        seat = info.get("seat")
        if isinstance(seat, int) and seat < len(ranks):
            self._say(f"== match over: you are placed {ranks[seat] + 1} of {len(ranks)} ==")

    def close(self) -> None:
        pass


class WebSeat(Narrated):
    """The ``BotHandle`` of a person at the browser play page (``mallows serve``): ``act``
    publishes the seat's observation and waits for ``answer`` (called by the page's request)
    to bring a legal action; a refused answer is returned as its reason, and ``act`` goes
    on waiting. ``abandon()`` ends the wait: the seat forfeits (kind ``exit``) and the random
    policy plays it to the end. No time limit unless ``seconds``."""

    def __init__(self, name: str = NAME, seconds: float | None = None):
        import threading

        self.name = name
        self.limit = seconds
        self.isolation = "in-process"
        self._cv = threading.Condition()
        self.observation: dict | None = None  # the decision waiting for the person
        self._answer: dict | None = None
        self._gone = False
        self.decisions = 0
        self.story: list[str] = []

    def start(self, info: dict) -> None:
        with self._cv:
            self.begin(info)

    def act(self, observation: dict, events: list | None = None) -> dict:
        deadline = None if self.limit is None else time.monotonic() + self.limit
        with self._cv:
            observation, _ = self.hear(observation, events)
            self.observation, self._answer = observation, None
            self.decisions += 1
            self._cv.notify_all()
            while self._answer is None:
                if self._gone:
                    self.observation = None
                    raise BotFailure("the person left the play page", kind="exit")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    self.observation = None
                    raise BotFailure(f"no answer within {self.limit:g} s", kind="timeout")
                self._cv.wait(timeout=left if left is not None else 1.0)
            answer, self._answer, self.observation = self._answer, None, None
            self._cv.notify_all()
            return answer

    def answer(self, action: Any) -> str | None:
        """Hand the waiting decision an action: ``None`` when taken, else why it is refused."""
        with self._cv:
            if self.observation is None:
                return "it is not your turn"
            chosen, why = check(self.observation, action)
            if chosen is None:
                return why
            self._answer = chosen
            self._cv.notify_all()
            return None

    def told(self) -> list[str]:
        """The narration so far (a copy: the match's thread adds to it)."""
        with self._cv:
            return list(self.story)

    def wait_for_turn(self, after: int, timeout: float) -> None:
        """Block until a decision later than number ``after`` waits, or ``timeout``."""
        end = time.monotonic() + timeout
        with self._cv:
            while not (self.observation is not None and self.decisions > after) and not self._gone:
                left = end - time.monotonic()
                if left <= 0 or not self._cv.wait(timeout=left):
                    return

    def abandon(self) -> None:
        with self._cv:
            self._gone = True
            self._cv.notify_all()

    def end(self, info: dict) -> None:
        with self._cv:
            if "result" in info:  # the runner's match end (the room's own call passes {})
                self.finish(info)
            self._cv.notify_all()

    def close(self) -> None:
        pass
