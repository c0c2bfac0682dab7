"""SIGTERM and SIGHUP end a command the way Ctrl-C (SIGINT) does.

Inside ``termination_as_interrupt()`` both signals raise ``KeyboardInterrupt`` in the main
thread, so a ``tournament run`` stopped by a service manager, ``kill`` or a closed terminal
takes the same path as Ctrl-C: the matches already played stay stored, the ratings are brought
up to date, Ray is shut down, and the same "interrupted ... rerun to resume" message is printed.
Ray installs its own SIGTERM handler when it starts, so the context yields a function that puts
ours back; call it once the executor is up.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from typing import Callable, Iterator

SIGNALS = tuple(s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None))
                if s is not None)


def _raise(signum, frame) -> None:
    raise KeyboardInterrupt(f"stopped by {signal.Signals(signum).name}")


@contextlib.contextmanager
def termination_as_interrupt() -> Iterator[Callable[[], None]]:
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None  # signal handlers can only be set from the main thread
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}

    def install() -> None:
        for s in SIGNALS:
            signal.signal(s, _raise)

    install()
    try:
        yield install
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
