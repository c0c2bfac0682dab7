"""Conformance checks that ship with the library, for the platform's own tests and for anyone
writing a game or a bot.

Owns: ``bots.check_bot(name)`` (what ``mallows bots check`` runs: matches against random bots,
forfeits by kind, the first problem with its observation and answer).

May import: every other subpackage except ``cli`` (it drives games, bots and the match runner
the way a tournament does). Nothing imports it but ``cli`` and tests.
"""
