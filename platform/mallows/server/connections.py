"""What a connection may hold before it is a request: the server's guard below HTTP.

uvicorn closes a connection that is idle between requests (``timeout_keep_alive``), but it has
no deadline for *receiving* a request, and its idle timer starts again at every byte: a client
that trickles a header byte now and then holds its connection for ever (slowloris). A few
hundred such connections use up the process's file descriptors, and then no one is served
(tried: 300 of them against a ``serve`` with 256 descriptors, and a normal request was reset).
ASGI middleware cannot help, since it runs only once a request's headers are in.

Owns ``GuardedProtocol`` (``guarded_protocol(per_address)`` makes one with its own cap),
uvicorn's httptools protocol with three limits:

- ``HEADER_SECONDS``: a request's line and headers must have arrived this long after the
  connection opened, or after the end of its previous response, or the connection is closed
  (the body then has ``body.py``'s own limit; a response, an event stream included, has none);
- ``HEADER_BYTES``: a request's line and headers may take about this many bytes (at most one
  read more), or the answer is 431 and the connection is closed. The parser keeps what it has
  read of them, and uvicorn sets no bound with httptools: one connection sending header
  lines for 8 s grew a serve to 2.5 GB;
- ``PER_ADDRESS`` (``serve --connections-per-address``): at most this many connections open
  at once from one address other than loopback's (a browser opens about 6 to a host, and one
  more for a page's event stream), so one address cannot hold the server's descriptors; a
  connection over it is closed at once.

At start the server raises its soft limit on open files to the hard one
(``mallows.agents.isolation.raise_descriptor_limit``, capped at ``MAX_DESCRIPTORS``), since a
default of 1,024 is little for a server.
"""

from __future__ import annotations

import asyncio
import ipaddress
import weakref
from collections import Counter
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Seconds a request's line and headers may take to arrive.
HEADER_SECONDS = 10.0
#: Bytes a request's line and headers may take (nginx allows 32 KiB by default).
HEADER_BYTES = 65536
#: Connections open at once from one address other than loopback (the default).
PER_ADDRESS = 64
#: The most ``--connections-per-address`` may give.
MAX_PER_ADDRESS = 65536

_OPEN: weakref.WeakKeyDictionary[Any, Counter[str]] = weakref.WeakKeyDictionary()


def capped_address(host: str | None) -> str | None:
    """The address whose connections are counted: None for loopback (the machine itself) and
    for a connection without an address (a Unix socket)."""
    if not host:
        return None
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return None if address.is_loopback else str(address)


class GuardedProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with a deadline for each request's headers and a cap on the
    connections open at once from one address (the module's docstring)."""

    per_address: ClassVar[int] = PER_ADDRESS
    _deadline: asyncio.TimerHandle | None = None
    _counted: str | None = None
    _head_bytes = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = capped_address(self.client[0] if self.client else None)
        if address is not None:
            open_now = _OPEN.setdefault(self.server_state, Counter())
            open_now[address] += 1
            self._counted = address
            if open_now[address] > self.per_address:
                transport.close()
                return
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._counted is not None:
            open_now = _OPEN.get(self.server_state)
            if open_now is not None:
                open_now[self._counted] -= 1
                if open_now[self._counted] <= 0:
                    del open_now[self._counted]
            self._counted = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self._deadline is None:  # headers in: a body, or a pipelined request's own reading
            super().data_received(data)
            return
        if self._head_bytes > HEADER_BYTES:
            self._refuse_431()
            return
        super().data_received(data)
        if self._deadline is not None:  # still no end of headers: all of it was headers
            self._head_bytes += len(data)

    def _refuse_431(self) -> None:
        message = b"request headers too large"
        self._disarm()
        if not self.transport.is_closing():
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                b"content-type: text/plain; charset=utf-8\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(message), message)
            )
            self.transport.close()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        waiting = bool(self.pipeline)  # a request already read starts now: its headers are in
        super().on_response_complete()
        if not waiting and not self.transport.is_closing():
            self._arm()

    def _arm(self) -> None:
        self._disarm()
        self._head_bytes = 0
        self._deadline = self.loop.call_later(HEADER_SECONDS, self._too_slow)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _too_slow(self) -> None:
        self._deadline = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()


def guarded_protocol(per_address: int = PER_ADDRESS) -> type[GuardedProtocol]:
    """``GuardedProtocol`` with a cap of ``per_address`` connections from one address."""
    return type("GuardedProtocol", (GuardedProtocol,), {"per_address": per_address})
