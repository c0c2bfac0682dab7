"""Tries to read its parent (the platform) from outside, at the handshake, and says what it got
in an extra "report" field of its hello reply: /proc/<ppid>/environ, /proc/<ppid>/maps and the
parent's memory through /proc/<ppid>/mem (it looks for every `MALLOWS-SECRET-` followed by 32
hex digits), and ptrace (PTRACE_SEIZE; on success it interrupts and detaches at once). Each
attempt reports what it read or the errno name it failed with. Standard library only, so any
Python 3 can run it; afterwards it plays legal random moves."""
import ctypes
import errno
import json
import os
import random
import re
import sys

PATTERN = re.compile(rb"MALLOWS-SECRET-([0-9a-f]{32})")
SCAN_LIMIT = 1 << 30
PTRACE_SEIZE, PTRACE_INTERRUPT, PTRACE_DETACH, WALL = 0x4206, 0x4207, 17, 0x40000000


def failed(exc):
    return errno.errorcode.get(exc.errno, str(exc.errno))


def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return line.split()[1]
    return None


def probe(ppid):
    report = {"ppid": ppid, "uid": os.getuid(), "gid": os.getgid(),
              "groups": os.getgroups(), "cap_eff": status("CapEff"),
              "no_new_privs": status("NoNewPrivs"), "env": sorted(os.environ), "found": []}
    try:
        with open(f"/proc/{ppid}/environ", "rb") as f:
            report["environ"] = f"read {len(f.read())} bytes"
    except OSError as exc:
        report["environ"] = failed(exc)
    regions = []
    try:
        with open(f"/proc/{ppid}/maps") as f:
            for line in f:
                fields = line.split()
                start, end = (int(x, 16) for x in fields[0].split("-"))
                if fields[1].startswith("rw") and (len(fields) < 6 or fields[5] == "[heap]"):
                    regions.append((start, end))
        report["maps"] = f"read {len(regions)} regions"
    except OSError as exc:
        report["maps"] = failed(exc)
    try:
        mem = open(f"/proc/{ppid}/mem", "rb", buffering=0)
    except OSError as exc:
        report["mem"] = failed(exc)
    else:
        total, found = 0, set()
        with mem:
            for start, end in regions:
                if total > SCAN_LIMIT:
                    break
                try:
                    mem.seek(start)
                    data = mem.read(end - start)
                except OSError:
                    continue
                total += len(data)
                found.update(m.group(1).decode() for m in PATTERN.finditer(data))
        report["mem"] = f"read {total} bytes"
        report["found"] = sorted(found)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    if libc.ptrace(PTRACE_SEIZE, ppid, None, None) == 0:
        report["ptrace"] = "attached"
        libc.ptrace(PTRACE_INTERRUPT, ppid, None, None)
        os.waitpid(ppid, WALL)
        libc.ptrace(PTRACE_DETACH, ppid, None, None)
    else:
        report["ptrace"] = errno.errorcode.get(ctypes.get_errno(), "?")
    return report


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            reply = {"type": "hello", "protocol": 1, "name": "peeker", "version": "1.0",
                     "games": ["arschmallows", "take4"], "report": probe(os.getppid())}
        elif kind == "act":
            action = rng.choice(message["observation"]["legal_actions"])
            if action["type"] == "get_rid":
                action = {"type": "get_rid", "slots": action["choose_from"][:2]}
            reply = {"type": "action", "action": action}
        elif kind in ("start", "end"):
            reply = {"type": "ok"}
        else:
            return
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


main()
