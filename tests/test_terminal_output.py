"""Terminal output that survives a pipe: tables at any width never cut a number and never
show a bot's path; ``mallows replay`` shows card values, one seat's view, doubling, Take4's
characters and races in words, and reads a record file."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest

from conftest import MALLOWS, REPO

NUMBER = re.compile(r"^-?\d+(\.\d+)?$")


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    folder = tmp_path_factory.mktemp("term")
    deep = folder / "a-rather-long-folder-name" / "and-another-one-below-it"
    deep.mkdir(parents=True)
    # a bot given by path is shown by the name it declares (issue 12), so the copy says its own
    (deep / "mybot.py").write_text(
        (REPO / "bots" / "random.py").read_text().replace('name = "random"', 'name = "mybot"')
    )
    (folder / "t.toml").write_text(
        'name = "paths"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 3\n'
        f'bots = ["random", "greedy", "{deep / "mybot.py"}:call=0.5"]\n'
    )
    (folder / "a.toml").write_text(
        'name = "arsch"\ngame = "arschmallows"\nplayers = 3\ndeals = 1\nseed = 5\n'
        'bots = ["random", "greedy", "heuristic"]\n[options]\nrounds = 3\n'
    )
    db = folder / "r.db"
    runs = {}
    for f in ("t.toml", "a.toml"):
        proc = subprocess.run(
            [MALLOWS, "tournament", "run", str(folder / f), "--db", str(db), "--workers", "1"],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=dict(os.environ, COLUMNS="60"),
        )
        assert proc.returncode == 0, proc.stderr
        runs[f] = proc.stdout
    return db, deep, runs


def piped(args, columns: int) -> str:
    """The command's stdout through ``cat`` (not a terminal) at ``COLUMNS`` wide."""
    out = subprocess.run(
        f"{' '.join(map(repr, [MALLOWS, *args]))} | cat",
        shell=True,
        capture_output=True,
        text=True,
        cwd=REPO,
        env=dict(os.environ, COLUMNS=str(columns)),
    )
    assert out.returncode == 0, out.stderr
    return out.stdout


def check_table(text: str, deep) -> None:
    assert "…" not in text and "..." not in text
    assert str(deep) not in text and "a-rather-long" not in text
    assert "mybot:call=0.5" in text
    rows = [
        line.split() for line in text.splitlines() if line.strip() and line.split()[0].isdigit()
    ]
    assert rows, text
    for cells in rows:
        numbers = [c for c in cells if re.match(r"^-?[\d.]+$", c)]
        assert all(NUMBER.match(c) for c in numbers), cells


@pytest.mark.parametrize("columns", [60, 200])
def test_tables_piped_at_any_width(db, columns):
    path, deep, runs = db
    check_table(runs["t.toml"], deep)  # tournament run's final table (COLUMNS=60, piped)
    for args in (
        ["ratings", "--db", str(path)],
        ["ratings", "--db", str(path), "--tournament", "paths"],
        ["tournament", "show", "paths", "--db", str(path)],
    ):
        text = piped(args, columns)
        check_table(text, deep)
        assert "±" in text  # the mean place's interval
    show = piped(["tournament", "show", "paths", "--db", str(path)], columns)
    assert re.search(r"n=\d+", show)  # head-to-head match counts
    listing = piped(["tournament", "list", "--db", str(path)], columns)
    assert "…" not in listing and "paths" in listing and "6/6" in listing


def test_ratings_json_and_csv_carry_the_interval(db):
    path, _, _ = db
    rows = json.loads(piped(["ratings", "--db", str(path), "--format", "json"], 80))
    for r in rows:
        low, high = r["mean_place_95"]
        assert low <= r["mean_place"] <= high
    csv = piped(["ratings", "--db", str(path), "--format", "csv"], 80).splitlines()
    assert csv[0].endswith("mean_place_low,mean_place_high")


def test_replay_shows_values_seat_views_and_doubling(db):
    path, _, _ = db
    record = json.loads(piped(["replay", "arsch/0", "--db", str(path), "--json"], 80))
    text = piped(["replay", "arsch/0", "--db", str(path)], 80)
    assert "draws from the draw pile" not in text
    draws = re.findall(r"draws (\S+) from the draw pile", text)
    assert draws and all(re.match(r"^-?\d+$", d) for d in draws)
    ends = [e for e in record["events"] if e["type"] == "round_end"]
    for e in ends:
        if e["caller"] is not None:
            assert re.search(r"caller(: \d+ doubled to \d+|, not doubled)", text)
    seat1 = piped(["replay", "arsch/0", "--db", str(path), "--seat", "1"], 80)
    assert "view: seat 1" in seat1
    other_draws = [
        line
        for line in seat1.splitlines()
        if "draws" in line and "seat 1 (" not in line.split("draws")[0]
    ]
    assert other_draws and all("draws ? from" in line for line in other_draws)
    own = [
        line
        for line in seat1.splitlines()
        if line.strip().startswith("seat 1 (") and "draws" in line
    ]
    assert all("?" not in line for line in own)


def test_replay_take4_in_words_and_from_a_record_file(db, tmp_path):
    path, _, _ = db
    record = piped(["replay", "paths/1", "--db", str(path), "--json"], 80)
    (tmp_path / "m.json").write_text(record)
    text = piped(["replay", str(tmp_path / "m.json")], 80)
    assert text == piped(["replay", "paths/1", "--db", str(path)], 80).replace(
        "match paths/1", "match m.json"
    )
    assert "Benny" not in text and "grabs" not in text
    assert re.search(r"picks [A-Z][a-z]+ \((Classic|Fantasy|Sealife|Food), position \d", text)
    if '"race"' in record:
        assert "is quicker and takes it" in text
    (tmp_path / "bad.json").write_text("{not json")
    bad = subprocess.run(
        [MALLOWS, "replay", str(tmp_path / "bad.json")], capture_output=True, text=True
    )
    assert bad.returncode == 2 and "not a match record" in bad.stderr


@pytest.mark.parametrize("width", [40, 60, 200])
def test_a_terminal_table_never_cuts_a_number(width):
    import io

    from rich.console import Console

    from mallows.cli.tables import print_table

    buf = io.StringIO()
    console = Console(file=buf, force_terminal=True, width=width, color_system=None)
    rows = [
        [
            str(i),
            f"a-bot-with-a-long-name-{i}:depth=3,budget=0.25",
            "25.123456",
            "1.234567",
            "2.31 ± 0.08",
        ]
        for i in range(1, 4)
    ]
    print_table("t", ["rank", "bot", "mu", "sigma", "mean place (95%)"], rows, console=console)
    text = buf.getvalue()
    assert "…" not in text
    for r in rows:
        for cell in r:
            assert cell in text


def test_the_report_shows_no_folder_of_a_bot_given_by_path(db, tmp_path):
    path, deep, _ = db
    out = tmp_path / "site"
    subprocess.run(
        [MALLOWS, "report", "--db", str(path), "-o", str(out)], check=True, capture_output=True
    )
    pages = list(out.rglob("*.html"))
    assert any("mybot:call=0.5" in p.read_text() for p in pages)
    for p in pages:
        assert "a-rather-long" not in p.read_text() and "a-rather-long" not in str(p), p
