"""Benchmark: where the README's first command spends its time, phase by phase.

    python benchmarks/bench_demo.py [--no-install] [--workers N]

The first command of the README is ``python3 -m venv .venv && .venv/bin/pip install -q -e . &&
.venv/bin/mallows tournament run tournaments/demo.toml``. This runs the same steps on a copy of
the project in a temporary folder and prints the seconds of each: making the venv, installing
mallows and its dependencies (pip's download cache makes a second install faster than the
first: the figure says which it was only as far as the machine's cache does), and the demo
tournament itself split into the console script's start (importing mallows), the local Ray's
start-up (the time before the first match), the matches, and the rest (the table). With
``--no-install`` the tournament runs with this interpreter's ``mallows`` (the console script
beside it), so only the tournament's phases are measured. The machine's capacity is printed
first: on a busy machine every phase is slower.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from capacity import capacity  # noqa: E402
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
    t0 = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed ({out.returncode}):\n{out.stderr[-3000:]}")
    return wall, out.stdout + out.stderr


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--no-install",
        action="store_true",
        help="skip the venv and the install: time the tournament only",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=None,
        help="--workers for the demo (default: the README's, the CPU count)",
    )
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.no_install, args.workers = True, 1
    print(capacity(), flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="mallows-demo-"))
    try:
        work = tmp / "mallows"
        anywhere = shutil.ignore_patterns(
            "__pycache__", "*.egg-info", ".hypothesis", ".pytest_cache"
        )

        def ignore(folder: str, names: list[str]) -> set[str]:
            left = set(anywhere(folder, names))
            if Path(folder) == ROOT:  # the project's own results, venv and artifacts
                left |= {
                    n for n in names if n in (".venv", "venv", "results", ".git", "test-artifacts")
                }
            return left

        shutil.copytree(ROOT, work, ignore=ignore)
        (work / "results").mkdir()
        if args.smoke:  # the same command on a demo of 2 deals (40 matches)
            demo = work / "tournaments" / "demo.toml"
            demo.write_text(re.sub(r"(?m)^deals = \d+", "deals = 2", demo.read_text()))
        env = dict(os.environ, RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER="0")
        if args.no_install:
            mallows = str(Path(sys.executable).with_name("mallows"))
        else:
            venv, _ = timed([sys.executable, "-m", "venv", ".venv"], work, env)
            print(f"python3 -m venv .venv: {venv:.1f} s", flush=True)
            install, _ = timed(
                [str(work / ".venv" / "bin" / "pip"), "install", "-q", "-e", "."], work, env
            )
            print(
                f"pip install -q -e . (mallows and its dependencies, Ray the largest; "
                f"with this machine's pip cache): {install:.1f} s",
                flush=True,
            )
            mallows = str(work / ".venv" / "bin" / "mallows")
        start, _ = timed([mallows, "--help"], work, env)
        print(
            f"the console script's start (python and mallows imported, --help): {start:.1f} s",
            flush=True,
        )
        cmd = [mallows, "tournament", "run", "tournaments/demo.toml"]
        if args.workers is not None:
            cmd += ["--workers", str(args.workers)]
        total, text = timed(cmd, work, env)
        played = re.search(
            r"played (\d+) matches \(\d+ already stored\) in ([\d.]+) s on "
            r"([^:]+): ([\d.]+) matches/s",
            " ".join(text.split()),
        )
        if played is None:
            sys.exit(f"no 'played ...' line in the demo's output:\n{text[-3000:]}")
        matches, wall, executor, rate = played.groups()
        before = total - float(wall)
        ray = "ray" in executor
        print(
            f"the demo tournament: {total:.1f} s in all: {matches} matches in {float(wall):.1f} "
            f"s on {executor} ({rate} matches/s), and {before:.1f} s around them (the "
            f"console script's start, checking the bots, "
            + ("starting a local Ray, " if ray else "")
            + "the table)",
            flush=True,
        )
        return 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
