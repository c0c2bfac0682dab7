"""The seccomp filter of every sandboxed bot: a classic BPF program built here, handed to bwrap's
``--seccomp FD``, which loads it just before it runs the bot (so everything the bot starts
inherits it; a filter cannot be removed).

What it refuses (``EPERM`` unless said otherwise), because no bot needs it and each is either a
way into the kernel or a channel between bots:

- new namespaces and joining one: ``unshare``, ``setns``, ``clone`` with a ``CLONE_NEW*`` flag;
  ``clone3`` answers ``ENOSYS`` (its flags are in memory a filter cannot read), so the C library
  falls back to ``clone``, whose flags are checked;
- mounting: ``mount``, ``umount2``, ``pivot_root`` and the new mount API (``open_tree``,
  ``move_mount``, ``fsopen``, ``fsconfig``, ``fsmount``, ``fspick``, ``mount_setattr``);
- reading or steering other processes: ``ptrace``, ``process_vm_readv``/``writev``, ``kcmp``;
- kernel interfaces: ``bpf``, ``perf_event_open``, ``userfaultfd``, ``io_uring_setup``,
  ``keyctl``, ``add_key``, ``request_key`` (the kernel keyrings are shared by every process of
  one host uid), ``init_module``, ``finit_module``, ``delete_module``, ``kexec_load``,
  ``kexec_file_load``, ``reboot``, ``swapon``/``swapoff``, ``acct``, ``quotactl``, ``syslog``,
  ``lookup_dcookie``, ``open_by_handle_at``/``name_to_handle_at``, ``vhangup``, ``iopl``/``ioperm``,
  ``uselib``;
- every file lock and file notification: ``flock``, and ``fcntl`` with ``F_GETLK``, ``F_SETLK``,
  ``F_SETLKW``, their ``F_OFD_*`` forms, ``F_SETLEASE``/``F_GETLEASE`` and ``F_NOTIFY``; and
  ``inotify_init``/``inotify_init1``/``fanotify_init``: a lock or a watch on a file two
  sandboxes both see (the runtime's files are the same inodes in every sandbox) is a channel
  between bots, and no bot needs one on its private ``/tmp`` either;
- ``fcntl`` with ``F_SETPIPE_SZ``: a pipe's buffer pages are counted per host user
  (``/proc/sys/fs/pipe-user-pages-soft``); with one host uid for every sandbox (a platform
  that is not root), a bot growing its pipes to 1 MiB shrinks every other bot's new pipes to
  one page after 64 of them. Refused, a bot needs 1,024 pipes at once, more than its
  ``RLIMIT_NOFILE`` (``mallows.agents.isolation.NOFILE``) in one process;
- ``sysinfo``: the machine's free and shared memory, moved by what another bot allocates
  (13 bits/s between two bots running at once, measured by ``benchmarks/bench_channels.py``);
  the same figures are in ``/proc/meminfo``, which the sandbox shows as a frozen copy. A C
  library asking it (glibc's ``sysconf(_SC_PHYS_PAGES)``) gets no answer;
- the machine-wide kernel objects and caches one bot could move and another see: AIO
  contexts (``io_setup`` and the other ``io_*`` calls: they move ``/proc/sys/fs/aio-nr``),
  and every probe of the page cache, whose pages are shared by every sandbox binding the same
  runtime files: ``fadvise64``, ``mincore``, ``readahead``, ``cachestat``, and ``preadv2``/
  ``pwritev2`` with ``RWF_NOWAIT``;
- ``sched_setaffinity``: a bot's CPUs are the platform's to choose (it moves bots from
  outside); without a cpuset a bot could otherwise leave the CPU it is pinned to;
- any other ABI than the machine's own (i386 calls on x86-64, the x32 ABI): refused whole.

Built for x86-64 and aarch64; on another machine ``program()`` raises ``OSError`` and the
sandbox reports that no filter can be made (``mallows.agents.sandbox.probe``).
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import struct

# BPF opcodes (linux/filter.h, linux/bpf_common.h)
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE_K = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_JSET_K = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06 | 0x00  # BPF_RET | BPF_K

RET_ALLOW = 0x7FFF0000
RET_ERRNO = 0x00050000

# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]
_NR, _ARCH = 0, 4


def _arg_low(i: int) -> int:
    return 16 + 8 * i  # the low 32 bits of args[i] (little-endian machines only)


CLONE_NS_FLAGS = (
    0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
)  # CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
LOCK_COMMANDS = {
    "F_GETLK": 5,
    "F_SETLK": 6,
    "F_SETLKW": 7,
    "F_OFD_GETLK": 36,
    "F_OFD_SETLK": 37,
    "F_OFD_SETLKW": 38,
    "F_SETLEASE": 1024,
    "F_GETLEASE": 1025,
    "F_NOTIFY": 1026,
    "F_SETPIPE_SZ": 1031,  # a pipe's buffer: counted per host user (pipe-user-pages-soft)
}
DENIED = (
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "lookup_dcookie",
    "open_by_handle_at",
    "name_to_handle_at",
    "vhangup",
    "iopl",
    "ioperm",
    "uselib",
    "flock",
    "inotify_init",
    "inotify_init1",
    "fanotify_init",
    "sysinfo",
    "io_setup",
    "io_destroy",
    "io_submit",
    "io_cancel",
    "io_getevents",
    "io_pgetevents",
    "fadvise64",
    "mincore",
    "readahead",
    "cachestat",
    "sched_setaffinity",
)
#: calls refused when one of their arguments has a flag: ``(name, argument, mask)``
FLAGGED = (
    ("clone", 0, CLONE_NS_FLAGS),  # no new namespace
    ("preadv2", 5, 0x8),  # RWF_NOWAIT: "is it cached?" without reading
    ("pwritev2", 5, 0x8),
)

#: machine -> (AUDIT_ARCH_*, syscall numbers, whether the x32 bit must be refused)
TABLES: dict[str, tuple[int, dict[str, int], bool]] = {
    "x86_64": (
        0xC000003E,
        {
            "unshare": 272,
            "setns": 308,
            "mount": 165,
            "umount2": 166,
            "pivot_root": 155,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "mount_setattr": 442,
            "ptrace": 101,
            "process_vm_readv": 310,
            "process_vm_writev": 311,
            "kcmp": 312,
            "bpf": 321,
            "perf_event_open": 298,
            "userfaultfd": 323,
            "io_uring_setup": 425,
            "keyctl": 250,
            "add_key": 248,
            "request_key": 249,
            "init_module": 175,
            "finit_module": 313,
            "delete_module": 176,
            "kexec_load": 246,
            "kexec_file_load": 320,
            "reboot": 169,
            "swapon": 167,
            "swapoff": 168,
            "acct": 163,
            "quotactl": 179,
            "syslog": 103,
            "lookup_dcookie": 212,
            "open_by_handle_at": 304,
            "name_to_handle_at": 303,
            "vhangup": 153,
            "iopl": 172,
            "ioperm": 173,
            "uselib": 134,
            "flock": 73,
            "inotify_init": 253,
            "inotify_init1": 294,
            "fanotify_init": 300,
            "sysinfo": 99,
            "io_setup": 206,
            "io_destroy": 207,
            "io_getevents": 208,
            "io_submit": 209,
            "io_cancel": 210,
            "io_pgetevents": 333,
            "fadvise64": 221,
            "mincore": 27,
            "readahead": 187,
            "cachestat": 451,
            "sched_setaffinity": 203,
            "preadv2": 327,
            "pwritev2": 328,
            "clone": 56,
            "clone3": 435,
            "fcntl": 72,
        },
        True,
    ),
    "aarch64": (
        0xC00000B7,
        {
            "unshare": 97,
            "setns": 268,
            "mount": 40,
            "umount2": 39,
            "pivot_root": 41,
            "open_tree": 428,
            "move_mount": 429,
            "fsopen": 430,
            "fsconfig": 431,
            "fsmount": 432,
            "fspick": 433,
            "mount_setattr": 442,
            "ptrace": 117,
            "process_vm_readv": 270,
            "process_vm_writev": 271,
            "kcmp": 272,
            "bpf": 280,
            "perf_event_open": 241,
            "userfaultfd": 282,
            "io_uring_setup": 425,
            "keyctl": 219,
            "add_key": 217,
            "request_key": 218,
            "init_module": 105,
            "finit_module": 273,
            "delete_module": 106,
            "kexec_load": 104,
            "kexec_file_load": 294,
            "reboot": 142,
            "swapon": 224,
            "swapoff": 225,
            "acct": 89,
            "quotactl": 60,
            "syslog": 116,
            "lookup_dcookie": 18,
            "open_by_handle_at": 265,
            "name_to_handle_at": 264,
            "vhangup": 58,
            "flock": 32,
            "inotify_init1": 26,
            "fanotify_init": 262,
            "sysinfo": 179,
            "io_setup": 0,
            "io_destroy": 1,
            "io_submit": 2,
            "io_cancel": 3,
            "io_getevents": 4,
            "io_pgetevents": 292,
            "fadvise64": 223,
            "mincore": 232,
            "readahead": 213,
            "cachestat": 451,
            "sched_setaffinity": 122,
            "preadv2": 286,
            "pwritev2": 287,
            "clone": 220,
            "clone3": 435,
            "fcntl": 25,
        },
        False,
    ),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def _deny(err: int = errno.EPERM) -> bytes:
    return _op(_RET_K, RET_ERRNO | err)


@functools.cache
def program(machine: str | None = None) -> bytes:
    """The filter for ``machine`` (default: this one's), as the bytes of a ``sock_filter``
    array, what bwrap's ``--seccomp`` reads. ``OSError`` for a machine it is not built for."""
    machine = machine or platform.machine()
    if machine not in TABLES:
        raise OSError(
            errno.ENOSYS, f"no seccomp filter is built for {machine} (only {', '.join(TABLES)})"
        )
    arch, nr, x32 = TABLES[machine]
    out = [_op(_LD_W_ABS, _ARCH), _op(_JEQ_K, arch, 1, 0), _deny(), _op(_LD_W_ABS, _NR)]
    if x32:  # __X32_SYSCALL_BIT: another ABI
        out += [_op(_JGE_K, 0x40000000, 0, 1), _deny()]
    for name in DENIED:
        if name in nr:
            out += [_op(_JEQ_K, nr[name], 0, 1), _deny()]
    out += [_op(_JEQ_K, nr["clone3"], 0, 1), _deny(errno.ENOSYS)]
    # fcntl(fd, cmd, ...): the lock and notification commands
    cmds = sorted(LOCK_COMMANDS.values())
    out += [_op(_JEQ_K, nr["fcntl"], 0, 2 * len(cmds) + 2), _op(_LD_W_ABS, _arg_low(1))]
    for c in cmds:
        out += [_op(_JEQ_K, c, 0, 1), _deny()]
    out += [_op(_RET_K, RET_ALLOW)]
    # clone(flags, ...): no new namespace; preadv2/pwritev2(..., flags): no RWF_NOWAIT
    for name, arg, mask in FLAGGED:
        out += [
            _op(_JEQ_K, nr[name], 0, 4),
            _op(_LD_W_ABS, _arg_low(arg)),
            _op(_JSET_K, mask, 0, 1),
            _deny(),
            _op(_RET_K, RET_ALLOW),
        ]
    out += [_op(_RET_K, RET_ALLOW)]
    return b"".join(out)


def pipe_fd() -> int:
    """A pipe's read end holding ``program()`` and then its end: what ``--seccomp FD`` reads
    (once per sandbox: bwrap reads it to its end). The caller passes it to bwrap and closes
    it."""
    data = program()
    r, w = os.pipe()
    try:
        os.write(w, data)  # a few hundred bytes: always fits the pipe's buffer
    finally:
        os.close(w)
    return r
