"""A bot's misbehaviour gives the same table on every executor and worker count (issue 26,
item 9). The bot says ``"reuse": true`` in its hello but exits just after answering ``end``:
whether the next match found its process still alive was timing, so three ``--workers 1``
runs gave 39, 40 and 40 forfeits and a ``--workers 2`` run none. A reused process that cannot
start its next match is now replaced by a fresh one, as if it had never been reused."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, chance_key, ray_env

LIAR = REPO / "tests" / "misbehaving_bots" / "lying_reuse"
TOURNAMENT = """name = "liar"
game = "take4"
players = 2
deals = {deals}
seed = 26
bots = ["random", "greedy", "{liar}"]
[limits]
sandbox = "off"
"""


def run(
    tmp_path: Path, name: str, workers: int, deals: int = 6, key: str | None = None
) -> tuple[list, int]:
    """The table and forfeit count of a run in a new database; ``key``: the secret key of an
    earlier run's tournament, so this one plays the very same matches (``--key``)."""
    toml = tmp_path / "liar.toml"
    toml.write_text(TOURNAMENT.format(deals=deals, liar=LIAR))
    db = tmp_path / f"{name}.db"
    args = (
        [
            MALLOWS,
            "tournament",
            "run",
            str(toml),
            "--db",
            str(db),
            "--workers",
            str(workers),
            "--quiet",
        ]
        + (["--batch-size", "4"] if workers > 1 else [])
        + (["--key", key] if key else [])
    )
    proc = subprocess.run(
        args, capture_output=True, text=True, timeout=600, env=ray_env(), cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = subprocess.run(
        [MALLOWS, "ratings", "--db", str(db), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0, out.stderr
    table = json.loads(out.stdout)
    from mallows.results.store import Store

    forfeits = sum(int(r["forfeits"]) for r in Store(db, readonly=True).export())
    return table, forfeits


def test_a_lying_reuse_bot_forfeits_nothing_whatever_the_timing(tmp_path):
    first, forfeits = run(tmp_path, "a", 1)
    assert forfeits == 0  # it plays every match well; reuse was only a promise it broke
    second, again = run(tmp_path, "b", 1, key=chance_key(tmp_path / "a.db"))
    assert (second, again) == (first, forfeits)


@pytest.mark.ray
@pytest.mark.slow
def test_a_lying_reuse_bot_gives_the_same_table_on_one_and_two_workers(tmp_path):
    one = run(tmp_path, "one", 1)
    two = run(tmp_path, "two", 2, key=chance_key(tmp_path / "one.db"))
    assert one == two
