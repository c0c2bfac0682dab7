"""What keeps ``mallows serve`` safe by default: which hosts it answers, which requests may
change anything, and the headers every answer carries.

Owns ``trusted_hosts`` (the names the server answers to: loopback names, the address it
listens on and the configured public name; any other ``Host`` is refused by Starlette's
``TrustedHostMiddleware``, so a rebinding attacker's name reaches nothing), ``Sessions`` (a
random session cookie per browser and the CSRF token derived from it with a key of this
server's run: HMAC-SHA256, nothing stored), ``check_write`` (a state-changing request needs the
server's own exact origin in ``Origin``, a missing one refused, and the session's CSRF token in
the ``X-CSRF-Token`` header or a form's ``csrf`` field) and ``SecurityHeaders`` (a CSP without
inline script, no framing, no sniffing).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import urllib.parse
from collections.abc import Iterable

from starlette.datastructures import MutableHeaders
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

COOKIE = "mallows_session"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf"
LOOPBACK_NAMES = ("localhost", "127.0.0.1", "[::1]", "::1")
#: Scripts from the server only (no inline script, no eval); the charts' inline SVG styles
#: and the favicon's data address allowed; never framed.
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'"
)
HEADERS = {
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
}


def trusted_hosts(host: str, public_name: str | None = None) -> list[str]:
    """The ``Host`` names answered: loopback's, ``host`` itself unless it is a wildcard address,
    and ``public_name``."""
    names = list(LOOPBACK_NAMES)
    for name in (host, public_name):
        if name and name not in ("0.0.0.0", "::"):
            names.append(f"[{name}]" if ":" in name and not name.startswith("[") else name)
    return names


from mallows.errors import WriteRefused  # noqa: E402  (defined with every other error)


class Sessions:
    """Session cookies and their CSRF tokens, keyed by a secret drawn when the server starts
    (a restart makes old tokens invalid: the page is loaded again)."""

    def __init__(self, key: bytes | None = None):
        self._key = key or secrets.token_bytes(32)

    def token(self, session: str) -> str:
        return hmac.new(self._key, session.encode(), hashlib.sha256).hexdigest()

    def session(self, request: Request) -> tuple[str, bool]:
        """The request's session id and whether it is new (then the answer sets the cookie)."""
        sid = request.cookies.get(COOKIE, "")
        if len(sid) == 32 and all(c in "0123456789abcdef" for c in sid):
            return sid, False
        return secrets.token_hex(16), True

    def check_write(self, request: Request, form_fields: Iterable[tuple[str, str]] = ()) -> None:
        """Refuse (``WriteRefused``) a state-changing request not from this server's own page."""
        if not request.headers.get("origin"):
            raise WriteRefused(
                "a request that changes anything needs an Origin header: send it from the "
                "server's own page"
            )
        check_origin(request)
        sid = request.cookies.get(COOKIE, "")
        sent = request.headers.get(CSRF_HEADER) or dict(form_fields).get(CSRF_FIELD, "")
        if not sid or not hmac.compare_digest(sent, self.token(sid)):
            raise WriteRefused(
                "the request carries no valid CSRF token: load the page again and retry from it"
            )


def check_origin(request: Request) -> None:
    """Refuse (``WriteRefused``) a request whose ``Origin``, when it has one, is not this
    server's own (an API call with a token from a program carries none)."""
    origin = request.headers.get("origin")
    host = request.headers.get("host", "")
    if origin:
        parts = urllib.parse.urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != host.lower():
            raise WriteRefused(
                f"posts from {origin} are refused: only this server's own pages "
                f"(http://{host}) may change anything"
            )


def bearer(request: Request) -> str | None:
    """The token of ``Authorization: Bearer TOKEN`` (tokens never travel in addresses)."""
    kind, _, token = request.headers.get("authorization", "").partition(" ")
    return token.strip() if kind.lower() == "bearer" and token.strip() else None


class SecurityHeaders:
    """ASGI middleware: the security headers on every answer."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in HEADERS.items():
                    headers.setdefault(name, value)
            await send(message)

        await self.app(scope, receive, send_with_headers)
