"""Server: ``mallows serve``, the report's pages and the play page on a real web stack.

Owns the web application (``app``: Starlette routes), the pages rendered off the event loop
(``pages``) and kept until the database changes (``cache``), the streams that update pages
without reloading them (``events``: server-sent events), the play page's requests (``play``),
bots submitted over HTTP (``api``, ``archive``, ``submissions``: the check queue), the ladder
it hosts and plays (``hosted``), the processes it runs that end with it (``children``), where
it listens (``listen``) and ``run``, which serves it all with uvicorn.

May import: ``mallows.report`` (the pages), ``mallows.results`` (the store),
``mallows.runner`` (the play page's matches), ``mallows.tournaments`` (ladder views, stored
comparisons), ``mallows.errors``; starlette and uvicorn. Nothing of ``cli``, ``testing`` or
``interop``. Imported by ``mallows.cli`` only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

#: Seconds the server waits for open connections (event streams) when it is stopped.
STOP_SECONDS = 2


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
    workers: int | None = None,
    address: str | None = None,
) -> None:
    """Serve database ``db`` on ``host``:``port`` until interrupted (``echo`` prints the
    address, and the warning when the pages reach beyond this machine); ``public_name``: the
    host name it is reached by from elsewhere (any other ``Host`` is refused); ``ladder``: the
    ladder it hosts and plays, with ``workers`` and ``address`` as ``mallows ladder run`` takes
    them (``server.hosted``)."""
    import uvicorn

    from mallows.server.app import Config, make_app
    from mallows.server.listen import (
        check_host,
        check_port,
        check_public_name,
        exposure_warning,
        listen,
        url_host,
    )
    from mallows.server.pages import open_store

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
    sock = listen(host, port)
    config = Config(
        Path(db),
        host,
        max(1, refresh),
        public_name,
        ladder,
        check_workers,
        check_games,
        workers,
        address,
    )
    app = make_app(config)
    server = uvicorn.Server(
        uvicorn.Config(
            app,
            log_level="warning",
            access_log=False,
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
