"""The strength table of bots/README.md reproduces (issue 36): the verdicts of its cheap rows
come out the same when the test plays the comparison again on seeds and a secret key of its
own (never the ones the table was measured on), through the real CLI. The rows of search bots
cost minutes of CPU a verdict and are left to ``mallows compare`` itself; the table gives
their commands."""

from __future__ import annotations

import re

import pytest

from mallows.results.store import Store

from conftest import REPO, invoke

#: The verdict words of the table's column and the exit status ``mallows compare`` gives each.
EXIT_OF = {"H1": 0, "H0": 1}

#: (A, B, seed): rows of the table this test replays, each on a seed of its own (chosen once
#: here, before the run, and not changed after it).
CHEAP_ROWS = [
    ("rules4", "denial", 3636),
    ("greedy", "random", 3637),
]


def table_verdict(a: str, b: str) -> str:
    """``H1`` or ``H0``: the verdict the README's strength table states for ``A vs B``."""
    text = (REPO / "bots" / "README.md").read_text(encoding="utf-8")
    section = text.split("## Strength", 1)[1].split("\n## ", 1)[0]
    row = re.search(rf"^\| `{re.escape(a)}` vs `{re.escape(b)}` \|.*$", section, re.M)
    assert row is not None, f"the strength table has no row {a} vs {b}"
    verdict = re.search(r"\*{0,2}(H[01])\*{0,2}:", row.group(0))
    assert verdict is not None, row.group(0)
    return verdict.group(1)


@pytest.mark.parametrize(("a", "b", "seed"), CHEAP_ROWS)
def test_a_cheap_row_of_the_strength_table_reproduces_on_its_own_seed(
    in_repo, tmp_path, a, b, seed
):
    db = tmp_path / "strength.db"
    name = f"strength-{a}-{b}"
    with Store(db) as store:  # a key of the test's own: the same deals every run
        store.put_chance_key(name, bytes(range(seed % 200, seed % 200 + 32)))
    result = invoke(
        "compare", a, b, "--game", "take4", "--players", "3", "--seed", seed,
        "--workers", "1", "--decision-seconds", "60", "--db", db, "--name", name,
        env={"COLUMNS": "250"},  # wide: the verdict line unwrapped
    )  # fmt: skip
    expected = table_verdict(a, b)
    assert f"{expected} accepted" in result.output, result.output
    assert result.exit_code == EXIT_OF[expected], result.output
