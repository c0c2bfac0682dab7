"""Putting a written report in place whole: ``publish(out, write)``.

``mallows report -o OUT`` writes every page into a new folder beside ``OUT``
(``.OUT.partial-<pid>``) and only when the last page is written moves it into place: the old
site is renamed aside (``.OUT.old-<pid>``), the new one renamed to ``OUT``, the old one deleted.
So a report killed at any moment leaves the old site as it was (or, killed between the two
renames, no site at ``OUT`` and the old one aside), never a site with broken links; and pages
of tournaments that are no longer in the database are gone, since the new site holds only
what was written. Leftovers of killed reports (their pid is gone: a partial site, an old one,
the empty folder that probed whether ``OUT``'s parent can be written) are removed by the next
report to the same folder.

A folder ``OUT`` that is neither empty nor a mallows report (it has no ``MARKER``, nor the
``index.html`` and ``static/replay.js`` of an older report) is refused: the report never
replaces someone else's files.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path

from mallows.errors import MallowsError

#: Written into every report's folder: it says the folder is one mallows may replace.
MARKER = ".mallows-report"


def _is_report(folder: Path) -> bool:
    return (folder / MARKER).is_file() or (
        (folder / "index.html").is_file() and (folder / "static" / "replay.js").is_file()
    )


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: what a report makes beside ``OUT``: the new site, the old one, and the empty folder that
#: probes whether ``OUT``'s parent can be written (``mallows.cli.report.check_out_folder``)
BESIDE = ("partial", "old", "probe")


def beside(out: Path, kind: str) -> Path:
    """This report's folder of ``kind`` (``BESIDE``) beside ``out``: ``.OUT.KIND-<pid>``."""
    out = Path(out).absolute()
    return out.with_name(f".{out.name}.{kind}-{os.getpid()}")


def _sweep(out: Path) -> None:
    """Remove what killed reports to ``out`` left beside it."""
    for kind in BESIDE:
        for left in out.parent.glob(f".{out.name}.{kind}-*"):
            pid = left.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not _alive(int(pid)) and left.is_dir():
                shutil.rmtree(left, ignore_errors=True)


def check_target(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise MallowsError(f"-o {out} is a file: give a folder for the site")
    if out.is_dir() and any(out.iterdir()) and not _is_report(out):
        raise MallowsError(
            f"-o {out} holds files that are not a mallows report: give a new or "
            f"empty folder (or an earlier report's), which the report replaces "
            f"whole"
        )


def publish(out: Path, write: Callable[[Path], int]) -> int:
    """Run ``write(folder)`` into a new folder beside ``out``, then put it in place of ``out``;
    returns what ``write`` returned."""
    out = Path(out).absolute()
    check_target(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    _sweep(out)
    partial, old = beside(out, "partial"), beside(out, "old")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        count = write(partial)
        (partial / MARKER).write_text(
            "a mallows report: `mallows report -o` replaces this folder whole\n"
        )
        if out.exists():
            os.rename(out, old)
        os.rename(partial, out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        if old.exists() and not out.exists():
            os.rename(old, out)  # put the old site back
        raise
    shutil.rmtree(old, ignore_errors=True)
    return count
