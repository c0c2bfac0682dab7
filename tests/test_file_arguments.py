"""Every file argument of every command is opened one way (``mallows.files``): a named pipe
(FIFO) is refused without being opened (it would block for ever), so are a device, a folder
where a file is wanted, an empty path and a name over 255 bytes (``Path.exists()`` raises
``ENAMETOOLONG`` on Python 3.11): exit 2, a message naming the path, what it is and the fix.

The FIFO cases run the console script under a time limit (a hang fails them, it cannot hang
the suite); the others run the app in this process."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import MALLOWS, REPO, invoke
from mallows import files
from mallows.errors import MallowsError, TournamentError

LONG = "A" * 300


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe"
    os.mkfifo(path)
    return path


def test_the_helpers_refuse_what_is_not_a_regular_file(tmp_path, fifo):
    fix = "give another"
    for path, said in [
        (fifo, "named pipe"),
        ("/dev/null", "character device"),
        (tmp_path, "folder"),
        ("", "empty path"),
        (tmp_path / LONG, "too long"),
        ("\x00x", "NUL"),
    ]:
        with pytest.raises(TournamentError, match=said):
            files.read_text(path, "tournament file", fix, TournamentError)
    good = tmp_path / "t.toml"
    good.write_bytes("\ufeffname = 1\n".encode())
    assert files.read_text(good, "tournament file", fix) == "name = 1\n"
    assert files.check_file(tmp_path / "missing", "x", fix) is None
    assert not files.exists(tmp_path / LONG) and not files.exists("")
    assert files.check_folder(tmp_path, "-o", fix) and not files.check_folder(
        tmp_path / "new", "-o", fix
    )
    with pytest.raises(MallowsError, match="is a named pipe"):
        files.check_folder(fifo, "-o", fix)
    with pytest.raises(MallowsError, match="is a file, not a folder"):
        files.check_writable(good / "under-a-file.json", "--record", fix)


def test_a_fifo_given_as_a_file_is_refused_at_once_by_every_command(tmp_path, fifo):
    """The ten cases of issue 33 that hung for ever: each a separate process, all at once."""
    db = tmp_path / "x.db"
    ladder = tmp_path / "l.toml"
    ladder.write_text(
        'name = "lo"\ngame = "take4"\nplayers = 2\nseed = 1\nbots = ["random", "greedy"]\n'
        "max_matches = 2\n"
    )
    assert (
        subprocess.run(
            [MALLOWS, "ladder", "run", str(ladder), "--db", str(db), "--workers", "1", "-q"],
            capture_output=True,
            timeout=300,
            cwd=REPO,
        ).returncode
        == 0
    )
    p = str(fifo)
    cases = [
        ["tournament", "run", p],
        ["ladder", "run", p],
        ["play", "take4", "--bot", p, "--bot", "random"],
        ["play", "take4", "--bot", "random", "--bot", "random", "--record", p],
        ["compare", p, "greedy", "--game", "take4", "--workers", "1"],
        ["compare", "random", p, "--game", "take4", "--workers", "1"],
        ["bots", "check", p],
        ["bots", "show", p],
        ["bots", "submit", p],
        ["ladder", "join", "lo", p],
        ["replay", p],
    ]
    procs = [
        subprocess.Popen(
            [MALLOWS, *args, "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
        )
        for args in cases
    ]
    failures = []
    for args, proc in zip(cases, procs):
        try:
            out, err = proc.communicate(timeout=300)  # a hang, not a loaded machine
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            failures.append(f"HANG: mallows {' '.join(args)}")
            continue
        if proc.returncode != 2 or "named pipe" not in err or "Traceback" in err:
            failures.append(f"mallows {' '.join(args)}: exit {proc.returncode}\n{out}{err}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize(
    "args",
    [
        ["ratings", "--db", LONG],
        ["tournament", "list", "--db", LONG],
        ["ladder", "status", "lo", "--db", LONG],
        ["report", "-o", "site", "--db", LONG],
        ["bots", "list", "--db", LONG],
        ["db", "repair", "--db", LONG],
        ["tournament", "run", LONG],
        ["bots", "check", f"./{LONG}"],
        ["replay", f"{LONG}.json"],
        ["report", "-o", LONG, "--db", "x.db"],
        ["play", "take4", "--bot", "random", "--bot", "random", "--record", f"d/{LONG}"],
    ],
)
def test_a_name_over_255_bytes_is_refused_with_a_message(tmp_path, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    result = invoke(*args)
    assert result.exit_code == 2, result.output
    said = "too long" in result.output or "longer than 255" in result.output
    assert said and "Traceback" not in result.output, result.output


@pytest.mark.parametrize(
    "value, said",  # typer reads "" as the path "." (Path("") is "."): named as a folder
    [("", "'.' is a folder"), (".", "is a folder"), ("/dev/null", "character device")],
)
def test_a_tournament_file_that_is_no_file_is_named_as_such(value, said):
    result = invoke("tournament", "run", value)
    assert result.exit_code == 2 and said in result.output, result.output
    assert "Errno" not in result.output  # words, not an OSError's text
