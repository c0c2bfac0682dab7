"""The observer of the channel test: on each ``snap`` it prints, as one JSON line, everything it
can see that is not its own process: every file under ``/proc`` but the PID folders, the
listings of its folders, and what a fresh pipe, message queue, signal, child, locked page and
file descriptor in flight get (limits
shared with other processes of one host user). Two snapshots differ only if something outside
this sandbox moved what it sees."""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import signal
import socket
import sys

LIBC = ctypes.CDLL(None, use_errno=True)


def files(out: dict) -> None:
    for root, dirs, names in os.walk("/proc"):
        if root == "/proc":
            dirs[:] = [d for d in dirs if not d.isdigit() and d not in ("self", "thread-self")]
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                continue
            try:
                with open(path, "rb") as f:
                    data = f.read(1 << 20)
                out[path] = hashlib.sha1(data).hexdigest()[:12] + " " + data[:60].decode("latin-1")
            except OSError as exc:
                out[path] = f"errno {exc.errno}"
    for folder in ("/", "/dev", "/etc", "/proc/sys", "/proc/sys/fs"):
        out[f"ls {folder}"] = " ".join(sorted(n for n in os.listdir(folder) if not n.isdigit()))


def probes(out: dict) -> None:
    import fcntl

    r, w = os.pipe()
    out["pipe size"] = fcntl.fcntl(w, 1032)  # F_GETPIPE_SZ
    os.close(r)
    os.close(w)
    a, b = socket.socketpair()
    try:
        socket.send_fds(a, [b"f"], [a.fileno()])
        out["fds in flight"] = "ok"
    except OSError as exc:
        out["fds in flight"] = f"errno {exc.errno}"
    a.close()
    b.close()
    shm = LIBC.shmget(0, 4096, 0o1600)
    out["SHM_LOCK"] = "ok" if LIBC.shmctl(shm, 11, None) == 0 else f"errno {ctypes.get_errno()}"
    LIBC.shmctl(shm, 0, None)  # IPC_RMID
    try:
        rt = ctypes.CDLL("librt.so.1", use_errno=True)
        q = rt.mq_open(b"/observer", os.O_CREAT | os.O_RDWR, 0o600, None)
        out["mq_open"] = "ok" if q >= 0 else f"errno {ctypes.get_errno()}"
        if q >= 0:
            rt.mq_close(q)
            rt.mq_unlink(b"/observer")
    except OSError as exc:
        out["mq_open"] = str(exc)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN + 1})
    rc = LIBC.sigqueue(os.getpid(), int(signal.SIGRTMIN + 1), ctypes.c_void_p(0))
    out["sigqueue"] = "ok" if rc == 0 else f"errno {ctypes.get_errno()}"
    signal.sigtimedwait({signal.SIGRTMIN + 1}, 0)
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
        out["fork"] = "ok"
    except OSError as exc:
        out["fork"] = f"errno {exc.errno}"
    buf = ctypes.create_string_buffer(128)
    out["sysinfo"] = "ok" if LIBC.sysinfo(buf) == 0 else f"errno {ctypes.get_errno()}"
    for root in ("/tmp", "/dev/shm"):
        st = os.statvfs(root)
        out[f"statvfs {root}"] = [st.f_bfree, st.f_ffree]
    out["cpu count"] = os.cpu_count()


def main() -> None:
    for line in sys.stdin:
        if line.strip() == "snap":
            out: dict = {}
            files(out)
            probes(out)
            print(json.dumps(out, sort_keys=True), flush=True)
        else:
            return


if __name__ == "__main__":
    main()
