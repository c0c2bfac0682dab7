"""The generic bot kit: helpers any bot of any game may import (see ``__all__``).

- ``number_param(bot, key, value, low, high, kind=float)``: a bot parameter given on the
  command line or in a tournament file (``mybot:depth=3`` passes ``depth="3"`` to the bot's
  constructor) as a checked number.

Game-specific kits live beside their game (``mallows.games.arschmallows.botkit``).
"""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["number_param"]


def number_param(
    bot: str, key: str, value: Any, low: float, high: float, kind: Callable[[Any], float] = float
) -> float:
    """A bot parameter from ``name:key=value`` (a string) as a number in [low, high]; a bad one
    is a ``ValueError`` naming the bot, the parameter and an example."""
    try:
        x = kind(value)
    except (TypeError, ValueError):
        what = "whole number" if kind is int else "number"
        raise ValueError(
            f"{bot}: parameter {key} must be a {what}, got {value!r} "
            f"(for example {bot}:{key}={kind(low) if low > 0 else kind(1)})"
        ) from None
    if not low <= x <= high:
        raise ValueError(f"{bot}: parameter {key}={value} is out of range {low:g}..{high:g}")
    return x
