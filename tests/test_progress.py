"""Tournament progress: ETA from the measured rate; plain lines when output is not a terminal."""

from __future__ import annotations

import io
import subprocess

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


def test_run_prints_plain_progress_when_piped(tmp_path):
    (tmp_path / "t.toml").write_text(
        'name = "p"\ngame = "take4"\nplayers = 2\ndeals = 2\nseed = 1\n'
        'bots = ["random", "greedy"]\n')
    proc = subprocess.run([MALLOWS, "tournament", "run", str(tmp_path / "t.toml"), "--db",
                           str(tmp_path / "r.db"), "--workers", "1"], capture_output=True,
                          text=True, cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "p: 1/4 matches (25%)" in proc.stderr
    assert "\x1b[" not in proc.stderr  # no terminal control codes in a log
