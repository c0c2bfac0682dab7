"""Benchmark: what two sandboxed bots can still tell each other, in bits per second.

Two bot processes, each in its own sandbox exactly as a tournament makes it (``sandbox.wrap``:
host user, seccomp filter, cgroups), run at the same time, as the deciders of two matches on
two workers do (the freezer stops a bot only between its own decisions, so two bots of two
matches can both run at once; two bots of ONE match never run at once). A sender keys one bit
per slot (on-off keying, a random secret); the receiver samples in the same slots (both read
the shared wall clock) and decides each bit against the median of what it saw. Per channel:
the slot, the bits right, and the capacity ``rate * (1 - H(error rate))`` in bits/s (0 when the
receiver does no better than guessing, within two standard deviations, or when the kernel
refused the channel outright).

Channels tried: file locks and inotify on a file both sandboxes see (refused by the seccomp
filter), the access time of such a file (read-only binds do not update it), the machine-wide
``/proc`` files (frozen copies in the sandbox: ``/proc/meminfo`` moved by memory the sender
takes in its tmpfs,
``/proc/stat`` by its CPU use, ``/proc/loadavg``), the ``sysinfo`` system call (machine-wide
shared memory: 13 bits/s before the filter refused it),
and CPU/memory-bandwidth contention timed by
the receiver's own loop on another CPU. Pipe buffers are not shared: each bot's pipes are its
own, the platform's only.

Run: ``python benchmarks/bench_channels.py [--bits N] [--slot-ms MS]``. Figures vary with the
machine's load; the closing note records them.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import subprocess
import sys
import time

from mallows.agents import sandbox
from smoke import add_smoke  # noqa: E402  (benchmarks/, beside this file)

AGENT = r"""
import fcntl, os, sys, time, ctypes
role, channel, t0, slot, bits = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
n = len(bits)
libc = ctypes.CDLL(None, use_errno=True)
shared = os.__file__

def wait_until(t):
    while time.time() < t:
        pass

def meminfo():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("Shmem:"):
                return int(line.split()[1])
    return 0

def stat_cpu():
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    return sum(int(x) for x in fields[:3])

class _SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3),
                ("totalram", ctypes.c_ulong), ("freeram", ctypes.c_ulong),
                ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong),
                ("procs", ctypes.c_ushort), ("pad", ctypes.c_char * 64)]

def sysinfo():
    info = _SysInfo()
    if libc.sysinfo(ctypes.byref(info)) != 0:
        raise OSError(ctypes.get_errno(), "sysinfo")
    return info.sharedram

def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])

def spin_loop(until):
    k = 0
    buf = bytearray(8 << 20)
    while time.time() < until:
        buf[k % len(buf)] = 1
        k += 4096
    return k

out = []
refused = ""
fd = os.open(shared, os.O_RDONLY)
if channel == "inotify":
    r = libc.inotify_init1(0)
    if r < 0:
        refused = f"inotify_init1: errno {ctypes.get_errno()}"
for i in range(n):
    start, end = t0 + i * slot, t0 + (i + 1) * slot
    wait_until(start)
    if refused:
        out.append(0.0)
        continue
    if role == "send":
        one = bits[i] == "1"
        try:
            if channel == "lock":
                fcntl.flock(fd, fcntl.LOCK_SH if one else fcntl.LOCK_UN)
            elif channel == "atime":
                if one:
                    os.pread(fd, 1, 0)
            elif channel in ("meminfo", "sysinfo"):
                if one:
                    with open("/dev/shm/fill", "wb") as f:
                        f.write(b"x" * (16 << 20))
                else:
                    try:
                        os.unlink("/dev/shm/fill")
                    except FileNotFoundError:
                        pass
            elif channel in ("stat", "loadavg", "contention"):
                if one:
                    spin_loop(end - slot * 0.05)
        except OSError as exc:
            refused = f"{channel}: {exc}"
        wait_until(end)
    else:
        try:
            if channel == "lock":
                wait_until(start + slot * 0.5)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    fcntl.flock(fd, fcntl.LOCK_UN)
                    out.append(0.0)
                except BlockingIOError:
                    out.append(1.0)
            elif channel == "atime":
                wait_until(start + slot * 0.9)
                out.append(os.stat(shared).st_atime_ns)
            elif channel == "meminfo":
                wait_until(start + slot * 0.8)
                out.append(meminfo())
            elif channel == "sysinfo":
                wait_until(start + slot * 0.8)
                out.append(sysinfo())
            elif channel == "stat":
                wait_until(start + slot * 0.1)
                a = stat_cpu()
                wait_until(start + slot * 0.9)
                out.append(stat_cpu() - a)
            elif channel == "loadavg":
                wait_until(start + slot * 0.9)
                out.append(loadavg())
            elif channel == "contention":
                wait_until(start + slot * 0.1)
                a = time.perf_counter()
                k = spin_loop(start + slot * 0.9)
                out.append(k / (time.perf_counter() - a))
        except OSError as exc:
            refused = f"{channel}: {exc}"
            out.append(0.0)
        wait_until(end)
print(repr((refused, out)), flush=True)
"""


def entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def start(role: str, channel: str, t0: float, slot: float, bits: str, cpu: int):
    w = sandbox.wrap(
        [sys.executable, "-S", "-c", AGENT, role, channel, str(t0), str(slot), bits],
        None,
        python=True,
        bot_paths=[],
        env={"PATH": "/usr/bin:/bin"},
        cpus=frozenset({cpu}),
    )
    proc = subprocess.Popen(
        w.command(),
        env=w.env,
        stdout=subprocess.PIPE,
        text=True,
        pass_fds=tuple(w.fds),
        preexec_fn=w.setup(None),
    )
    w.close_fds()
    return proc, w


def run(channel: str, slot: float, n: int, rng: random.Random) -> tuple[str, int, float]:
    bits = "".join(rng.choice("01") for _ in range(n))
    cpus = sorted(os.sched_getaffinity(0))
    t0 = time.time() + 1.5  # both sandboxes up by then
    procs = [
        start("send", channel, t0, slot, bits, cpus[0]),
        start("recv", channel, t0, slot, bits, cpus[-1]),
    ]
    outs = []
    for proc, w in procs:
        text, _ = proc.communicate(timeout=n * slot + 60)
        if w.cgroup is not None:
            w.cgroup.remove()
        outs.append(eval(text.strip().splitlines()[-1]) if text.strip() else ("no output", []))
    refused = outs[0][0] or outs[1][0]
    seen = outs[1][1]
    if refused or not seen:
        return refused or "no samples", 0, 0.0
    if channel in ("atime", "loadavg"):  # a change from the slot before
        seen = [0.0] + [b - a for a, b in zip(seen, seen[1:])]
    cut = sorted(seen)[len(seen) // 2]
    guess = [("1" if v > cut else "0") for v in seen]
    if channel == "contention":  # the receiver's loop is slower when the sender runs
        guess = [("1" if v < cut else "0") for v in seen]
    right = sum(a == b for a, b in zip(guess, bits))
    err = 1 - right / n
    err = min(err, 1 - err)  # a receiver may read it inverted
    if abs(right - n / 2) <= 2 * math.sqrt(n / 4):  # within two sigma of guessing
        return "", right, 0.0
    return "", right, (1 / slot) * (1 - entropy(err))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bits", type=int, default=200)
    ap.add_argument("--slot-ms", type=float, default=50.0)
    add_smoke(ap)
    args = ap.parse_args()
    if args.smoke:
        args.bits, args.slot_ms = 2, 10.0
    why = sandbox.problem()
    if why:
        raise SystemExit(f"no sandbox on this machine: {why}")
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}; sandbox: "
        f"{sandbox.status()['host_user']}; {sandbox.cpu_control()}",
        flush=True,
    )
    rng = random.Random(19)
    slot = args.slot_ms / 1000
    for channel in (
        "lock",
        "inotify",
        "atime",
        "meminfo",
        "sysinfo",
        "stat",
        "loadavg",
        "contention",
    ):
        refused, right, capacity = run(channel, slot, args.bits, rng)
        if refused:
            print(f"  {channel:10s}: refused ({refused}): 0 bits/s", flush=True)
        else:
            chance = " (no better than guessing)" if capacity == 0 else ""
            print(
                f"  {channel:10s}: {right}/{args.bits} bits right at {args.slot_ms:g} ms a "
                f"bit: {capacity:.1f} bits/s{chance}",
                flush=True,
            )


if __name__ == "__main__":
    main()
