"""Errors a user can act on.

Every error a user can cause (a bad option, an unknown bot, a malformed tournament file) is a
``MallowsError``: its message names the problem and the fix, and the CLI prints it and exits 2
instead of showing a traceback.
"""


class MallowsError(Exception):
    """A problem with the user's input; the message says what and how to fix it."""


class GameConfigError(MallowsError):
    """Unknown game, unknown rule set or option, value out of range, bad player count."""


class IllegalAction(MallowsError):
    """An action that is not legal in the current state (the state is left untouched)."""


class BotError(MallowsError):
    """A bot that cannot be found or loaded (raised before any match starts)."""


class SecretKeyError(MallowsError):
    """A tournament's secret key given wrongly (``--key``) or asked for too early."""


class BadNameError(MallowsError):
    """A name a user chose (a submission, a comparison, a tournament) that cannot be one: a
    control character, a path, a file suffix, or a name another bot already has."""
