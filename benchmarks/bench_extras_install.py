"""How long installing the optional learning extras takes (what ``.ci/run`` adds to CI by
installing ``[test]``, which includes them): a fresh virtual environment, then
``pip install open_spiel pettingzoo gymnasium`` timed, with pip's wheel cache as it is on this
machine (``--no-cache`` downloads again), and the size they take on disk.

    python benchmarks/bench_extras_install.py [--no-cache]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

PACKAGES = ["open_spiel>=1.5", "pettingzoo>=1.24", "gymnasium>=0.29"]


def size_mb(folder: Path) -> float:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-cache", action="store_true", help="bypass pip's wheel cache")
    add_smoke(parser)
    args = parser.parse_args()
    if args.smoke:  # no venv, no install: the packages it would time, and a clean exit
        print(f"smoke: would time numpy, then {' '.join(PACKAGES)} on top, in a fresh venv")
        return
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        if args.no_cache:
            pip.append("--no-cache-dir")
        t0 = time.perf_counter()
        subprocess.run(pip + ["numpy"], check=True)
        base = time.perf_counter() - t0
        before = size_mb(venv)
        t0 = time.perf_counter()
        subprocess.run(pip + PACKAGES, check=True)
        extras = time.perf_counter() - t0
        print(f"numpy alone (baseline): {base:.1f} s")
        print(
            f"open_spiel + pettingzoo + gymnasium on top: {extras:.1f} s, "
            f"{size_mb(venv) - before:.0f} MiB on disk"
            + (" (no wheel cache)" if args.no_cache else " (pip's wheel cache as it is)")
        )


if __name__ == "__main__":
    main()
