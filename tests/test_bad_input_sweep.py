"""The bad-input sweep: every command and every option of the CLI, found from the typer app
(never listed by hand, so a new command or option enters the sweep by itself), each given
every kind of bad value in turn: an empty value, a huge number, control characters, a
negative number, a folder, a named pipe (FIFO), a device and a name over 255 bytes. None may
end in a traceback (an exception out of the command, or "Traceback" in its output), in exit
status 70 (a platform failure, where the input was wrong), or hang.

The other arguments of a command hold a cheap valid value (``BASE``: a one-deal tournament,
``--workers 1``, ``--max-matches 2``), so the bad value is the one thing wrong. The
invocations run in this process's app through typer's ``CliRunner``, in forked children: the
parent gives each invocation ``LIMIT`` seconds (generous: it is a hang, not a slow machine,
that it catches) and on a hang kills the child and goes on in a new one from the next case.
"""

from __future__ import annotations

import json
import os
import select
import signal
import time
from pathlib import Path

from typing import Any
import pytest
from typer.main import get_command

LIMIT = 120.0  # seconds one invocation may take before it counts as a hang

TOURNAMENT = """name = "sweep"
game = "take4"
players = 2
deals = 1
seed = 1
bots = ["random", "greedy"]
"""
LADDER = """name = "sweepl"
game = "take4"
players = 2
seed = 1
bots = ["random", "greedy"]
max_matches = 4
"""


def bad_values(tmp: Path) -> dict[str, str]:
    """One value of each kind of bad input."""
    fifo = tmp / "fifo"
    os.mkfifo(fifo)
    folder = tmp / "folder"
    folder.mkdir()
    return {
        "empty": "",
        "huge": "9" * 30,
        "control": "\x1b[2J\x07bad\r\nname\x7f",
        "negative": "-1",
        "folder": str(folder),
        "fifo": str(fifo),
        "device": "/dev/null",
        "overlong": "A" * 300,
    }


def base_values(tmp: Path) -> dict[str, dict[str, str]]:
    """A cheap valid value for the arguments a command needs (by command, then parameter
    name); ``"*"`` holds what every command gets where it has that parameter."""
    tour = tmp / "t.toml"
    tour.write_text(TOURNAMENT)
    ladder = tmp / "l.toml"
    ladder.write_text(LADDER)
    return {
        "*": {
            "db": str(tmp / "sweep.db"),
            "workers": "1",
            "seed": "1",
            "name": "sweep",
            "bot": "random",
            "game": "take4",
            "games": "1",
        },
        "tournament run": {"file": str(tour)},
        "ladder run": {"file": str(ladder)},
        "ladder status": {"name": "sweepl"},
        "ladder join": {"name": "sweepl", "bot": "random:call=0.9"},
        "ladder withdraw": {"name": "sweepl", "bot": "random:call=0.9"},
        "ladder stop": {"name": "sweepl"},
        "ladder finals": {"name": "sweepl"},
        "play": {"bot": "random"},
        "replay": {"match": "sweep/0"},
        "report": {"out": str(tmp / "site")},
        "compare": {"a": "random", "b": "greedy", "max_matches": "2", "name": "sweepc"},
        "bots submit": {"path": str(Path("bots/random.py").resolve()), "name": "sweepbot"},
        "bots show": {"name": "random"},
        "bots withdraw": {"name": "nosuchbot"},
        "bots new": {"name": "sweepnew", "dir": str(tmp / "new")},
    }


def commands() -> list[tuple[str, Any]]:
    """Every command of the app, with its words (``"tournament run"``)."""
    from mallows.cli import app

    out: list[tuple[str, Any]] = []

    def walk(cmd: Any, words: list[str]) -> None:
        subs = getattr(cmd, "commands", None)
        if subs is None:
            out.append((" ".join(words), cmd))
            return
        for word, sub in sorted(subs.items()):
            walk(sub, [*words, word])

    walk(get_command(app), [])
    return out


def _argv(words: str, cmd: Any, base: dict, bad: Any | None, value: str):
    """The command line of ``cmd`` with ``value`` for ``bad`` and base values elsewhere."""
    args: list[str] = words.split()
    options: list[str] = []
    values = {**base["*"], **base.get(words, {})}
    for p in cmd.params:
        if getattr(p, "is_flag", False) or p.name in ("help",):
            continue
        given = value if p is bad else values.get(p.name or "")
        if p.param_type_name == "argument":
            if given is None:
                given = "x"
            args.append(given)
            continue
        if given is None:
            continue
        flag = max(p.opts, key=len)  # the long name
        options += [flag, given]
        if p.multiple and p.name == "bot" and p is not bad:
            options += [flag, given]  # play: one bot per seat
        elif p.multiple and p.name == "bot":
            options += [flag, "random"]
    return args + options


def cases(tmp: Path) -> list[tuple[str, list[str]]]:
    """Every (kind, argv) of the sweep: each parameter that takes a value, once per kind."""
    kinds = bad_values(tmp)
    base = base_values(tmp)
    out = []
    for words, cmd in commands():
        for p in cmd.params:
            if getattr(p, "is_flag", False) or p.name == "help":
                continue
            for kind, value in kinds.items():
                out.append((kind, _argv(words, cmd, base, p, value)))
    return out


def _child(todo: list[tuple[str, list[str]]], start: int, w: int, home: Path) -> None:
    """Run ``todo[start:]`` in this forked child, one JSON line per case on ``w``."""
    import traceback

    from typer.testing import CliRunner

    from mallows.cli import app

    os.chdir(home)
    os.environ.pop("RAY_ADDRESS", None)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    for i in range(start, len(todo)):
        os.write(w, (json.dumps({"i": i}) + "\n").encode())
        result = CliRunner().invoke(app, todo[i][1])
        exc = result.exception
        text = None
        if exc is not None and not isinstance(exc, SystemExit):
            text = "".join(traceback.format_exception(exc))[-3000:]
        line = {"i": i, "exit": result.exit_code, "exc": text, "out": result.output[-3000:]}
        os.write(w, (json.dumps(line) + "\n").encode())


def sweep(todo: list[tuple[str, list[str]]], home: Path) -> tuple[list, list]:
    """(results, hangs) of every case, each under ``LIMIT`` seconds."""
    results: list[dict] = []
    hangs: list[int] = []
    start = 0
    while start < len(todo):
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            try:
                os.close(r)
                _child(todo, start, w, home)
            finally:
                os._exit(0)
        os.close(w)
        buf, current, deadline = b"", None, time.monotonic() + LIMIT
        with os.fdopen(r, "rb", buffering=0) as f:
            while True:
                ready, _, _ = select.select([f], [], [], max(0.0, deadline - time.monotonic()))
                if not ready:  # a hang: the child is killed, the next case runs in a new one
                    os.kill(pid, signal.SIGKILL)
                    hangs.append(current if current is not None else start)
                    start = (current if current is not None else start) + 1
                    break
                chunk = f.read(65536)
                if not chunk:  # the child finished every case
                    start = len(todo)
                    break
                buf += chunk
                while b"\n" in buf:
                    line, buf = buf.split(b"\n", 1)
                    msg = json.loads(line)
                    if "exit" in msg:
                        results.append(msg)
                        current = None
                    else:
                        current = msg["i"]
                        deadline = time.monotonic() + LIMIT
        os.waitpid(pid, 0)
    return results, hangs


def test_cases_cover_every_command_and_option(tmp_path):
    """The sweep is found from the app: every command is in it, each option of each."""
    todo = cases(tmp_path)
    words = {w for w, _ in commands()}
    assert {"tournament run", "compare", "ladder join", "play", "bots check"} <= words
    per_command = {w: sum(1 for _, a in todo if " ".join(a).startswith(w + " ")) for w in words}
    assert all(per_command[w] >= 8 for w in words if w not in ("tournament list",)), per_command


@pytest.mark.slow
def test_bad_input_sweep_no_traceback_no_hang(tmp_path, monkeypatch):
    from conftest import REPO

    monkeypatch.chdir(REPO)  # bots/ and tournaments/ as a user in the clone has them
    home = tmp_path / "home"
    home.mkdir()
    todo = cases(tmp_path)
    results, hangs = sweep(todo, home)
    problems = []
    for i in hangs:
        problems.append(f"HANG (> {LIMIT:.0f} s): mallows {todo[i][1]!r}")
    for r in results:
        kind, argv = todo[r["i"]]
        if r["exc"] or "Traceback" in r["out"]:
            problems.append(f"TRACEBACK ({kind}): mallows {argv!r}\n{r['exc'] or r['out']}")
        elif r["exit"] not in (0, 1, 2, 3):  # 3: compare without a verdict
            problems.append(f"EXIT {r['exit']} ({kind}): mallows {argv!r}\n{r['out']}")
    assert len(results) + len(hangs) == len(todo)
    assert not problems, f"{len(problems)} of {len(todo)} cases:\n\n" + "\n\n".join(problems)
