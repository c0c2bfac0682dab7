"""The server's guard below HTTP (``mallows.server.connections``): one address other than
loopback may hold at most ``PER_ADDRESS`` connections at once, and a slot is given back when its
connection ends. (The deadline for a request's headers is tested end to end, against the real
console script, in ``test_serve_security.py``.) The protocol here is uvicorn's own, over a
transport that only says whom it is connected to: a test network has no second address to
connect from."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.server import ServerState

from mallows.server.connections import (
    PER_ADDRESS,
    GuardedProtocol,
    capped_address,
    guarded_protocol,
)


async def _app(scope: Any, receive: Any, send: Any) -> None:  # never called here
    raise AssertionError("no request is made in these tests")


class _Transport(asyncio.Transport):
    """A connection from ``peer``: what the protocol asks of a transport, nothing sent; closing
    it tells its protocol the connection is lost, soon after, as asyncio's transports do."""

    def __init__(self, peer: tuple) -> None:
        super().__init__()
        self.peer, self.closed = peer, False
        self.protocol: GuardedProtocol | None = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"peername": self.peer, "sockname": ("127.0.0.1", 8000)}.get(name, default)

    def close(self) -> None:
        if not self.closed and self.protocol is not None:
            asyncio.get_running_loop().call_soon(self.protocol.connection_lost, None)
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def pause_reading(self) -> None: ...
    def resume_reading(self) -> None: ...
    def write(self, data: Any) -> None: ...


def _connect(
    config: Config, state: ServerState, peer: tuple, kind: type[GuardedProtocol] = GuardedProtocol
) -> tuple[GuardedProtocol, _Transport]:
    protocol = kind(config, state, {}, _loop=asyncio.get_running_loop())
    transport = _Transport(peer)
    transport.protocol = protocol
    protocol.connection_made(transport)
    return protocol, transport


def test_one_address_holds_at_most_per_address_connections_and_loopback_is_not_capped():
    async def main() -> None:
        config, state = Config(_app), ServerState()
        first = [_connect(config, state, ("203.0.113.7", 1000 + i)) for i in range(PER_ADDRESS)]
        assert not any(t.closed for _, t in first)
        _, over = _connect(config, state, ("203.0.113.7", 2000))
        assert over.closed, "the connection over the cap was kept"
        _, other = _connect(config, state, ("198.51.100.1", 3000))  # another address: its own
        assert not other.closed
        for host in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
            local = [_connect(config, state, (host, 4000 + i)) for i in range(PER_ADDRESS + 5)]
            assert not any(t.closed for _, t in local), host
        await asyncio.sleep(0)  # the refused connection is lost, and its slot given back
        _, still_over = _connect(config, state, ("203.0.113.7", 2001))
        assert still_over.closed, "a refused connection took a slot for good"
        await asyncio.sleep(0)
        first[0][1].close()  # a connection that ends gives its slot back
        await asyncio.sleep(0)
        _, again = _connect(config, state, ("203.0.113.7", 5000))
        assert not again.closed
        _, over_again = _connect(config, state, ("203.0.113.7", 5001))
        assert over_again.closed
        for _, t in first[1:]:
            t.close()
        await asyncio.sleep(0)

    asyncio.run(main())


def test_the_cap_is_the_servers_to_set():
    """``serve --connections-per-address 3``: the fourth connection from one address is closed."""

    async def main() -> None:
        config, state, kind = Config(_app), ServerState(), guarded_protocol(3)
        kept = [_connect(config, state, ("203.0.113.8", 1000 + i), kind)[1] for i in range(3)]
        assert not any(t.closed for t in kept)
        assert _connect(config, state, ("203.0.113.8", 1003), kind)[1].closed

    asyncio.run(main())


def test_each_server_counts_its_own_connections():
    async def main() -> None:
        config = Config(_app)
        one, two = ServerState(), ServerState()
        for i in range(PER_ADDRESS):
            _connect(config, one, ("203.0.113.9", 1000 + i))
        _, fresh = _connect(config, two, ("203.0.113.9", 9000))
        assert not fresh.closed

    asyncio.run(main())


@pytest.mark.parametrize(
    "host,counted",
    [
        ("127.0.0.1", None),
        ("127.8.9.10", None),
        ("::1", None),
        ("::ffff:127.0.0.1", None),
        ("::ffff:203.0.113.5", "203.0.113.5"),  # one address however it is written
        ("203.0.113.5", "203.0.113.5"),
        ("2001:db8::1", "2001:db8::1"),
        ("", None),
        (None, None),
    ],
)
def test_which_addresses_are_counted(host, counted):
    assert capped_address(host) == counted


def test_the_server_raises_its_soft_descriptor_limit_to_the_hard_one():
    """A soft limit of 256 open files (the hard one 2,048) is raised to 2,048 at start, so the
    cap per address, not the soft default, is what bounds one address."""
    import resource
    import subprocess
    import sys

    def low() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 2048))

    code = (
        "import resource; from mallows.agents.isolation import raise_descriptor_limit as r; "
        "print(r(), resource.getrlimit(resource.RLIMIT_NOFILE)[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=low, timeout=60
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2048", "2048"]
