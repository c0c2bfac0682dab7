"""``mallows bots submit --server URL --token T PATH``: submit a bot to a competition server
from an author's own machine.

Packs the bot's files (as ``bots submit`` reads them: no hard link, no special file) into a
tar.gz, posts it to ``URL/api/bots`` with the token in ``Authorization: Bearer`` (never in the
address), then follows the submission: its place in the queue, then the check's table and
``NAME@N`` (exit 0) or the reason it failed (exit 1). Only printing and the HTTP client here.
"""

from __future__ import annotations

import io
import json
import tarfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import typer

from mallows.errors import MallowsError

#: Seconds between two looks at a submission's state, and the longest wait for its check.
POLL_SECONDS = 1.0
WAIT_SECONDS = 1800.0


def pack(path: Path) -> bytes:
    from mallows.agents.submissions import read_files

    snap = read_files(path, f"bot {str(path)!r}", strict=True)
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in sorted(snap.files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _call(url: str, token: str, body: bytes | None = None) -> dict:
    request = urllib.request.Request(
        url,
        data=body,
        method="POST" if body is not None else "GET",
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/gzip"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read()).get("error", exc.reason)
        except ValueError:
            why = exc.reason
        raise MallowsError(f"the server refused the submission ({exc.code}): {why}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise MallowsError(
            f"cannot reach the server at {url}: {getattr(exc, 'reason', exc)}: check --server"
        ) from None


def submit_remote(path: Path, name: str | None, server: str, token: str) -> None:
    if not path.exists():
        raise MallowsError(
            f"no file or folder {path}: give the path to your bot's .py file or folder"
        )
    name = name or (path.stem if path.is_file() else path.resolve().name)
    base = server.rstrip("/")
    if urllib.parse.urlsplit(base).scheme not in ("http", "https"):
        raise MallowsError(f"--server {server}: give the server's address, e.g. http://host:8000")
    query = urllib.parse.urlencode({"name": name})
    queued = _call(f"{base}/api/bots?{query}", token, pack(path))
    typer.echo(f"submitted {name} to {base}: {queued['state']}")
    seen = None
    deadline = time.monotonic() + WAIT_SECONDS
    view = queued
    while view["state"] not in ("passed", "failed") and time.monotonic() < deadline:
        if view["state"] == "queued" and view.get("position") != seen:
            seen = view.get("position")
            typer.echo(f"place in the queue: {seen}")
        time.sleep(POLL_SECONDS)
        view = _call(f"{base}{queued['status']}", token)
    if view["state"] not in ("passed", "failed"):
        raise MallowsError(f"the check did not end within {WAIT_SECONDS:g} s: look again later")
    typer.echo(view.get("output", "").rstrip())
    if view["state"] == "failed":
        raise typer.Exit(1)
    typer.echo(view["bot"])
