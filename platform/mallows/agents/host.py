"""Host one untrusted Python bot in its own process, speaking the wire format (protocol 1, or
2 for a bot whose class says ``protocol = 2``: then ``act(observation, events)`` and
``match_end(info)`` with ``events`` and ``reveal`` in ``info``, as in-process; its
``history`` and ``observation`` attributes go into its hello as written). With
``observation = "step"`` the bot gets the step observation as the wire carries it: the host
does not fold the events into a whole observation (it imports no game, and a fold in Python
costs about what the smaller message saves: ``benchmarks/bench_wire.py``); a bot that wants
one folds its events with the game's ``SeatRecall`` itself (bots/README.md).

Run as ``python -m mallows.agents.host TARGET [key=value ...]``. ``TARGET`` is a ``.py`` file, a
package folder (with ``__init__.py``), or an importable ``module`` / ``module:attribute`` (what
an entry point names). The module's ``Bot`` class (or the attribute itself, if it is a class) is
constructed with the parameters as keyword arguments (strings) when the platform's ``hello``
arrives (the ``params`` of ``hello`` are added to those of the command line), and its
``match_start`` / ``act`` / ``match_end`` are called for the ``start`` / ``act`` / ``end``
messages (see ``mallows.agents.process`` for the messages). The host opts in to playing many
matches (its hello says ``"reuse": true``): every ``start`` after the first constructs a fresh
``Bot``, so a bot object never sees two matches, as in-process.

The protocol runs on private copies of fds 0 and 1: the bot's own ``print()`` goes to stderr
(the bot's log) and its ``input()`` reads nothing, so bot code cannot corrupt the channel. An
exception in the bot is answered with an ``error`` message naming the exception and the line
that raised it; the platform makes that the forfeit reason. This module imports nothing from
the engine: the process holds the bot and the observations it was sent, nothing else, and it
makes itself non-dumpable (Linux) before it loads the bot, so that another bot running as the
same user cannot read those observations. In a sandbox it ends without the interpreter's
teardown (``end``: the bot's ``atexit`` handlers run and its output is flushed first).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from typing import Any  # (already loaded by the wire codec: no start-up cost)

from mallows import PROTOCOL_VERSION  # noqa: E402

from mallows.agents.wire import HostCodec  # noqa: E402  (the shared codec, the bot's end)

# Imported when needed (an error), not at start-up: a bot process starts for every few
# matches, and ``traceback``, ``pathlib`` and ``mallows.agents.protocol`` (dataclasses, typing)
# are half of the host's import time.


def describe_exception(exc: BaseException) -> str:
    """The exception in the bot's own code, this file's frames passed over."""
    from mallows.agents.protocol import describe_exception as describe

    return describe(exc, skip=__file__)


class traceback:  # noqa: N801  (the two functions of the module this file uses, imported late)
    @staticmethod
    def print_exc() -> None:
        import traceback as tb

        tb.print_exc()

    @staticmethod
    def clear_frames(tb_: Any) -> None:
        import traceback as tb

        tb.clear_frames(tb_)


def make_non_dumpable() -> None:
    """Linux: another process of the same user (another seat's bot) cannot ptrace this one or
    read its memory, which holds this seat's observations."""
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE, 0
        except (OSError, AttributeError):  # pragma: no cover - depends on the libc
            pass


def _free(exc: BaseException) -> None:
    """Drop the locals of the frames a ``MemoryError`` unwound (they hold what filled the
    memory), so that reporting it does not run out of memory too."""
    if isinstance(exc, MemoryError):
        traceback.clear_frames(exc.__traceback__)


def load_target(target: str) -> type:
    """The bot class named by ``target`` (file, package folder, or ``module[:attr]``)."""
    if target.endswith(".py") or os.sep in target or os.path.exists(target):
        base = os.path.basename(target.rstrip(os.sep))
        if os.path.isdir(target):
            init = os.path.join(target, "__init__.py")
            spec = importlib.util.spec_from_file_location(
                f"mallows_hosted.{base}", init, submodule_search_locations=[target]
            )
        else:
            spec = importlib.util.spec_from_file_location(
                f"mallows_hosted.{os.path.splitext(base)[0]}", target
            )
        if spec is None or spec.loader is None:
            raise ImportError(f"{target} is not a Python file or package folder")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        obj = module
    else:
        modname, _, attr = target.partition(":")
        obj = importlib.import_module(modname)
        for part in filter(None, attr.split(".")):
            obj = getattr(obj, part)
    if isinstance(obj, type):
        return obj
    cls = getattr(obj, "Bot", None)
    if not isinstance(cls, type):
        raise ImportError(f"{target} defines no class Bot")
    return cls


class _Channel:
    """JSON lines on two fds, with our own read buffer."""

    def __init__(self, rfd: int, wfd: int):
        self.rfd, self.wfd = rfd, wfd
        self.buf = bytearray()
        self.codec = HostCodec()

    def read(self) -> dict | None:
        buf = self.buf
        while True:
            i = buf.find(b"\n")
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                if line.strip():
                    return self.codec.loads(line)
                continue
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                return None
            buf += chunk

    def write(self, message: dict) -> None:
        data = self.codec.dumps(message) + b"\n"
        while data:
            data = data[os.write(self.wfd, data) :]


def serve(target: str, params: dict, channel: _Channel) -> int:
    cls: Any = None
    bot: Any = None
    act: Any = None
    load_error = None
    played = False  # a match was started in this process: the next one gets a fresh Bot
    v2 = False  # the bot chose protocol 2 (its class says ``protocol = 2``)
    try:
        cls = load_target(target)
    except Exception as exc:
        _free(exc)
        traceback.print_exc()
        load_error = f"could not load the bot from {target}: {describe_exception(exc)}"
    read, write, wfd, codec = channel.read, channel.write, channel.wfd, channel.codec
    while True:
        message = read()
        if message is None:
            return 0
        kind = message.get("type")
        if kind == "act" and act is not None:  # the hot path first
            what = "act()"
            try:
                action = (
                    act(message["observation"], message.get("events") or [])
                    if v2
                    else act(message["observation"])
                )
                try:
                    data = codec.dumps({"type": "action", "action": action}) + b"\n"
                except (TypeError, ValueError) as exc:
                    write(
                        {
                            "type": "error",
                            "message": f"act() returned {action!r}, which is "
                            f"not JSON-compatible ({exc})",
                        }
                    )
                    continue
                while data:
                    data = data[os.write(wfd, data) :]
                continue
            except Exception as exc:
                _free(exc)
                traceback.print_exc()
                write({"type": "error", "message": f"{what} raised {describe_exception(exc)}"})
                continue
        if kind == "quit":
            return 0
        if load_error:
            write({"type": "error", "message": load_error})
            return 1
        try:
            if kind == "hello":
                params = dict(params, **(message.get("params") or {}))
                what = f"{cls.__name__}(**{params!r})" if params else f"{cls.__name__}()"
                bot = cls(**params)
                act = bot.act
                games = getattr(bot, "games", None)
                wants = getattr(bot, "protocol", PROTOCOL_VERSION)
                # A protocol-2 bot says so even to a platform that offers only 1 (which then
                # refuses it, saying why): it expects events that protocol 1 never sends.
                v2 = wants == 2
                extra = {"history": getattr(bot, "history", "delta")} if v2 else {}
                view = getattr(bot, "observation", None) if v2 else None
                if view is not None:  # "step" (or "full"), as written: the platform checks it
                    extra["observation"] = view if isinstance(view, str) else repr(view)
                write(
                    {
                        "type": "hello",
                        "protocol": wants if type(wants) is int else repr(wants),
                        **extra,
                        "name": str(
                            getattr(
                                bot,
                                "name",
                                os.path.splitext(os.path.basename(target.rstrip(os.sep)))[0],
                            )
                        ),
                        "version": str(getattr(bot, "version", "0")),
                        # as written (a string is refused by the platform, with the fix)
                        "games": (
                            games
                            if games is None or isinstance(games, str)
                            else sorted(games)
                            if isinstance(games, (set, frozenset))
                            else list(games)
                            if isinstance(games, (list, tuple))
                            else repr(games)
                        ),
                        "reuse": True,
                    }
                )
            elif kind in ("start", "end") and bot is not None:
                hook = "match_start" if kind == "start" else "match_end"
                what = f"the {hook} hook"
                if kind == "start":
                    if played:  # another match in this process: a fresh Bot, as in-process
                        what = f"{cls.__name__}(**{params!r})" if params else f"{cls.__name__}()"
                        bot = act = None
                        bot = cls(**params)
                        act = bot.act
                        what = f"the {hook} hook"
                    played = True
                fn = getattr(bot, hook, None)
                info = message.get("info")
                if v2 and kind == "end" and isinstance(info, dict):  # as in-process: in info
                    info = dict(
                        info, events=message.get("events") or [], reveal=message.get("reveal") or {}
                    )
                if fn is not None:
                    fn(info)
                write({"type": "ok"})
            else:
                write(
                    {
                        "type": "error",
                        "message": f"bothost got the message {kind!r} out of "
                        f"order or of an unknown type",
                    }
                )
        except Exception as exc:
            _free(exc)
            traceback.print_exc()
            write({"type": "error", "message": f"{what} raised {describe_exception(exc)}"})


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    target, params = argv[0], {}
    for pair in argv[1:]:
        key, sep, value = pair.partition("=")
        if not sep:
            print(f"bothost: parameter {pair!r} is not key=value", file=sys.stderr)
            return 2
        params[key] = value
    make_non_dumpable()
    # Keep the protocol on private fds; the bot's stdout and stdin are the log and nothing.
    rfd, wfd = os.dup(0), os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    if target.endswith(".py") or os.sep in target:
        # The bot's sibling modules can be imported, but cannot shadow the standard library
        # (the platform runs this with ``python -P``: no script or cwd directory up front).
        sys.path.append(os.path.dirname(os.path.realpath(target)))
    return serve(target, params, _Channel(rfd, wfd))


#: Set to "1" in every sandboxed bot's environment (``mallows.agents.sandbox.command``): all it
#: can write is its private /tmp and /dev/shm, gone with its process.
SANDBOXED_ENV = "MALLOWS_IN_SANDBOX"


def end(code: int) -> None:
    """Exit with ``code``. In a sandbox, without the interpreter's teardown: the bot's
    ``atexit`` handlers run and what it printed is flushed, then the process ends
    (``os._exit``). Tearing down the interpreter (every module, every object) takes a hosted
    bot several milliseconds of CPU, more for a big search tree: at the end of a tournament
    every bot process ends at once, and their teardowns held the platform's close for tens of
    milliseconds. What the teardown would still do (close a file the bot left open, flushing
    it; run an object's ``__del__``) matters only to files that outlive the process, and a
    sandboxed bot can write none. A bot outside a sandbox (``sandbox = "off"``), or with a
    thread of its own still running (not a daemon), gets the ordinary exit."""
    if os.environ.get(SANDBOXED_ENV) != "1":
        sys.exit(code)
    threading = sys.modules.get("threading")
    if threading is not None and any(
        t.is_alive() and not t.daemon and t is not threading.main_thread()
        for t in threading.enumerate()
    ):
        sys.exit(code)
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


if __name__ == "__main__":
    end(main())
