"""A subprocess bot that allocates 64 MiB at a time at decision `at` and does not catch the
failure: it dies with a MemoryError traceback on stderr (as a C++ bot dies of std::bad_alloc)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402


def hog(obs, reply):
    hoard = []
    while len(hoard) < 16:  # 1 GiB: without a limit, it answers after all (a test fails)
        hoard.append(b"\x01" * (64 * 1024 * 1024))
    reply()


wire.serve(hog)
