"""Server: ``mallows serve``, the report's pages and the play page on a real web stack.

Owns the web application (``app``: Starlette routes), the pages rendered off the event loop
(``pages``) and kept until the database changes (``cache``), the streams that update pages
without reloading them (``events``: server-sent events), the play page's requests (``play``),
bots submitted over HTTP (``api``, ``archive``, ``submissions``: the check queue), what an
author sees and nobody else (``authors``), the rate limits and quotas (``throttle``), the ladder
it hosts and plays (``hosted``), the processes it runs that end with it (``children``), where
it listens (``listen``), what a connection may hold before it is a request (``connections``:
a deadline and a bound for its headers, a cap per address) and ``run``, which serves it all
with uvicorn (its request log, ``--access-log``, without queries: ``NoQuery``).

May import: ``mallows.report`` (the pages), ``mallows.results`` (the store),
``mallows.runner`` (the play page's matches), ``mallows.tournaments`` (ladder views, stored
comparisons), ``mallows.agents`` (the limit on open files), ``mallows.errors``; starlette, uvicorn and limits. Nothing of ``cli``, ``testing`` or
``interop``. Imported by ``mallows.cli`` only.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from mallows.server.throttle import Limits

#: Seconds the server waits for open connections (event streams) when it is stopped.
STOP_SECONDS = 2


class NoQuery(logging.Filter):
    """The request log's filter: a request's path without its query (a client that put a
    token or any other secret in an address does not get it written down)."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) >= 3 and isinstance(args[2], str):
            record.args = (*args[:2], args[2].split("?", 1)[0], *args[3:])
        return True


def log_config() -> dict:
    """uvicorn's logging, with the request log on stderr beside the rest (stdout carries the
    address the server prints, which a program reads) and without queries (``NoQuery``)."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config["filters"] = {"no_query": {"()": NoQuery}}
    config["handlers"]["access"].update(stream="ext://sys.stderr", filters=["no_query"])
    return config


def run(
    db: Path,
    host: str,
    port: int,
    public: bool,
    refresh: int,
    echo: Callable[..., None],
    public_name: str | None = None,
    ladder: str | None = None,
    check_workers: int = 1,
    check_games: int = 5,
    limits: Limits | None = None,
    access_log: bool = False,
    workers: int | None = None,
    address: str | None = None,
    per_address: int | None = None,
) -> None:
    """Serve database ``db`` on ``host``:``port`` until interrupted (``echo`` prints the
    address, and the warning when the pages reach beyond this machine); ``public_name``: the
    host name it is reached by from elsewhere (any other ``Host`` is refused); ``limits``: the
    rate limits and quotas (``server.throttle``); ``access_log``: a line per request on stderr
    (its address and path: tokens travel in headers only, so none is printed); ``ladder``: the
    ladder it hosts and plays, with ``workers`` and ``address`` as ``mallows ladder run`` takes
    them (``server.hosted``); ``per_address``: connections one address other than loopback
    may keep open at once (``server.connections``)."""
    import uvicorn

    from mallows.server.app import Config, make_app
    from mallows.agents.isolation import raise_descriptor_limit
    from mallows.server.connections import PER_ADDRESS, guarded_protocol
    from mallows.server.listen import (
        check_host,
        check_port,
        check_public_name,
        exposure_warning,
        listen,
        url_host,
    )
    from mallows.server.pages import open_store
    from mallows.server.throttle import Limits

    check_port(port)
    host = check_host(host, public)
    public_name = check_public_name(public_name)
    store = open_store(db)  # a database that cannot be read is refused now, not at a page
    try:
        if ladder is not None:  # a wrong ladder name is refused now, not at the first upload
            from mallows.tournaments.ladder.run import stored_ladder

            stored_ladder(store, ladder)
    finally:
        store.close()
    raise_descriptor_limit()
    sock = listen(host, port)
    config = Config(
        Path(db),
        host,
        max(1, refresh),
        public_name=public_name,
        ladder=ladder,
        check_workers=check_workers,
        check_games=check_games,
        public=public,
        limits=limits or Limits(),
        workers=workers,
        address=address,
    )
    app = make_app(config)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            # a deadline for each request's headers, and connections capped per address
            http=guarded_protocol(per_address or PER_ADDRESS),
            log_level="info" if access_log else "warning",
            access_log=access_log,
            log_config=log_config(),
            lifespan="on",
            timeout_graceful_shutdown=STOP_SECONDS,
            server_header=False,
            proxy_headers=False,  # the client's address is the socket's: the play page's
            # loopback check cannot be talked around with X-Forwarded-For
        )
    )
    app.state.pages.warm()
    warning = exposure_warning(host)
    if warning:
        echo(warning, err=True)
    echo(
        f"serving {db} at http://{url_host(host)}:{sock.getsockname()[1]}/index.html "
        f"(Ctrl-C to stop)"
    )
    sys.stdout.flush()
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        sock.close()
