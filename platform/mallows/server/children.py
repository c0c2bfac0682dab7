"""The server's own processes: ``mallows`` commands it runs (a submitted bot's check, the hosted
ladder) that end when the server ends, however it ends.

Owns ``cli_command(args, death)``: the command that runs ``mallows ARGS`` with this Python, in
a process that gets signal ``death`` when the server dies (Linux's parent-death signal, set
before anything runs; a process whose server died before that exits at once), so a server
killed with ``kill -9`` leaves no check or ladder running behind it that its restart would
run a second time. Elsewhere (no ``prctl``) the command runs without it.
"""

from __future__ import annotations

import os
import signal
import sys

PR_SET_PDEATHSIG = 1

CODE = """import os, sys
try:
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl({flag}, {death})
except (AttributeError, OSError):
    pass
if os.getppid() != {server}:
    sys.exit(128 + {death})
from mallows.cli import main
sys.argv[0] = "mallows"
main()
"""


def cli_command(args: list[str], death: int = signal.SIGTERM) -> list[str]:
    """``mallows ARGS`` as a process of this server, signalled ``death`` when it dies."""
    code = CODE.format(flag=PR_SET_PDEATHSIG, death=int(death), server=os.getpid())
    return [sys.executable, "-c", code, *args]
