"""Bot-supplied text is data (issue 20, item 4): capped where it is stored, escaped where it is
shown. ``tests/text_bots/loud.py`` raises a 255 KiB incompressible message; ``escapes.py``
raises one of terminal control sequences and declares a version full of them."""

from __future__ import annotations

import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, compare_args
from mallows.safetext import REASON_BYTES, cap, control_characters, escape

TEXT_BOTS = REPO / "tests" / "text_bots"
RAW = ("\x1b", "\r", "\x07")  # what must never reach a terminal from a bot


def folder_bytes(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def run(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MALLOWS, *map(str, args)], capture_output=True, text=True, timeout=300, cwd=REPO, env=env
    )


def tournament(tmp_path: Path, bot: str, name: str, deals: int = 5) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\ngame = "take4"\nplayers = 2\ndeals = {deals}\n'
        f'bots = ["{bot}", "random", "greedy"]\n'
    )
    return path


def test_cap_cuts_at_a_character_and_says_how_much():
    text = "é" * 5000
    out = cap(text, REASON_BYTES)
    assert len(out.encode()) <= REASON_BYTES and "10,000 bytes, cut to 1,024" in out
    assert cap("short", REASON_BYTES) == "short"


def test_escape_shows_every_control_character():
    text = "a\x1b[2K\rb\x07\x1b]0;t\x07\n\t\x9b\u202e\u2028\x7f"
    shown = escape(text)
    assert not control_characters(shown) and shown.isprintable()
    for visible in ("\\x1b", "\\r", "\\x07", "\\n", "\\t", "\\x9b", "\\u202e", "\\u2028", "\\x7f"):
        assert visible in shown
    assert escape("line\nline", keep_lines=True) == "line\nline"
    assert escape("plain text: ok") == "plain text: ok"


@pytest.mark.slow
def test_a_255_kib_message_costs_under_2_kib_a_match_in_the_database_and_the_report(tmp_path):
    """The same tournament with a bot that raises a one-word message is the baseline: the loud
    bot's 20 matches may cost at most 2 KiB each more, in the database and in the report."""
    quiet = tmp_path / "quiet.py"
    quiet.write_text(
        (TEXT_BOTS / "loud.py").read_text().replace("os.urandom(255 * 1024 // 2).hex()", '"no"')
    )
    sizes = {}
    for bot, name in ((TEXT_BOTS / "loud.py", "loud"), (quiet, "quiet")):
        db = tmp_path / f"{name}.db"
        proc = run(
            "tournament",
            "run",
            tournament(tmp_path, str(bot), name),
            "--db",
            db,
            "--workers",
            "1",
            "--quiet",
        )
        assert proc.returncode == 0, proc.stderr
        con = sqlite3.connect(db)
        con.execute("VACUUM")
        forfeits = con.execute("SELECT SUM(forfeits) FROM matches").fetchone()[0]
        con.close()
        assert forfeits == 20  # every match of the bot: a forfeit at its first decision
        site = tmp_path / f"site-{name}"
        report = run("report", "--db", db, "--out", site)
        assert report.returncode == 0, report.stderr
        sizes[name] = (db.stat().st_size, folder_bytes(site))
    db_cost = (sizes["loud"][0] - sizes["quiet"][0]) / 20
    report_cost = (sizes["loud"][1] - sizes["quiet"][1]) / 20
    print(f"per loud match: database {db_cost:.0f} B, report {report_cost:.0f} B more")
    assert db_cost < 2048 and report_cost < 2048, sizes


def _no_raw(text: str) -> None:
    for ch in RAW:
        assert ch not in text, f"{ch!r} reached the terminal: {text[-400:]!r}"
    assert "\\x1b" in text  # shown, visibly


def test_control_sequences_in_a_reason_print_as_visible_escapes_everywhere(tmp_path):
    bot = TEXT_BOTS / "escapes.py"
    record = tmp_path / "m.json"
    play = run("play", "take4", "--bot", bot, "--bot", "random", "--seed", "3", "--record", record)
    assert play.returncode == 0, play.stderr
    _no_raw(play.stdout + play.stderr)
    assert "\\x1b[2K\\r(clean)" in play.stdout
    replay_file = run("replay", record)
    assert replay_file.returncode == 0, replay_file.stderr
    _no_raw(replay_file.stdout + replay_file.stderr)
    db = tmp_path / "m.db"
    path = tournament(tmp_path, str(bot), "esc", deals=1)
    ran = run("tournament", "run", path, "--db", db, "--workers", "1", "--quiet")
    assert ran.returncode == 0, ran.stderr
    replay = run("replay", "esc/0", "--db", db)
    assert replay.returncode == 0, replay.stderr
    _no_raw(replay.stdout + replay.stderr)
    for shown in (ran, run("tournament", "show", "esc", "--db", db)):  # no reason shown there
        assert shown.returncode == 0, shown.stderr
        assert not any(ch in shown.stdout + shown.stderr for ch in RAW)
    check = run("bots", "check", bot, "--game", "take4", "--games", "2")
    assert check.returncode == 1
    _no_raw(check.stdout + check.stderr)
    assert "\\x1b]0;pwned\\x07" in check.stdout
    submit = run("bots", "submit", bot, "--db", tmp_path / "s.db", "--games", "1")
    assert submit.returncode == 1, submit.stderr  # refused: it forfeits
    _no_raw(submit.stdout + submit.stderr)
    compare = run(
        *compare_args(bot, "random", "take4"),
        "--max-matches",
        "4",
        "--db",
        tmp_path / "c.db",
    )
    assert compare.returncode in (0, 1, 3), compare.stderr
    _no_raw(compare.stdout + compare.stderr)


def test_control_sequences_in_a_version_print_as_visible_escapes(tmp_path):
    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "escapes.py").write_text((TEXT_BOTS / "escapes.py").read_text())
    env = dict(os.environ, MALLOWS_BOTS_DIR=str(folder))
    listed = run("bots", "list", "--no-probe", env=env)
    assert listed.returncode == 0, listed.stderr
    _no_raw(listed.stdout + listed.stderr)
    assert "\\x1b]0;pwned\\x07" in listed.stdout
    shown = run("bots", "show", "escapes", env=env)
    assert shown.returncode == 0, shown.stderr
    _no_raw(shown.stdout + shown.stderr)


def test_a_bot_name_with_control_characters_is_refused_with_its_escapes(tmp_path):
    proc = run("play", "take4", "--bot", "random\x1b]0;x\x07", "--bot", "random")
    assert proc.returncode == 2
    assert "control character" in proc.stderr and "\\x1b" in proc.stderr
    for ch in RAW:
        assert ch not in proc.stderr
