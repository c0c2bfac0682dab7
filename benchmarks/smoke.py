"""The smoke mode every benchmark has: ``--smoke`` plays a few matches so the script is known to
run (``tests/test_benchmarks_smoke.py`` runs every script so in CI); its figures mean nothing.
Imported by the scripts beside it (a script's own folder is on ``sys.path`` when it runs)."""

from __future__ import annotations

import argparse

HELP = "a few matches: checks that the script still runs (CI runs it so); figures mean nothing"


def add_smoke(ap: argparse.ArgumentParser) -> None:
    """Give the script's parser ``--smoke`` (``args.smoke``)."""
    ap.add_argument("--smoke", action="store_true", help=HELP)
