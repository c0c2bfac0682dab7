"""Rate limits and quotas of ``mallows serve``: how often an account and an address may submit a
bot, fail a sign-in and start a play match, and how many versions and bytes an account may keep.

Owns ``Limits`` (the settings, from ``serve --rate-limit WHAT:BY=RATE``, ``--quota-versions``
and ``--quota-bytes``; ``RATES`` are the defaults), ``parse_rate_limits`` (the option's values,
or a ``MallowsError`` naming the keys and the notation), ``Throttle`` (the counters) and
``check_quota`` (an account's use, read from the database).

The counters are the ``limits`` library's moving windows in its memory storage: a well-kept
library that does only this (fixed, sliding and moving windows; memory, Redis and other
storages), so the window arithmetic is not ours to get right. Each (what, account) and each
(what, address) has its own window; a request over one is refused with 429 and the seconds
until the window has room again (``Throttled.retry_after``, sent as ``Retry-After``). The
counters live in the server's memory: a restart forgets them. The quotas are read from the
database each time, so they hold across restarts: versions stored by the account's bots in the
last 24 hours (429 until the oldest of them is a day old) and the bytes of its versions not
withdrawn (403: withdrawing an old version frees its bytes).
"""

from __future__ import annotations

import calendar
import math
import re
import time
from dataclasses import dataclass, field

from limits import RateLimitItem, parse
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

from mallows.errors import MallowsError, Throttled
from mallows.results.interface import ResultStore

#: What is limited, and by whom: the default rates (``limits`` notation; "off": no limit).
#: ``sign-in`` counts refused tokens only (a right token is never slowed): it stops guessing and
#: the scrypt work each guess costs. Behind a reverse proxy every client has the proxy's
#: address: the ``address`` limits then hold for all clients together.
RATES: dict[str, str] = {
    "submit:account": "10/hour",
    "submit:address": "60/hour",
    "sign-in:account": "10/minute",
    "sign-in:address": "30/minute",
    "play:account": "30/hour",
    "play:address": "30/hour",
}
#: Versions an account's bots may store in 24 hours.
QUOTA_VERSIONS = 20
#: Bytes (unpacked) an account's versions that are not withdrawn may hold.
QUOTA_BYTES = 50 * 1024 * 1024
DAY_SECONDS = 86400
UNITS = {"b": 1, "kib": 1024, "mib": 1024**2, "gib": 1024**3}
WHAT = {"submit": "submissions", "sign-in": "refused sign-ins", "play": "play matches started"}


@dataclass(frozen=True)
class Limits:
    """The server's limits: ``rates`` by ``WHAT:BY`` (None: no limit) and the quotas."""

    rates: dict[str, str | None] = field(default_factory=lambda: dict(RATES))
    versions_per_day: int = QUOTA_VERSIONS
    bytes_stored: int = QUOTA_BYTES


def parse_rate_limits(values: list[str]) -> dict[str, str | None]:
    """The rates of ``--rate-limit WHAT:BY=RATE`` options over the defaults, or a
    ``MallowsError`` naming the bad one and the fix."""
    rates: dict[str, str | None] = dict(RATES)
    for value in values:
        key, sep, rate = (part.strip() for part in value.partition("="))
        if not sep or key not in RATES:
            raise MallowsError(
                f"--rate-limit {value!r}: give WHAT:BY=RATE with WHAT:BY one of "
                f"{', '.join(RATES)} and RATE such as 10/hour, 5/minute or off"
            )
        if rate.lower() == "off":
            rates[key] = None
            continue
        try:
            item = parse(rate)
        except ValueError:
            item = None
        if item is None or item.amount < 1:
            raise MallowsError(
                f"--rate-limit {value!r}: {rate!r} is not a rate: give a count per period, "
                f"such as 10/hour, 5/minute, 100/day, or off"
            )
        rates[key] = rate
    return rates


def parse_size(text: str) -> int:
    """``--quota-bytes``: bytes, or with a KiB, MiB or GiB suffix (``50MiB``)."""
    m = re.fullmatch(r"\s*(\d+)\s*(KiB|MiB|GiB|B)?\s*", text, re.IGNORECASE)
    if m is None or int(m.group(1)) < 1:
        raise MallowsError(
            f"--quota-bytes {text!r}: give a size such as 50MiB, 512KiB, 1GiB or a number of bytes"
        )
    return int(m.group(1)) * UNITS[(m.group(2) or "b").lower()]


class Throttle:
    """The moving-window counters of ``limits``, one per (what, account) and (what, address)."""

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or Limits()
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items: dict[str, RateLimitItem] = {
            key: parse(rate) for key, rate in self.limits.rates.items() if rate is not None
        }

    def _keys(self, what: str, account: str | None, address: str) -> list[tuple[str, str]]:
        keys = [(f"{what}:address", address)]
        if account is not None:
            keys.insert(0, (f"{what}:account", account))
        return [(key, who) for key, who in keys if key in self._items]

    def check(self, what: str, account: str | None, address: str) -> None:
        """Refuse (``Throttled``) when a window of ``what`` for ``account`` or ``address`` is
        full; nothing is counted."""
        for key, who in self._keys(what, account, address):
            item = self._items[key]
            if not self._limiter.test(item, key, who):
                self._refuse(what, key, who, item)

    def count(self, what: str, account: str | None, address: str) -> None:
        """Count one ``what`` for ``account`` (None: none known) and ``address``."""
        for key, who in self._keys(what, account, address):
            self._limiter.hit(self._items[key], key, who)

    def hit(self, what: str, account: str | None, address: str) -> None:
        """Count one ``what``, or refuse it (``Throttled``, nothing counted) when a window of
        its account or its address is full."""
        self.check(what, account, address)
        self.count(what, account, address)

    def _refuse(self, what: str, key: str, who: str, item: RateLimitItem) -> None:
        stats = self._limiter.get_window_stats(item, key, who)
        wait = max(1, math.ceil(stats.reset_time - time.time()))
        by = "this account" if key.endswith(":account") else "this address"
        raise Throttled(
            f"too many {WHAT[what]} from {by}: at most {item.amount} per "
            f"{_period(item)}; retry in {wait} s",
            retry_after=wait,
        )


def _period(item: RateLimitItem) -> str:
    unit = item.GRANULARITY.name
    return unit if item.multiples == 1 else f"{item.multiples} {unit}s"


def check_quota(
    store: ResultStore, account: str, limits: Limits, queued: int = 0, adding: int = 0
) -> None:
    """Refuse (``Throttled``) a new version of ``account``'s: its bots stored
    ``limits.versions_per_day`` versions in the last 24 hours (with ``queued`` still waiting
    for their check), or its versions not withdrawn plus ``adding`` bytes would pass
    ``limits.bytes_stored``."""
    now = time.time()
    since = now - DAY_SECONDS
    recent: list[float] = []
    stored = 0
    for row in store.accounts.versions(account):
        created = calendar.timegm(time.strptime(row["created"], "%Y-%m-%dT%H:%M:%S"))
        if created > since:
            recent.append(created)
        if row["withdrawn"] is None:
            stored += int(row["bytes"] or 0)
    if len(recent) + queued >= limits.versions_per_day:
        wait = max(1, math.ceil(min(recent) + DAY_SECONDS - now)) if recent else DAY_SECONDS
        raise Throttled(
            f"account {account!r} stored {len(recent)} versions in the last 24 hours"
            + (f" and has {queued} waiting for their check" if queued else "")
            + f": at most {limits.versions_per_day} a day; retry in {wait} s",
            retry_after=wait,
        )
    if stored + adding > limits.bytes_stored:
        raise Throttled(
            f"account {account!r} keeps {stored} bytes in versions not withdrawn and this "
            f"upload unpacks to {adding}: at most {limits.bytes_stored} bytes in all; "
            f"withdraw an old version (the author page, or POST /api/bots/NAME@N/withdraw) "
            f"to free its bytes",
            status=403,
        )
