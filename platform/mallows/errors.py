"""Every exception mallows raises, in one tree; the CLI's exit status follows it.

The tree::

    Exception
    ├── MallowsError              a problem with the user's input (exit status 2)
    │   ├── GameConfigError       unknown game, rule set or option; a value out of range
    │   ├── IllegalAction         an action the game's current state does not allow
    │   ├── BotError              a bot that cannot be found or loaded
    │   ├── SandboxUnavailable    no sandbox can be made here, and a bot needs one
    │   ├── TournamentError       a tournament file that cannot run as written
    │   ├── LadderError           a ladder file, command or state refused (``mallows ladder``)
    │   ├── PinError              a rerun whose bots would run other code than its first run
    │   ├── TournamentBusy        another live process runs this tournament on this database
    │   ├── CompareError          a comparison that cannot run as asked
    │   ├── ClusterError          a Ray cluster that cannot be joined as given (--address)
    │   ├── StorageError          a database the command cannot use as asked (newer, read-only)
    │   │   └── RecordTooLarge    a match record over the bound one record may hold
    │   ├── DatabaseError         a database file that cannot be used as it is
    │   │   └── DamagedRecord     a stored match that does not match its digest
    │   ├── ReplayMismatch        a record whose events the engine does not reproduce
    │   ├── MissingFace           a game without the face a page or bridge needs (its web
    │                             view, replay table or learning codec)
    │   ├── RecordError           a record read from a file that breaks the record format
    │   ├── SecretKeyError        a tournament's secret key given wrongly or asked for too early
    │   ├── AccountError          an account or token refused (``mallows users``, the server)
    │   └── BadNameError          a chosen name no bot may have (control character, a path, a
    │                             file suffix, another bot's name)
    ├── PlatformError             mallows, or what it runs on, failed a valid command (exit 70)
    │   ├── ExecutorError         Ray could not start, or died under the run
    │   └── MatchFailed           a match raised inside the engine or the runner
    ├── BodyError                 the server's refusal of a request body (answered, with status)
    ├── WriteRefused              the server's refusal of a state-changing request (403)
    ├── Throttled                 the server's refusal of a request over a rate limit or a
    │                             quota (429 with the seconds to wait, or 403)
    ├── BotFailure                a bot failed a decision or a hook: a forfeit, not an error of
    │                             the run (it never reaches the command line)
    ├── NeedChance                internal: the OpenSpiel bridge's request for the next chance
    │                             draw (caught in ``mallows.interop.openspiel``, never escapes)
    ├── ValueError
    │   └── BeliefError           a bot's belief tracker (``botkit``) met an event it cannot
    │                             fold (a bot-side error: the bot falls back, never the run)
    ├── AssertionError
    │   └── ConformanceError      a game broke the game contract (``mallows.testing``)
    └── KeyboardInterrupt (a BaseException)
        └── Terminated            stopped by SIGTERM or SIGHUP: handled as Ctrl-C is

A ``MallowsError`` is the user's to fix: its message names the problem and the fix, and the
CLI prints ``error: <message>`` and exits 2, never a traceback. A ``PlatformError`` is not the
user's input: the message says what failed and what was kept (finished matches are stored; a
rerun resumes), and the CLI prints it and exits 70 (``EX_SOFTWARE`` of sysexits.h: 1 is taken
by the commands whose answer can be "no": ``compare`` (H0), ``bots check`` and ``bots submit``
(a problem found)). Interrupted runs exit 128 + the signal's number, as a shell reports a
signal: 130 for Ctrl-C, 143 for SIGTERM and 129 for SIGHUP (``Terminated`` carries which).

The classes are defined here and nowhere else; the modules that raise them import them from
here (and re-export them where they always could be imported from, e.g.
``mallows.tournaments.roundrobin.spec.TournamentError``). This module imports nothing of mallows:
every floor may import it.
"""

from __future__ import annotations

import signal
from typing import Sequence

__all__ = [
    "KINDS",
    "BeliefError",
    "BotError",
    "BotFailure",
    "ClusterError",
    "CompareError",
    "ConformanceError",
    "DamagedRecord",
    "DatabaseError",
    "ExecutorError",
    "GameConfigError",
    "IllegalAction",
    "LadderError",
    "MallowsError",
    "MatchFailed",
    "PinError",
    "PlatformError",
    "RecordError",
    "RecordTooLarge",
    "ReplayMismatch",
    "MissingFace",
    "SandboxUnavailable",
    "StorageError",
    "NeedChance",
    "SecretKeyError",
    "BadNameError",
    "AccountError",
    "BodyError",
    "WriteRefused",
    "Throttled",
    "Terminated",
    "TournamentBusy",
    "TournamentError",
    "USER_ERROR_EXIT",
    "PLATFORM_ERROR_EXIT",
]

USER_ERROR_EXIT = 2  # the exit status of a ``MallowsError``
PLATFORM_ERROR_EXIT = 70  # the exit status of a ``PlatformError`` (sysexits.h EX_SOFTWARE)


# -- the user's input (exit 2) ----------------------------------------------------------------


class MallowsError(Exception):
    """A problem with the user's input; the message says what and how to fix it."""


class GameConfigError(MallowsError):
    """Unknown game, unknown rule set or option, value out of range, bad player count."""


class IllegalAction(MallowsError):
    """An action that is not legal in the current state (the state is left untouched)."""


class BotError(MallowsError):
    """A bot that cannot be found or loaded (raised before any match starts)."""


class RecordError(MallowsError):
    """A match record (read from a file) that does not follow the record format; the message
    names the first thing wrong by its place in the record."""


class SandboxUnavailable(MallowsError):
    """No sandbox can be made on this machine, and an untrusted bot would need one."""


class TournamentError(MallowsError):
    """A tournament file that cannot be run as written; the message names the key and the fix."""


class LadderError(MallowsError):
    """A ladder file, a ladder command or a ladder's state refused (``mallows ladder``)."""


class PinError(MallowsError):
    """A rerun whose bots would run other code than its first run, or a withdrawn bot."""


class TournamentBusy(MallowsError):
    """Another live process is running this tournament on this database."""


class CompareError(MallowsError):
    """A comparison that cannot run as asked; the message names the option and the fix."""


class ClusterError(MallowsError):
    """A Ray cluster that cannot be joined as given: an address that is not HOST:PORT or
    where nothing listens, a head that refuses this process (token authentication), a Ray
    Client address."""


class StorageError(MallowsError):
    """A database problem the user can act on (a newer schema, a changed tournament file)."""


class RecordTooLarge(StorageError):
    """A match record over ``results.codec.MAX_RECORD_BYTES``: one to store (refused before it
    is written), or a stored frame that claims to decode to more (refused as damaged before
    anything of that size is allocated)."""


class DatabaseError(MallowsError):
    """A database file that cannot be used as it is; the message names it and the fix."""


class DamagedRecord(DatabaseError):
    """A stored match whose record, players or ranks do not match its digest. ``row`` is the
    row as stored, for a reader that shows damaged matches as such (the report)."""

    def __init__(self, message: str, row: dict):
        super().__init__(message)
        self.row = row


class ReplayMismatch(MallowsError):
    """A record whose events the engine does not reproduce (edited, or from other rules)."""


class MissingFace(MallowsError):
    """A game that lacks the face asked of it (``mallows.games.faces``): no web play view, no
    replay table, no codec for the learning bridges. The message names the game and the face."""


class SecretKeyError(MallowsError):
    """A tournament's secret key given wrongly (``--key``) or asked for too early."""


class BodyError(Exception):
    """A request body the server will not read (its HTTP ``status`` and ``text``): too
    large, too slow, or not what the route takes. Answered to the client, never raised on."""

    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status, self.text = status, text


class WriteRefused(Exception):
    """Why the server refuses a state-changing request (403): a foreign or missing Origin, a
    missing CSRF token. Answered to the client, never raised on."""


class Throttled(Exception):
    """Why the server refuses a request over a rate limit or a quota: its HTTP ``status``
    (429, or 403 for a quota that time does not free), ``text`` (which limit, and when to
    retry or what to do) and ``retry_after`` (whole seconds; None: waiting does not help).
    Answered to the client, never raised on."""

    def __init__(self, text: str, retry_after: int | None = None, status: int = 429):
        super().__init__(text)
        self.text, self.retry_after, self.status = text, retry_after, status


class AccountError(MallowsError):
    """An account that cannot be made or found as asked (``mallows users``), a token that is
    wrong or revoked, a bot name another account owns."""


class BadNameError(MallowsError):
    """A name a user chose (a submission, a comparison, a tournament, a bot) that cannot be
    one: a control character, a path, a file suffix, or a name another bot already has."""


# -- the platform (exit 70) -------------------------------------------------------------------


class PlatformError(Exception):
    """Mallows, or what it runs on, failed while running a valid command; the message says
    what failed and what was kept."""


class ExecutorError(PlatformError):
    """Ray could not be started, died under the run, or a task failed outside any match."""


class MatchFailed(PlatformError):
    """A match raised inside the engine or the runner (not a bot failure: those are forfeits)."""


# -- a bot's failure (a forfeit) --------------------------------------------------------------

#: Every kind of failure (a forfeit event's ``kind``): ``timeout`` (a time limit or the match
#: budget), ``crash`` (its process was killed by a signal), ``exit`` (its process exited by
#: itself), ``illegal`` (an action the game refused: set by the runner), ``garbage`` (a reply
#: that is not the protocol), ``flood`` (too much output: a line over the limit, or stderr past
#: its file-size limit), ``memory`` (out of memory, usually its ``memory_mb`` limit), ``error``
#: (the bot raised or reported an error, or could not be started), ``protocol`` (the handshake
#: or the channel: another protocol version, stdout closed).
KINDS = ("timeout", "crash", "exit", "illegal", "garbage", "flood", "memory", "error", "protocol")


class BotFailure(Exception):
    """The bot failed a decision or a hook; ``str(self)`` is the reason, for the bot author.

    ``kind`` says what happened, as data (it goes into the record's forfeit event beside the
    reason, and ``mallows bots check`` counts by it): one of ``KINDS``."""

    def __init__(self, reason: str, kind: str = "error"):
        super().__init__(reason)
        if kind not in KINDS:
            raise ValueError(f"unknown failure kind {kind!r}: one of {', '.join(KINDS)}")
        self.kind = kind


# -- a game's test (mallows.testing) ----------------------------------------------------------


class ConformanceError(AssertionError):
    """A game broke a promise of the game contract; the message says which, where and how."""


# -- a stop by signal (exit 128 + the signal) --------------------------------------------------


class Terminated(KeyboardInterrupt):
    """The command was stopped by ``signum`` (SIGTERM or SIGHUP), not by Ctrl-C: it takes the
    Ctrl-C path (what is stored stays, the message says how to resume) and exits 128 +
    ``signum``."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum
        self.name = signal.Signals(signum).name


class BeliefError(ValueError):
    """An event the Arschmallows belief tracker cannot fold into what it knows (a malformed or
    impossible event); raised inside a bot, by ``games.arschmallows.botkit.belief``."""


class NeedChance(Exception):
    """The engine asked for a draw not made yet: ``("shuffle", cards)`` or
    ``("choice", options)`` (``mallows.interop.openspiel`` turns it into a chance node)."""

    def __init__(self, kind: str, items: Sequence) -> None:
        super().__init__(kind)
        self.kind, self.items = kind, list(items)
