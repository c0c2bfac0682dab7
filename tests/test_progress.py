"""Tournament progress: ETA from the measured rate; plain lines when output is not a terminal."""

from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

from conftest import MALLOWS, REPO
from mallows.cli.progress import Meter, PlainProgress, eta_text


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def test_eta_comes_from_the_measured_rate():
    clock = Clock()
    meter = Meter(total=800, already=100, clock=clock)
    assert meter.rate() is None and meter.eta() is None
    clock.now += 1
    meter.add(5)  # too few to say
    assert meter.rate() == 5.0 and meter.eta() is None
    assert "ETA (measuring)" in meter.line("demo", "x")
    clock.now += 9
    meter.add(45)  # 50 matches in 10 s: 5/s, 650 left: 130 s
    assert meter.rate() == 5.0
    assert meter.eta() == 130.0
    assert "150/800 matches (19%), 5.0 matches/s, ETA 0:02:10" in meter.line("demo", "x")
    assert eta_text(3725) == "1:02:05"


def test_plain_lines_every_interval():
    clock = Clock()
    meter = Meter(10, 0, clock=clock)
    out = io.StringIO()
    plain = PlainProgress("t", meter, out, interval=5)
    for _ in range(10):
        clock.now += 1
        meter.add()
        plain.update(lambda: "bot (1.0)")
    lines = out.getvalue().splitlines()
    # the first result at once, then every 5 s: after 1, 6 s
    assert [line.split(":")[1].split()[0] for line in lines] == ["1/10", "6/10"]
    assert all("leader bot (1.0)" in line for line in lines)


def run_piped(tmp_path: Path, deals: int) -> subprocess.CompletedProcess:
    """``mallows tournament run`` of a two-bot Take4 file of ``deals`` deals, its output piped
    (no terminal): what a log sees."""
    (tmp_path / "t.toml").write_text(
        f'name = "p"\ngame = "take4"\nplayers = 2\ndeals = {deals}\nseed = 1\n'
        'bots = ["random", "greedy"]\n'
    )
    args = ["tournament", "run", str(tmp_path / "t.toml"), "--db", str(tmp_path / "r.db")]
    return subprocess.run(
        [MALLOWS, *args, "--workers", "1"], capture_output=True, text=True, cwd=REPO
    )


def test_run_prints_plain_progress_when_piped(tmp_path):
    proc = run_piped(tmp_path, deals=2)
    assert proc.returncode == 0, proc.stderr
    assert "p: 1/4 matches (25%)" in proc.stderr
    assert "\x1b[" not in proc.stderr  # no terminal control codes in a log


# -- issue 22 item 7: the count survives a narrow terminal; a log ends on a last line ---------


def test_fit_line_never_cuts_the_count():
    from mallows.cli.progress import fit_line

    for width in (14, 30, 60, 80, 120, 200):
        line = fit_line(
            width, "club-take4-progress", 125, 800, "263.5 matches/s", "0:00:07", "greedy (25.0)"
        ).plain
        assert "125/800" in line and len(line) <= width, (width, line)
    wide = fit_line(
        120, "club-take4-progress", 125, 800, "263.5 matches/s", "0:00:07", "greedy (25.0)"
    ).plain
    assert wide.startswith("club-take4-progress ━")
    assert wide.endswith("125/800 263.5 matches/s ETA 0:00:07 leader: greedy (25.0)")


def run_in_terminal(args: list[str], columns: int, timeout: float = 300) -> tuple[int, str]:
    """Run the console script on a pseudo-terminal of ``columns`` columns; its exit status and
    everything it drew (escape codes removed, each redraw on a line of its own)."""
    import fcntl
    import os
    import pty
    import re
    import struct
    import termios
    import time

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
    env = dict(os.environ, COLUMNS=str(columns), LINES="24", TERM="xterm-256color")
    env.pop("NO_COLOR", None)
    proc = subprocess.Popen(
        [MALLOWS, *args],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        cwd=REPO,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    chunks, deadline = [], time.monotonic() + timeout
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed: the command ended
            break
        if not data:
            break
        chunks.append(data)
        assert time.monotonic() < deadline, "the command did not end in time"
    os.close(master)
    code = proc.wait(timeout=60)
    text = b"".join(chunks).decode(errors="replace")
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)  # colours
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", text).replace("\r", "\n")  # moves
    return code, text


def test_progress_keeps_its_count_at_80_columns(tmp_path):
    (tmp_path / "t.toml").write_text(
        'name = "club-take4-progress"\ngame = "take4"\nplayers = 2\ndeals = 40\nseed = 1\n'
        'bots = ["random", "greedy", "denial", "random:call=0.5"]\n'
    )
    code, text = run_in_terminal(
        [
            "tournament",
            "run",
            str(tmp_path / "t.toml"),
            "--db",
            str(tmp_path / "r.db"),
            "--workers",
            "1",
        ],
        columns=80,
    )
    assert code == 0, text[-3000:]
    drawn = [line for line in text.splitlines() if "club-take4-prog" in line and "━" in line]
    assert drawn, text[-3000:]
    import re

    for line in drawn:
        assert re.search(r"\b\d+/480\b", line), line
        assert len(line.rstrip()) <= 80, line
    assert any("matches/s" in line for line in drawn)  # the rate shows once measured


def test_a_short_run_off_a_terminal_ends_on_a_last_line(tmp_path):
    proc = run_piped(tmp_path, deals=20)
    assert proc.returncode == 0, proc.stderr
    lines = [line for line in proc.stderr.splitlines() if re.match(r"p: \d+/", line)]
    assert lines[0].startswith("p: 1/40 matches")
    assert lines[-1].startswith("p: 40/40 matches (100%)"), lines
    assert "leader " in lines[-1] and "leader -" not in lines[-1]
