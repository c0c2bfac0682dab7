"""What a bot sent, kept from the pages of everyone but its owner: a forfeit's reason (which
quotes the tail of the bot's stderr) and a ladder's note on a bot it refused (its check's
failure).

Owns ``HIDDEN`` (the words shown in their place) and the copies with them hidden:
``redact_record`` (a match record: its forfeit events' ``reason`` and ``result.forfeits``, for
the given seats), ``redact_forfeit`` (a row of ``data.forfeits``) and ``redact_ladder`` (a
ladder's view: the standings' notes). Which bots are private is the caller's to say (``Site``'s
``private``: ``mallows serve`` hides the bots an account owns; their owner and admins read the
reasons through the server's API); nothing else of a page changes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection

#: Shown instead of what a private bot sent.
HIDDEN = "(hidden: shown to the bot's owner on the author page)"


def redact_record(record: dict, seats: Collection[int]) -> dict:
    """``record`` with the forfeit reasons of ``seats`` hidden (a copy; ``record`` is kept)."""
    if not seats:
        return record
    events = [
        dict(e, reason=HIDDEN)
        if e.get("type") == "forfeit" and e.get("seat") in seats and "reason" in e
        else e
        for e in record.get("events", [])
    ]
    out = dict(record, events=events)
    result = record.get("result")
    if isinstance(result, dict) and isinstance(result.get("forfeits"), list):
        forfeits = [
            HIDDEN if seat in seats and reason is not None else reason
            for seat, reason in enumerate(result["forfeits"])
        ]
        out["result"] = dict(result, forfeits=forfeits)
    return out


def redact_forfeit(row: dict) -> dict:
    """A forfeit row (``data.forfeits``) with its reason hidden."""
    return dict(row, reason=HIDDEN)


def redact_ladder(view: dict, private: Callable[[str], bool]) -> dict:
    """A ladder's view with the notes on its ``private`` bots hidden (a copy)."""

    def row(s: dict) -> dict:
        return dict(s, note=HIDDEN) if s.get("note") and private(str(s.get("bot"))) else s

    return dict(
        view,
        standings=[row(s) for s in view.get("standings", [])],
        newcomers=[row(s) for s in view.get("newcomers", [])],
    )
