"""``mallows bots new NAME``: a new bot's folder, written from templates, that works as written.

Owns the templates and ``write_bot(folder, name, lang)``. Every folder has the bot's code, a
README for its author, and ``test_bot.py``, a pytest file that runs ``check_bot`` (the check
``mallows bots check`` runs) on the folder:

- ``python``: a Python package bot (``__init__.py`` with ``class Bot``: ``act(observation)``),
  hosted in its own sandboxed process like every bot that is not shipped;
- ``node``: a subprocess bot (``bot.toml`` and ``bot.js``) speaking protocol v1 as JSON lines.

Both play every game from its ``legal_actions`` (a random legal action, Arschmallows'
``get_rid`` template expanded), with the place to put a strategy marked.
"""

from __future__ import annotations

import keyword
import re
from pathlib import Path

from mallows.errors import BotError
from mallows.files import check_folder
from mallows.games import game_ids

__all__ = ["LANGS", "check_name", "write_bot"]

LANGS = ("python", "node")
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{0,47}$")

_PYTHON = '''"""{name}: a mallows bot (agent protocol v1). Start here: ``act`` below.

Written by ``mallows bots new``. Check it with ``mallows bots check {folder}`` or
``python -m pytest {folder}/test_bot.py``; play it with
``mallows play take4 --bot {folder} --bot random``. bots/README.md in the mallows project
describes the observations and actions of each game.
"""

from __future__ import annotations

import random


class Bot:
    name = "{name}"
    version = "0.1"
    games = ({games})

    def __init__(self) -> None:
        self.rng = random.Random(0)

    def match_start(self, info: dict) -> None:
        """Called before each match: ``info`` has game, options, seat, players, seed, names."""
        self.rng = random.Random(info["seed"])  # the same seed, the same play

    def act(self, observation: dict) -> dict:
        """Answer one of ``observation["legal_actions"]``. Your strategy goes here."""
        legal = observation["legal_actions"]
        action = dict(self.rng.choice(legal))
        if action["type"] == "get_rid":  # Arschmallows: a template, choose its slots
            slots = list(action.pop("choose_from"))
            self.rng.shuffle(slots)
            action["slots"] = slots[:2]
        return action
'''

_NODE_TOML = """# A subprocess bot: mallows runs `command` in this folder and speaks agent protocol v1
# (one JSON object per line on stdin/stdout) with it. Written by `mallows bots new`.
name = "{name}"
version = "0.1"
command = ["node", "bot.js"]
games = [{games}]
# The protocol this bot speaks; mallows holds its hello to it (a hello answering another is
# refused). 1: each act brings the observation. 2: each act also brings the seat's match
# events since its last decision (and the end, the final reveal); answer "protocol": 2 in the
# hello (with "history": "delta" or "full") and set 2 here: bots/README.md, "Protocol 2".
protocol = 1
"""

_NODE_JS = """// {name}: a mallows bot in JavaScript (agent protocol v1 over JSON lines).
// Written by `mallows bots new`. Your strategy goes in choose(); logs go to stderr.
"use strict";
const readline = require("readline");

let seed = 1;
function random() {{  // mulberry32, seeded by the match: the same seed, the same play
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}}

function choose(observation) {{
  const legal = observation.legal_actions;
  const action = Object.assign({{}}, legal[Math.floor(random() * legal.length)]);
  if (action.type === "get_rid") {{  // Arschmallows: a template, choose its slots
    action.slots = action.choose_from.slice(0, 2);
    delete action.choose_from;
  }}
  return action;
}}

const lines = readline.createInterface({{ input: process.stdin }});
lines.on("line", (line) => {{
  const msg = JSON.parse(line);
  let reply;
  if (msg.type === "hello") {{
    // protocol 1 (bot.toml says so); protocol 2 adds the match's events: bots/README.md
    reply = {{ type: "hello", protocol: 1, name: "{name}", version: "0.1", games: [{games}] }};
  }} else if (msg.type === "start") {{
    seed = msg.info.seed % 4294967296;
    reply = {{ type: "ok" }};
  }} else if (msg.type === "act") {{
    reply = {{ type: "action", action: choose(msg.observation) }};
  }} else if (msg.type === "end") {{
    reply = {{ type: "ok" }};
  }} else {{
    process.exit(0);  // "quit"
  }}
  process.stdout.write(JSON.stringify(reply) + "\\n");
}});
"""

_TEST = '''"""{name}'s own test: the check ``mallows bots check`` runs, from pytest.

Run it with ``python -m pytest {folder}/test_bot.py`` (mallows installed). It plays a few
matches of every game the bot declares against random bots, isolated as in a tournament, and
fails with the first problem: the observation, the answer and the legal actions.
"""

from pathlib import Path

from mallows.testing.bots import check_bot

HERE = Path(__file__).resolve().parent


def test_the_bot_passes_the_check():
    report = check_bot(str(HERE), matches=3)
    assert report.passed, "\\n".join(f"{{p.reason}}" for p in report.problems)
'''

_README = """# {name}

A bot for mallows (agent protocol v1), written by `mallows bots new {name} --lang {lang}`.
{what}

```sh
mallows bots check {folder}                     # plays it against random bots, isolated
python -m pytest {folder}/test_bot.py           # the same check, from pytest
mallows play take4 --bot {folder} --bot random  # one match, printed
mallows bots submit {folder}                    # check, then store an immutable version
```

Games: {games_text}. The observations and actions of each game, the limits and the forfeit
rules are in bots/README.md of the mallows project. The bot runs in its own process, in a
sandbox that sees this folder read-only.
"""

_WHAT = {
    "python": "Its code is `__init__.py`: `Bot.act(observation)` answers one of the "
    "observation's `legal_actions` (today a random one); put your strategy there.",
    "node": "Its code is `bot.js` (run by `bot.toml`'s command): `choose(observation)` answers "
    "one of the observation's `legal_actions` (today a random one); put your "
    "strategy there. Needs `node` on PATH.",
}


def check_name(name: str) -> None:
    """A bot name for ``bots new``: a plain identifier (lower case), not a Python keyword."""
    if not NAME_RE.match(name) or keyword.iskeyword(name):
        raise BotError(
            f"bot name {name!r}: use lower-case letters, digits and _ (starting "
            f"with a letter, at most 48 characters, not a Python keyword), e.g. "
            f"mybot"
        )


def write_bot(
    folder: Path, name: str, lang: str = "python", games: list[str] | None = None
) -> list[Path]:
    """Write a new bot ``name`` into ``folder`` (which must not exist, or be empty). Returns
    the files written."""
    check_name(name)
    if lang not in LANGS:
        raise BotError(f"--lang {lang!r}: the languages are {', '.join(LANGS)}")
    known = game_ids()
    games = list(games or known)
    unknown = [g for g in games if g not in known]
    if unknown:
        raise BotError(f"--game {unknown[0]!r}: the games are {', '.join(known)}")
    folder = Path(folder)
    if check_folder(folder, "--dir", "give a new or empty folder", BotError) and any(
        folder.iterdir()
    ):
        raise BotError(
            f"{folder} already exists and is not an empty folder: choose another "
            f"name or --dir, nothing was written"
        )
    quoted = ", ".join(f'"{g}"' for g in games)
    shown = str(folder) if "/" in str(folder) else f"./{folder}"  # a path, never a bot name
    fields = {
        "name": name,
        "folder": shown,
        "lang": lang,
        "games": quoted,
        "games_text": ", ".join(games),
    }
    files: dict[str, str] = {
        "test_bot.py": _TEST.format(**fields),
        "README.md": _README.format(what=_WHAT[lang], **fields),
    }
    if lang == "python":
        py_games = quoted + ("," if len(games) == 1 else "")
        files["__init__.py"] = _PYTHON.format(**dict(fields, games=py_games))
    else:
        files["bot.toml"] = _NODE_TOML.format(**fields)
        files["bot.js"] = _NODE_JS.format(**fields)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        written = []
        for file, text in files.items():
            path = folder / file
            path.write_text(text, encoding="utf-8")
            written.append(path)
    except OSError as exc:
        raise BotError(f"cannot write the bot into {folder}: {exc.strerror or exc}") from None
    return written
