"""The Swiss format (``tournaments.swiss``): a file with ``format = "swiss"`` runs from the CLI
through the format registry, its rounds seat bots that have not met while a fresh seating
exists, a run killed after a round resumes to exactly the matches of an unbroken one, and a
bad file is refused with a message."""

from __future__ import annotations

import itertools
import subprocess
from collections import Counter
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from mallows.results.store import Store
from mallows.runner.executor import InProcessExecutor
from mallows.tournaments.plan import prepare
from mallows.tournaments.run import execute, run_epochs
from mallows.tournaments.swiss.pairing import meetings, pair_round, standing_order
from mallows.tournaments.swiss.spec import parse_swiss

from conftest import MALLOWS, invoke

BOTS = ["random", "random:call=0.01", "random:call=0.2", "greedy", "heuristic"]
KEY = bytes(range(32))


def swiss_text(rounds: int = 3, bots: list[str] = BOTS, players: int = 2) -> str:
    names = ", ".join(f'"{b}"' for b in bots)
    return (
        f'format = "swiss"\nname = "sw"\ngame = "arschmallows"\nplayers = {players}\n'
        f'deals = 1\nseed = 7\nrounds = {rounds}\nbots = [{names}]\n[limits]\nsandbox = "off"\n'
    )


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "swiss.toml"
    path.write_text(text)
    return path


def stored(db: Path) -> list:
    return sorted(Store(db).indexed_results("sw"))


def test_a_swiss_file_runs_from_the_cli_and_stores_its_rounds(tmp_path):
    path = write(tmp_path, swiss_text())
    result = invoke("tournament", "run", path, "--db", tmp_path / "a.db", "--quiet")
    assert result.exit_code == 0, result.output
    assert "sw · arschmallows · 12 matches" in result.output  # 3 rounds x 2 tables x 2 seats
    matches = stored(tmp_path / "a.db")
    assert [i for i, _, _ in matches] == list(range(12))
    # every table is played in both seatings, and no pair meets twice in 3 rounds of 5 bots
    pairs = Counter(frozenset(players) for _, players, _ in matches)
    assert set(pairs.values()) == {2}
    # the console script: a rerun resumes, playing nothing
    run = subprocess.run(
        [MALLOWS, "tournament", "run", str(path), "--db", str(tmp_path / "a.db"), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "played 0 matches (12 already stored)" in run.stdout
    assert "mean place" in run.stdout  # the standings, with their intervals


def test_killed_after_round_one_it_resumes_to_the_matches_of_an_unbroken_run(tmp_path):
    spec = parse_swiss(__import__("tomllib").loads(swiss_text(rounds=4)))
    whole = Store(tmp_path / "whole.db")
    run_epochs(prepare(spec, whole, key=KEY), whole, InProcessExecutor())
    broken = Store(tmp_path / "broken.db")
    first = prepare(spec, broken, key=KEY)
    execute(first, broken, InProcessExecutor())  # round 1 only; then the process dies
    assert broken.count_matches("sw") == 4
    resumed = prepare(spec, Store(tmp_path / "broken.db"))
    assert resumed.schedule.spec.chance.secret_deals  # secret by default, resumed so too
    run_epochs(resumed, broken, InProcessExecutor())
    assert stored(tmp_path / "broken.db") == stored(tmp_path / "whole.db")
    assert len(stored(tmp_path / "whole.db")) == 16


def fresh_exists(order: list[int], k: int, met: Counter) -> bool:
    """Brute force: some partition of ``order`` into tables of ``k`` has no pair that met."""
    if not order:
        return True
    head, rest = order[0], order[1:]
    for others in itertools.combinations(rest, k - 1):
        table = (head, *others)
        if not meetings([[table]]).keys() & met.keys():
            if fresh_exists([p for p in rest if p not in others], k, met):
                return True
    return False


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 3).flatmap(
        lambda k: st.tuples(
            st.just(k),
            st.integers(2, 4).map(lambda t: t * k),
            st.lists(st.floats(0, 1), min_size=12, max_size=12),
            st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11)), max_size=14),
            st.integers(0, 2**32),
        )
    )
)
def test_the_pairing_repeats_no_meeting_while_a_fresh_one_exists(case):
    k, n, scores, history, seed = case
    met = Counter({(min(a, b), max(a, b)): 1 for a, b in history if a != b and max(a, b) < n})
    order = standing_order(scores[:n], seed)
    tables = pair_round(order, k, met, Counter())
    assert sorted(p for t in tables for p in t) == list(range(n))  # everyone seated once
    assert all(len(t) == k for t in tables)
    repeats = meetings([tables]).keys() & met.keys()
    if fresh_exists(list(range(n)), k, met):
        assert not repeats, (tables, met)
    assert tables[0][0] == order[0]  # the leader heads the first table


def test_bad_files_exit_2_with_a_message(tmp_path):
    for text, words in [
        (swiss_text(rounds=0), "`rounds` must be from 1"),
        (swiss_text(bots=["random", "greedy"], players=3), "`bots` has 2 bots but `players` = 3"),
        (swiss_text().replace("rounds = 3\n", ""), "missing key `rounds`"),
        (swiss_text().replace('"swiss"', '"ladder"'), "not a format `mallows tournament run`"),
    ]:
        result = invoke("tournament", "run", write(tmp_path, text), "--db", tmp_path / "b.db")
        assert result.exit_code == 2, (text, result.output)
        assert words in result.output, result.output
    assert not (tmp_path / "b.db").exists()


def test_a_swiss_file_that_cannot_be_read_is_refused_without_opening_it(tmp_path):
    """``load_swiss`` reads its file as the other formats do (``format.read_file``): a FIFO is
    refused, never opened (opening one waits for a writer), and each message names the fix."""
    import os
    import threading

    from mallows.errors import TournamentError
    from mallows.tournaments.swiss.spec import load_swiss

    os.mkfifo(tmp_path / "fifo.toml")
    (tmp_path / "bad.toml").write_text('name = "x\n')
    cases = [
        (tmp_path / "missing.toml", "no Swiss file"),
        (tmp_path, "Swiss file"),
        (tmp_path / "fifo.toml", "Swiss file"),
        (tmp_path / "bad.toml", "not valid TOML"),
    ]
    said: dict = {}

    def load_all() -> None:
        for path, _ in cases:
            try:
                load_swiss(path)
            except TournamentError as exc:
                said[path] = str(exc)

    reader = threading.Thread(target=load_all, daemon=True)
    reader.start()
    reader.join(timeout=60)  # a FIFO opened for reading would block here for good
    assert not reader.is_alive(), "load_swiss opened the FIFO"
    for path, words in cases:
        assert words in said[path], (path, said)
