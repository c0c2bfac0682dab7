"""Nothing of a sandboxed bot outlives the platform process, ``kill -9`` included.

Each bot's processes live in cgroups named ``mallows-bot-<platform pid>-<n>``
(``sandbox.BotCgroup``), and bwrap is told to die with its parent. That is not enough: when
the platform is killed at the instant between bwrap's ``clone`` and its child's
``PR_SET_PDEATHSIG``, the outer bwrap dies with the platform but its child does not, and waits
for ever for a word from its dead parent: PID 1 of its own namespace, in its own session,
adopted by init, found 89 minutes later (issue 26, item 10).

So the first time a process makes a bot cgroup, ``ensure()`` starts a watcher: a small shell
in its own session (``/bin/sh``: a millisecond to start) reading a pipe whose only writer is
this process. When this process ends, in any way, the read returns end-of-file; the watcher
then SIGKILLs every process still in this process's bot cgroups (thawing the frozen: a
frozen process dies only once thawed) and removes them. After a
normal end they are already gone and it simply exits. A forked child (a pid of its own)
starts its own.
"""

from __future__ import annotations

import os
import subprocess

_SCRIPT = r"""
owner=$1; shift
while read -r _; do :; done
for base in "$@"; do
  for cg in "$base"/mallows-bot-"$owner"-*; do
    [ -d "$cg" ] || continue
    i=0
    while [ $i -lt 40 ]; do
      procs=$(cat "$cg/cgroup.procs" 2>/dev/null)
      [ -z "$procs" ] && break
      kill -9 $procs 2>/dev/null
      [ -f "$cg/freezer.state" ] && echo THAWED > "$cg/freezer.state" 2>/dev/null
      [ -f "$cg/cgroup.freeze" ] && echo 0 > "$cg/cgroup.freeze" 2>/dev/null
      sleep 0.05
      i=$((i + 1))
    done
    rmdir "$cg" 2>/dev/null
  done
done
"""

_started: dict[int, int] = {}  # this process's pid -> the write end of its watcher's pipe


def ensure(bases: list[str]) -> None:
    """Start this process's watcher over its bot cgroups under ``bases``, once per pid."""
    me = os.getpid()
    if me in _started or not bases:
        return
    shell = "/bin/sh"
    if not os.access(shell, os.X_OK):
        return
    read, write = os.pipe()  # both ends close-on-exec: no bot inherits the write end
    try:
        subprocess.Popen(
            [shell, "-c", _SCRIPT, "mallows-cgroup-reaper", str(me), *bases],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        os.close(write)
        return
    finally:
        os.close(read)
    _started[me] = write
