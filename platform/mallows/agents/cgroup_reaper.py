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
then SIGKILLs every process still in this process's bot cgroups, in every hierarchy
(``cgroup.kill`` where the kernel has it), thaws every one of its freezers (a frozen process
dies only once thawed; on cgroup v1 the freezer is a hierarchy of its own, so the folder a
process is killed from is not the one that thaws it: every folder is killed, then every
freezer thawed, until none holds a process, for up to 10 s), then removes every folder
(again for up to 5 s: a folder stays busy until the kernel has released its last process). After a
normal end they are already gone and it simply exits. A forked child (a pid of its own)
starts its own.
"""

from __future__ import annotations

import os
import subprocess

_SCRIPT = r"""
owner=$1; shift
while read -r _ <&3; do :; done
i=0
while [ $i -lt 200 ]; do
  left=
  for base in "$@"; do
    for cg in "$base"/mallows-bot-"$owner"-*; do
      [ -d "$cg" ] || continue
      [ -f "$cg/cgroup.kill" ] && echo 1 > "$cg/cgroup.kill" 2>/dev/null
      procs=$(cat "$cg/cgroup.procs" 2>/dev/null)
      [ -z "$procs" ] && continue
      left=1
      kill -9 $procs 2>/dev/null
    done
  done
  for base in "$@"; do
    for cg in "$base"/mallows-bot-"$owner"-*; do
      [ -f "$cg/freezer.state" ] && echo THAWED > "$cg/freezer.state" 2>/dev/null
      [ -f "$cg/cgroup.freeze" ] && echo 0 > "$cg/cgroup.freeze" 2>/dev/null
    done
  done
  [ -z "$left" ] && break
  sleep 0.05
  i=$((i + 1))
done
i=0
while [ $i -lt 100 ]; do
  left=
  for base in "$@"; do
    for cg in "$base"/mallows-bot-"$owner"-*; do
      [ -d "$cg" ] || continue
      rmdir "$cg" 2>/dev/null || left=1
    done
  done
  [ -z "$left" ] && break
  sleep 0.05
  i=$((i + 1))
done
"""
#: The watcher is started in the background by a shell that exits at once: not a child of
#: this process, so a supervisor that kills a dead worker's children with it (Ray kills a
#: worker's child processes when the worker exits) does not kill the watcher before it has
#: thawed and killed the bot (a frozen sandbox outlived Ctrl-C of a run on Ray, issue 33).
#: The pipe is the watcher's fd 3: a background job's standard input is /dev/null (dash).
_LAUNCH = 'exec 3<&0; script=$1; shift; "$0" -c "$script" mallows-cgroup-reaper "$@" & exit 0'

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
        launcher = subprocess.Popen(
            [shell, "-c", _LAUNCH, shell, _SCRIPT, str(me), *bases],
            stdin=read,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            close_fds=True,
        )
        launcher.wait()  # it exits at once, leaving the watcher orphaned: not our child
    except OSError:
        os.close(write)
        return
    finally:
        os.close(read)
    _started[me] = write
