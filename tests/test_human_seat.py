"""The human seat (``--bot human``): a scripted person plays whole matches of both games
through a pseudo-terminal and the real console script, gets refusals explained, and Ctrl-C
ends the match cleanly; the answer checker as a table test."""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import time
import json

import pytest

import told
from conftest import MALLOWS
from mallows.agents.human import check, choose
from mallows.agents.registry import load_bot
from mallows.errors import BotError

PROMPT = re.compile(rb"your action \(1-(\d+), or type it; \? for help\): $")
SLOTS = re.compile(rb"slots to get rid of, in reveal order \(of ([\d, ]+)\): $")


class Terminal:
    """The console script on a pseudo-terminal, read until a prompt."""

    def __init__(self, *args: str):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: the real console script
            # Ctrl-C's default, as in a terminal: a shell's background job (``cmd &``) inherits
            # SIGINT ignored, and the Ctrl-C test would then wait for ever
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.execv(MALLOWS, [MALLOWS, *args])
        self.out = b""

    def read_until(self, *patterns: re.Pattern, timeout: float = 60.0):
        deadline = time.monotonic() + timeout
        start = len(self.out)
        while time.monotonic() < deadline:
            for p in patterns:
                m = p.search(self.out, start)
                if m:
                    return p, m
            ready = select.select([self.fd], [], [], 0.5)[0]
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the child closed the terminal
                    return None, None
                if not chunk:
                    return None, None
                self.out += chunk
        raise AssertionError(
            f"no prompt within {timeout} s; the terminal shows:\n"
            + self.out[-3000:].decode(errors="replace")
        )

    def text(self) -> str:
        """What the terminal shows, without colour codes."""
        return re.sub(r"\x1b\[[0-9;]*m", "", self.out.decode(errors="replace"))

    def send(self, text: str) -> None:
        os.write(self.fd, text.encode())

    def wait(self, timeout: float = 120.0) -> int:
        deadline = time.monotonic() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
                raise AssertionError(
                    f"the console script did not end within {timeout} s; the "
                    f"terminal shows:\n{self.text()[-3000:]}"
                )
            try:  # keep reading, so a chatty child never blocks on a full terminal
                if select.select([self.fd], [], [], 0.1)[0]:
                    self.out += os.read(self.fd, 65536)
            except OSError:
                time.sleep(0.1)
        try:
            while True:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                self.out += chunk
        except OSError:
            pass
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def play_whole_match(term: Terminal, answer) -> int:
    decisions = 0
    while True:
        pattern, m = term.read_until(PROMPT, SLOTS, re.compile(rb"place\s+seat\s+bot"))
        if pattern is None or pattern.pattern.startswith(b"place"):
            return decisions
        if pattern is SLOTS:
            slots = m.group(1).decode().replace(",", " ").split()
            term.send(" ".join(slots[:2]) + "\n")
            continue
        decisions += 1
        term.send(answer(decisions, int(m.group(1))) + "\n")


def test_a_person_plays_a_whole_take4_match_in_a_terminal():
    term = Terminal("play", "take4", "--bot", "human", "--bot", "random", "--seed", "5")
    # first a typo, a number out of range and a typed pick, then numbers
    answers = {1: "banana", 2: "9", 3: "pick 1"}
    decisions = play_whole_match(term, lambda k, n: answers.get(k, str(1 + k % n)))
    assert term.wait() == 0
    text = term.text()
    assert "not understood" in text and "there is no action 9: choose 1 to 4" in text
    assert "positions:" in text and "you are seat 0" in text  # the card table
    assert "pick position 1:" in text  # the legal actions in words
    assert "== match over: you are placed" in text
    assert re.search(r"\d\s+0\s+human", text), text[-2000:]  # the result table names the seat
    assert decisions >= 3


def test_a_person_plays_a_whole_arschmallows_match_in_a_terminal():
    term = Terminal(
        "play",
        "arschmallows",
        "--bot",
        "random",
        "--bot",
        "human",
        "--seed",
        "3",
        "--option",
        "rounds=2",
        "--option",
        "table_cards=4",
    )
    refused = []

    def answer(k: int, n: int) -> str:
        if k == 1:
            refused.append(True)
            return "swap 1"  # not possible while peeking: explained, asked again
        return "1" if k % 3 else str(n)  # the first action, or the last (get_rid, pass ...)

    decisions = play_whole_match(term, answer)
    assert term.wait() == 0
    text = term.text()
    assert "refused: 'swap' is not possible now" in text
    assert "you are seat 1" in text and "draw pile:" in text and "(v) face down" in text
    assert "look at your slots 0 and 1" in text
    assert "== match over: you are placed" in text
    assert decisions >= 4 and refused


def test_ctrl_c_at_the_prompt_ends_the_match_cleanly():
    term = Terminal(
        "play",
        "take4",
        "--bot",
        "human",
        "--bot",
        "greedy",
        "--seed",
        "1",
        "--record",
        os.devnull + "-never",
    )
    term.read_until(PROMPT)
    term.send("\x03")  # the terminal turns it into SIGINT
    code = term.wait()
    text = term.text()
    assert code == 130, text[-1500:]
    assert "match abandoned (interrupted): nothing recorded" in text
    assert "Traceback" not in text
    assert not os.path.exists(os.devnull + "-never")


def test_a_time_limit_applies_only_when_set():
    term = Terminal("play", "take4", "--bot", "human:seconds=1", "--bot", "random", "--seed", "2")
    term.read_until(PROMPT)  # no answer: the seat forfeits and random plays it
    _, m = term.read_until(re.compile(rb"place\s+seat\s+bot"), timeout=60)
    assert term.wait() == 0
    text = term.text()
    assert "no answer within 1 s" in text and "forfeit" in text


def test_the_human_seat_parameters_are_checked_before_the_match():
    with pytest.raises(BotError, match="seconds must be a number"):
        load_bot("human:seconds=soon")
    with pytest.raises(BotError, match="unknown parameter 'depth'"):
        load_bot("human:depth=3")
    spec = load_bot("human")
    assert spec.kind == "human" and not spec.isolated and set(spec.games) >= {"take4"}


PEEK = {
    "game": "arschmallows",
    "phase": "peek",
    "legal_actions": [
        {"type": "peek", "slots": [0, 1]},
        {"type": "peek", "slots": [0, 2]},
        {"type": "peek", "slots": [1, 2]},
    ],
}
USE = {
    "game": "arschmallows",
    "phase": "use",
    "legal_actions": [
        {"type": "swap", "slot": 0},
        {"type": "swap", "slot": 2},
        {"type": "get_rid", "choose_from": [0, 2, 3]},
    ],
}


@pytest.mark.parametrize(
    "observation, action, expected, why",
    [
        (PEEK, {"type": "peek", "slots": [2, 0]}, {"type": "peek", "slots": [0, 2]}, None),
        (PEEK, {"type": "peek", "slots": [0, 3]}, None, "not one of the legal actions"),
        (PEEK, {"type": "draw"}, None, "'draw' is not possible now"),
        (USE, {"type": "get_rid", "slots": [3, 0]}, {"type": "get_rid", "slots": [3, 0]}, None),
        (USE, {"type": "get_rid", "slots": [3]}, None, "two or more different slots"),
        (USE, {"type": "get_rid", "slots": [3, 3]}, None, "two or more different slots"),
        (USE, {"type": "get_rid", "slots": [1, 3]}, None, "slot 1 is not one of your face-down"),
        (USE, {"type": "swap", "slot": 1}, None, "not one of the legal actions"),
        (USE, "swap", None, "give its number"),
    ],
)
def test_the_answer_checker(observation, action, expected, why):
    chosen, reason = check(observation, action)
    assert chosen == expected
    assert (reason is None) == (why is None) and (why is None or why in reason)


def test_choose_asks_again_until_the_answer_is_legal():
    obs = {
        "game": "take4",
        "seat": 0,
        "players": 2,
        "round": 0,
        "deck": 60,
        "positions": ["Cam", "Lola", None, "Maui"],
        "collections": [[], []],
        "history": [],
        "legal_actions": [
            {"type": "pick", "position": 1},
            {"type": "pick", "position": 2},
            {"type": "pick", "position": 4},
        ],
    }
    answers = iter(["", "?", "pick 3", "0", '{"type": "pick", "position": 4}'])
    said: list[str] = []
    assert choose(obs, lambda prompt: next(answers), said.append) == {"type": "pick", "position": 4}
    assert any("that is not one of the legal actions" in s for s in said)
    assert any("there is no action 0" in s for s in said)
    assert "  3: - (empty)" in said


def test_a_small_human_league_through_the_terminal(tmp_path):
    (tmp_path / "league.toml").write_text(
        'name = "league"\ngame = "take4"\nplayers = 2\n'
        'deals = 1\nseed = 3\nbots = ["human", "greedy"]\n'
    )
    db = tmp_path / "league.db"
    term = Terminal("tournament", "run", str(tmp_path / "league.toml"), "--db", str(db))
    decisions = 0
    while True:  # both seat orders: the person plays seat 0, then seat 1
        pattern, m = term.read_until(PROMPT, re.compile(rb"played 2 matches"), timeout=120)
        if pattern is None or pattern is not PROMPT:
            break
        decisions += 1
        term.send("1\n")
    assert term.wait() == 0, term.text()[-2000:]
    text = term.text()
    assert text.count("== match over: you are placed") == 2 and decisions >= 4
    assert "you at seat 0 of 2" in text and "you at seat 1 of 2" in text
    import subprocess

    own = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--tournament", "league"],
        capture_output=True,
        text=True,
    )
    assert "human" in own.stdout
    game = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--game", "take4"], capture_output=True, text=True
    )
    # off the bots' game board (every take4 match here had a person: the board is empty)
    assert game.returncode == 0 and "take4 (all tournaments)" in game.stdout
    assert not re.search(r"\bhuman\b", game.stdout), game.stdout
    asked = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--game", "take4", "--humans"],
        capture_output=True,
        text=True,
    )
    assert "people too" in asked.stdout and re.search(r"\bhuman\b", asked.stdout)
    refused = subprocess.run(
        [
            MALLOWS,
            "tournament",
            "run",
            str(tmp_path / "league.toml"),
            "--db",
            str(tmp_path / "other.db"),
            "--workers",
            "2",
        ],
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "run the tournament with --workers 1" in refused.stderr


def test_between_turns_the_person_is_told_what_happened(tmp_path):
    """Issue 34 item 1: the terminal says each other seat's action in words, each round's end
    with every row summed and the running totals (both games)."""
    record_file = tmp_path / "m.json"
    term = Terminal(
        "play",
        "arschmallows",
        "--bot",
        "random",
        "--bot",
        "human",
        "--bot",
        "greedy",
        "--seed",
        "4",
        "--option",
        "rounds=2",
        "--record",
        str(record_file),
    )
    play_whole_match(term, lambda k, n: "1" if k % 4 else str(n))
    assert term.wait() == 0
    record = json.loads(record_file.read_text())
    told.check_arschmallows(term.text().splitlines(), record, me=1)
    term = Terminal("play", "take4", "--bot", "greedy", "--bot", "human", "--seed", "2")
    play_whole_match(term, lambda k, n: str(1 + k % n))
    assert term.wait() == 0
    text = term.text()
    picks = re.findall(r"round (\d+): seat 0 \(greedy\) picks \w+ \(\w+, position \d", text)
    assert picks and picks == [str(r) for r in range(1, len(picks) + 1)]
    assert re.search(r"you pick \w+ \(\w+, position \d", text)
    assert "the game ends: " in text
