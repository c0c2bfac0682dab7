"""The sender of the channel test: on ``go`` it does everything a bot may (every family of
system calls it is allowed, with varied arguments: memory, files in its tmpfs, processes,
threads, pipes, sockets, IPC, timers, signals, the calls the filter refuses too) and holds what
it made; on ``stop`` it lets everything go. It prints what worked, one line a step."""

from __future__ import annotations

import ctypes
import mmap
import os
import signal
import socket
import sys
import threading
import time

LIBC = ctypes.CDLL(None, use_errno=True)
HELD: list = []
DONE: list[str] = []


def step(name: str, fn) -> None:
    try:
        fn()
        DONE.append(f"{name}: ok")
    except Exception as exc:  # each step is tried; a refusal is a finding, not a failure
        DONE.append(f"{name}: {type(exc).__name__} {exc}")


def syscall(nr: int, *args) -> int:
    r = LIBC.syscall(nr, *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    if r < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return r


def memory() -> None:
    for size in (1 << 20, 16 << 20, 48 << 20):
        m = mmap.mmap(-1, size)
        m.write(b"x" * size)
        HELD.append(m)


def files() -> None:
    for root in ("/tmp", "/dev/shm"):
        os.makedirs(f"{root}/d/e", exist_ok=True)
        for i in range(300):
            with open(f"{root}/d/f{i}", "wb") as f:
                f.write(b"y" * 4096 * (i % 4))
        with open(f"{root}/big", "wb") as f:
            f.write(b"z" * (8 << 20))
        os.symlink(f"{root}/big", f"{root}/link")
        os.link(f"{root}/big", f"{root}/hard")
        HELD.append(open(f"{root}/big", "rb"))
    fd = os.memfd_create("m")
    os.write(fd, b"w" * (4 << 20))
    HELD.append(fd)


def processes() -> None:
    for _ in range(12):
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        HELD.append(("pid", pid))
    stop = threading.Event()
    for _ in range(8):
        t = threading.Thread(target=stop.wait, daemon=True)
        t.start()
    HELD.append(stop)


def pipes() -> None:
    import fcntl

    for _ in range(80):
        r, w = os.pipe()
        try:
            fcntl.fcntl(w, 1031, 1 << 20)  # F_SETPIPE_SZ: pages counted per host user
            DONE.append("F_SETPIPE_SZ: WORKED")
        except OSError:
            pass
        os.write(w, b"p" * 4096)
        HELD.extend([r, w])
    # without it: 5 processes holding as many pipes as RLIMIT_NOFILE lets each (1,024 pipes
    # of 16 pages reach the per-user soft limit, and new pipes get 2 pages)
    for _ in range(5):
        pid = os.fork()
        if pid == 0:
            os.closerange(3, 1 << 16)  # what it inherited would count against RLIMIT_NOFILE
            try:
                while True:
                    r, w = os.pipe()
                    os.close(w)  # the pipe lives on with its read end
            except OSError:
                time.sleep(60)
            os._exit(0)
        HELD.append(("pid", pid))
    time.sleep(0.5)


def locked() -> None:
    """Locked shared memory (SHM_LOCK), counted per host user: as much as it may lock."""
    import resource

    soft = resource.getrlimit(resource.RLIMIT_MEMLOCK)[0]
    size = max(4096, min(64 << 20, soft if soft != resource.RLIM_INFINITY else 64 << 20))
    shm = LIBC.shmget(0, size, 0o1600)
    if shm < 0:
        raise OSError(ctypes.get_errno(), "shmget")
    if LIBC.shmctl(shm, 11, None) == 0:  # SHM_LOCK
        DONE.append(f"SHM_LOCK of {size} bytes: WORKED")


def in_flight() -> None:
    """File descriptors sent and not received (SCM_RIGHTS): counted per host user."""
    a, b = socket.socketpair()
    a.setblocking(False)
    sent = 0
    try:
        for _ in range(400):
            socket.send_fds(a, [b"f"], [a.fileno()] * 250)
            sent += 250
    except OSError as exc:
        DONE.append(f"fds in flight: {sent}, then errno {exc.errno}")
    HELD.extend([a, b])


def sockets() -> None:
    a, b = socket.socketpair()
    a.send(b"s" * 1000)
    HELD.extend([a, b])
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    c = socket.create_connection(srv.getsockname())
    HELD.extend([srv, c, srv.accept()[0]])
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.sendto(b"u", ("127.0.0.1", 9))
    HELD.append(u)


def sysv() -> None:
    shmget, msgget, semget = LIBC.shmget, LIBC.msgget, LIBC.semget
    for fn, args in (
        (shmget, (0, 16 << 20, 0o1600)),
        (msgget, (0, 0o1600)),
        (semget, (0, 8, 0o1600)),
    ):
        if fn(*args) < 0:
            raise OSError(ctypes.get_errno(), "sysv")


def mqueue() -> None:
    rt = ctypes.CDLL("librt.so.1", use_errno=True)
    for i in range(64):  # until the host user's RLIMIT_MSGQUEUE bytes are used up
        q = rt.mq_open(f"/q{i}".encode(), os.O_CREAT | os.O_RDWR, 0o600, None)
        if q < 0:
            DONE.append(f"mq_open: {i} queues, then errno {ctypes.get_errno()}")
            return
        HELD.append(q)


def fds() -> None:
    HELD.append(syscall(290, 5, 0))  # eventfd2
    HELD.append(syscall(283, 1, 0))  # timerfd_create(CLOCK_MONOTONIC)
    HELD.append(os.open("/proc/self/stat", os.O_RDONLY))
    HELD.append(syscall(291, 0))  # epoll_create1


def signals() -> None:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGRTMIN})
    for i in range(100_000):  # queued until RLIMIT_SIGPENDING, counted per host user
        if LIBC.sigqueue(os.getpid(), int(signal.SIGRTMIN), ctypes.c_void_p(i)) != 0:
            DONE.append(f"sigqueue: {i} queued, then errno {ctypes.get_errno()}")
            return


def refused() -> None:
    ctx = ctypes.c_ulong(0)
    for n in (1, 4321, 65000):
        if LIBC.syscall(206, n, ctypes.byref(ctx)) == 0:  # io_setup (x86-64)
            DONE.append(f"io_setup({n}): WORKED")
    for path in ("/dev/ptmx", "/dev/pts/ptmx"):
        try:
            HELD.append(os.open(path, os.O_RDWR | os.O_NOCTTY))
            DONE.append(f"{path}: WORKED")
        except OSError:
            pass
    fd = os.open(sys.executable, os.O_RDONLY)
    HELD.append(fd)
    # the page cache of the runtime's files, shared by every sandbox: every probe refused
    page = mmap.mmap(fd, 4096, access=mmap.ACCESS_COPY)  # the file's pages, not yet copied
    HELD.append(page)
    vec = ctypes.create_string_buffer(1)
    buf = ctypes.create_string_buffer(64)
    iov = (ctypes.c_void_p * 2)(ctypes.cast(buf, ctypes.c_void_p), 64)
    stat = ctypes.create_string_buffer(64)
    cache_range = (ctypes.c_uint64 * 2)(0, 4096)
    probes = {
        "fadvise64": lambda: LIBC.syscall(221, fd, 0, 0, 4),  # POSIX_FADV_DONTNEED
        "readahead": lambda: LIBC.syscall(187, fd, ctypes.c_long(0), ctypes.c_long(1 << 20)),
        "mincore": lambda: LIBC.mincore(ctypes.c_void_p(_address(page)), 4096, vec),
        "cachestat": lambda: LIBC.syscall(451, fd, cache_range, stat, 0),
        "preadv2 RWF_NOWAIT": lambda: LIBC.syscall(327, fd, iov, 1, 0, 0, 8),
        "pwritev2 RWF_NOWAIT": lambda: LIBC.syscall(328, _tmp_file(), iov, 1, 0, 0, 8),
    }
    for name, probe in probes.items():
        if probe() >= 0:
            DONE.append(f"{name}: WORKED")
    if LIBC.syscall(327, fd, iov, 1, 0, 0, 0) != 64:  # a plain preadv2 still reads
        DONE.append("plain preadv2: refused (it should not be)")
    try:
        os.sched_setaffinity(0, {0})
        DONE.append("sched_setaffinity: WORKED")
    except OSError:
        pass


def _address(m: mmap.mmap) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(m))


def _tmp_file() -> int:
    fd = os.open("/tmp/nowait", os.O_RDWR | os.O_CREAT, 0o600)
    HELD.append(fd)
    return fd


def cpu() -> None:
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
    os.nice(5)
    os.urandom(1 << 16)


def main() -> None:
    for line in sys.stdin:
        if line.strip() == "go":
            for name, fn in (
                ("signals", signals),  # first: the threads below inherit the blocked signal
                ("memory", memory),
                ("files", files),
                ("processes", processes),
                ("pipes", pipes),
                ("locked", locked),
                ("in flight", in_flight),
                ("sockets", sockets),
                ("sysv", sysv),
                ("mqueue", mqueue),
                ("fds", fds),
                ("refused", refused),
                ("cpu", cpu),
            ):
                step(name, fn)
            print("done " + "; ".join(DONE), flush=True)
        elif line.strip() == "stop":
            for item in HELD:
                if isinstance(item, tuple):
                    os.kill(item[1], signal.SIGKILL)
                    os.waitpid(item[1], 0)
            print("stopped", flush=True)
            return


if __name__ == "__main__":
    main()
