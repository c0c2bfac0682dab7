"""SIGTERM and SIGHUP end a command the way Ctrl-C (SIGINT) does, with their own exit status.

Inside ``termination_as_interrupt()`` both signals raise ``Terminated`` (a
``KeyboardInterrupt``) in the main thread, so a ``tournament run`` stopped by a service
manager, ``kill`` or a closed terminal takes the same path as Ctrl-C: the matches already
played stay stored, the ratings are brought up to date, Ray is shut down, and the same
"interrupted ... rerun to resume" message is printed. The exit status says which signal it was,
as a shell reports a process killed by it: ``exit_status`` gives 128 + the signal's number
(SIGTERM 143, SIGHUP 129; Ctrl-C 130). Ray installs its own SIGTERM handler when it starts, so
the context yields a function that puts ours back; call it once the executor is up.

A signal can land while the main thread runs a finaliser (a ``__del__``, a weakref callback,
say the compiled core's generator being freed): Python then prints "Exception ignored in ..."
with a traceback and carries on, so the run would go on as if nothing had come. Ctrl-C's
``KeyboardInterrupt`` is swallowed the same way, and so is the ``SystemExit(15)`` of Ray's own
SIGTERM handler while Ray starts (landing in a fork callback). Inside the context each is kept,
in silence, and ``raise_swallowed()`` raises it again; the commands' run loops call it after
every stored match (or pair, or epoch).
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from types import FrameType
from typing import Any, Callable, Iterator

from mallows.errors import Terminated

SIGNALS = tuple(
    s for s in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if s is not None
)


#: The termination signals received by this process, in order. Ray's core turns any exception
#: a signal handler raises during ``ray.wait`` into a plain ``KeyboardInterrupt``, so the
#: ``Terminated`` that names the signal is lost on the way: what was received is kept here.
_RECEIVED: list[int] = []


def _cause(exc: BaseException) -> Terminated | None:
    if isinstance(exc, Terminated):
        return exc
    if isinstance(exc, KeyboardInterrupt) and _RECEIVED:  # a Terminated that Ray re-raised
        return Terminated(_RECEIVED[-1])
    return None


def exit_status(exc: BaseException) -> int:
    """The exit status of a command stopped by ``exc``: 128 + the signal's number, as a shell
    reports it (SIGTERM 143, SIGHUP 129, Ctrl-C's SIGINT 130)."""
    cause = _cause(exc)
    return 128 + (cause.signum if cause is not None else signal.SIGINT)


def interrupted(exc: BaseException) -> str:
    """How a stopped command's message starts: ``interrupted`` or ``interrupted by SIGTERM``."""
    cause = _cause(exc)
    return f"interrupted by {cause.name}" if cause is not None else "interrupted"


#: A ``Terminated`` or a Ctrl-C a finaliser swallowed (its signal's number), to be raised again.
_SWALLOWED: list[int] = []


def _raise(signum: int, frame: FrameType | None) -> None:
    _RECEIVED.append(signum)
    raise Terminated(signum)


def raise_swallowed() -> None:
    """Raise again the ``Terminated`` (or Ctrl-C's ``KeyboardInterrupt``) a finaliser swallowed
    since the last call, if any: call it where the command's loop may stop (after a stored
    match)."""
    if _SWALLOWED:
        signum = _SWALLOWED.pop()
        _SWALLOWED.clear()
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)


def _unraisable(previous: Callable[[Any], object]) -> Callable[[Any], None]:
    def hook(unraisable: Any) -> None:
        exc = unraisable.exc_value
        if isinstance(exc, Terminated):
            _SWALLOWED.append(exc.signum)  # raised again by the loop, quietly
            return
        if isinstance(exc, KeyboardInterrupt):  # Ctrl-C (SIGINT's default handler)
            _SWALLOWED.append(signal.SIGINT)
            return
        code = exc.code if isinstance(exc, SystemExit) else None
        if isinstance(code, int) and code in SIGNALS:
            # Ray's own SIGTERM handler (``sys.exit(signum)``), in force while Ray starts:
            # landing in a fork callback (logging's lock release) it was swallowed too
            _SWALLOWED.append(code)
            return
        previous(unraisable)

    return hook


@contextlib.contextmanager
def termination_as_interrupt() -> Iterator[Callable[[], None]]:
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None  # signal handlers can only be set from the main thread
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}
    hook = sys.unraisablehook

    def install() -> None:
        for s in SIGNALS:
            signal.signal(s, _raise)

    install()
    sys.unraisablehook = _unraisable(hook)
    try:
        yield install
    finally:
        sys.unraisablehook = hook
        _SWALLOWED.clear()
        for s, handler in previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
