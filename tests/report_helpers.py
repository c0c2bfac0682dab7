"""A small results database with a tournament of each game, for the report tests."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from conftest import MALLOWS, REPO

ARSCH = """
name = "arsch-small"
game = "arschmallows"
rules = "standard"
players = 3
deals = 2
seed = 11
bots = ["random", "greedy", "heuristic"]
[options]
rounds = 2
"""

TAKE4 = """
name = "take4-small"
game = "take4"
players = 3
deals = 1
seed = 12
bots = ["random", "greedy", "denial", "random:call=0.5"]
"""


def make_db(folder: Path) -> Path:
    db = folder / "results.db"
    for name, text in (("a.toml", ARSCH), ("t.toml", TAKE4)):
        (folder / name).write_text(text)
        subprocess.run(
            [
                MALLOWS,
                "tournament",
                "run",
                str(folder / name),
                "--db",
                str(db),
                "--workers",
                "1",
                "--quiet",
            ],
            check=True,
            cwd=REPO,
            capture_output=True,
            timeout=600,
        )
    return db


def cli_json(*args: str):
    out = subprocess.run([MALLOWS, *args], check=True, capture_output=True, text=True, cwd=REPO)
    return json.loads(out.stdout)


def expand(deltas: list[dict]) -> list[dict]:
    """Undo ``site.compact`` (what static/replay.js does)."""
    frames, state = [], {}
    for d in deltas:
        nxt = dict(state)
        for k, v in d.items():
            if k == "rows" and state.get("rows") is not None:
                nxt["rows"] = [state["rows"][i] if r is None else r for i, r in enumerate(v)]
            else:
                nxt[k] = v
        frames.append(nxt)
        state = nxt
    return frames


def page_frames(html: str) -> list[dict]:
    m = re.search(r'<script type="application/json" id="frames">(.*?)</script>', html, re.S)
    assert m, "no frames in the replay page"
    return expand(json.loads(m.group(1).replace("<\\/", "</")))


def data_matches(site: Path, name: str) -> dict[int, dict]:
    """Every match in a written report's replay data files of tournament ``name`` (what
    static/replay.js reads), by index; each match's ``frames`` expanded."""
    import base64
    import gzip

    from mallows.report.data import slug

    out: dict[int, dict] = {}
    files = sorted((site / "d" / slug(name)).glob("*.js"), key=lambda p: int(p.stem))
    for k, path in enumerate(files):
        m = re.fullmatch(
            r'mallowsReplayChunk\("([^"]+)",(\d+),"([A-Za-z0-9+/=]*)"\);\n', path.read_text()
        )
        assert m and m.group(1) == slug(name) and int(m.group(2)) == k == int(path.stem), path
        for line in gzip.decompress(base64.b64decode(m.group(3))).decode().split("\n"):
            match = json.loads(line)
            assert match["idx"] not in out
            out[match["idx"]] = dict(match, frames=expand(match["frames"]))
    return out


def stored_record(db: Path, match_id: str) -> dict:
    """A match's record as stored (what ``mallows replay ID --json`` prints), read in process."""
    from mallows.results.store import Store

    with Store(db, readonly=True) as store:
        return json.loads(store.record(match_id))
