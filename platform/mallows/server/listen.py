"""Where ``mallows serve`` listens: the port and host checked, and the listening socket made
(uvicorn serves on it: ``server.run``).

``check_port`` accepts 1-65535, or 0 for any free port; ``check_host`` accepts a loopback
address (``127.0.0.1``, ``::1``, ``localhost``) as it is, and any other one only when the user
said ``--public``: the pages carry no authentication, so whoever reaches the port reads every
result (``exposure_warning`` says so when it is served). ``make_server`` listens on IPv4 or
IPv6 as the host is written, with a backlog that does not drop connections under a burst of
requests (a backlog of 5 made clients wait seconds for a retry, or fail).
"""

from __future__ import annotations

import re
import ipaddress
import socket

from mallows.errors import MallowsError

#: Connections waiting to be accepted.
BACKLOG = 256


def check_port(port: int) -> int:
    if not 0 <= port <= 65535:
        raise MallowsError(
            f"--port {port} is not a port: give one from 1 to 65535, or 0 for any free port"
        )
    return port


def is_loopback(host: str) -> bool:
    if host.lower() in ("localhost", "localhost.", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")


def check_public_name(name: str | None) -> str | None:
    """``--public-name``: a host name (letters, digits, hyphens, dotted; at most 253
    characters) or an IP address, or a ``MallowsError`` naming the fix."""
    if name is None:
        return None
    try:
        return str(ipaddress.ip_address(name.strip("[]")))
    except ValueError:
        pass
    last = name.rstrip(".").rsplit(".", 1)[-1]
    if len(name) > 253 or not _NAME.fullmatch(name) or last.isdigit():  # no all-digit TLD
        raise MallowsError(
            f"--public-name {name[:80]!r} is not a host name: give the name other machines "
            f"reach this server by (e.g. mallows.example.org) or its IP address"
        )
    return name.rstrip(".").lower()


def check_host(host: str, public: bool) -> str:
    """``host`` without IPv6 brackets; refused when it is not loopback and not ``public``."""
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise MallowsError(
            "--host is empty: give an address, e.g. 127.0.0.1 (this machine only) or ::1"
        )
    if not is_loopback(host) and not public:
        raise MallowsError(
            f"--host {host} would serve every result in the database to the network, and the "
            f"pages carry no authentication: add --public to do that anyway, or serve on "
            f"127.0.0.1 (the default) and reach it through an SSH tunnel"
        )
    return host


def exposure_warning(host: str) -> str | None:
    if is_loopback(host):
        return None
    return (
        f"warning: serving on {host}, beyond this machine: the pages carry no "
        f"authentication, so anyone who can reach this port reads every result in the "
        f"database"
    )


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def listen(host: str, port: int) -> socket.socket:
    """A socket listening on ``host``:``port``, or a ``MallowsError`` saying why not (the port in
    use, an address this machine does not have, a name that does not resolve)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise MallowsError(
            f"--host {host} is not an address of this machine ({exc.strerror}):"
            f" give one, e.g. 127.0.0.1 or ::1"
        ) from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
        sock.listen(BACKLOG)
        sock.set_inheritable(True)
        return sock
    except OSError as exc:
        sock.close()
        text = exc.strerror or str(exc)
        if exc.errno in (98, 48):  # EADDRINUSE (Linux, macOS)
            raise MallowsError(
                f"cannot listen on {url_host(host)}:{port}: the port is in use: "
                f"choose another --port (or --port 0 for any free one)"
            ) from None
        if exc.errno in (13,):  # EACCES: a port below 1024 without privileges
            raise MallowsError(
                f"cannot listen on {url_host(host)}:{port} ({text}): ports below "
                f"1024 need privileges; choose a --port from 1024 up (or 0 for "
                f"any free one)"
            ) from None
        if exc.errno in (99, 97, 49, 47):  # EADDRNOTAVAIL, EAFNOSUPPORT
            raise MallowsError(
                f"cannot listen on {url_host(host)}:{port} ({text}): this "
                f"machine has no such address"
                + (" (IPv6 may be off here: try --host 127.0.0.1)" if ":" in host else "")
                + "; give one of its addresses with --host"
            ) from None
        raise MallowsError(
            f"cannot listen on {url_host(host)}:{port} ({text}): check --host and --port"
        ) from None
