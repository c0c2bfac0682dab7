"""Bots submitted over HTTP (issue 31, item 3): ``POST /api/bots`` with an account's token and a
zip or tar.gz; the check runs in the background queue (``mallows bots submit``'s, sandboxed),
the author polls the queue position, then the table and ``NAME@N``, or the reason it failed.
Refused, each before anything is stored: no token, a wrong or revoked one, an oversize archive,
a path-traversal or link archive, a name another account owns."""

from __future__ import annotations

import http.client
import io
import json
import stat
import subprocess
import tarfile
import time
import zipfile

import pytest

from conftest import MALLOWS, REPO, invoke, port_of, serving
from mallows.results.store import Store
from mallows.server.archive import MAX_ARCHIVE

BOT = (REPO / "bots" / "example_python" / "bot.py").read_bytes()
MANIFEST = (REPO / "bots" / "example_python" / "bot.toml").read_text()
CRASH = b"import sys\nfor line in sys.stdin:\n    raise SystemExit('I give up on purpose')\n"


def tar_gz(
    files: dict[str, bytes], link: str | None = None, kind: bytes = tarfile.SYMTYPE
) -> bytes:
    """A tar.gz of ``files``, plus a member ``link`` of ``kind`` (a symbolic link to
    /etc/passwd by default; a hard link, a device or a FIFO)."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        if link:
            info = tarfile.TarInfo(link)
            info.type, info.linkname = kind, "/etc/passwd"
            tar.addfile(info)
    return out.getvalue()


def zipped(files: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return out.getvalue()


def zip_link(files: dict[str, bytes], link: str) -> bytes:
    """A zip of ``files`` plus ``link``, a symbolic link to /etc/passwd (as zip stores one)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
        info = zipfile.ZipInfo(link)
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(info, "/etc/passwd")
    return out.getvalue()


def bot_files(name: str, code: bytes = BOT) -> dict[str, bytes]:
    manifest = MANIFEST.replace('name = "example_python"', f'name = "{name}"')
    return {f"{name}/bot.toml": manifest.encode(), f"{name}/bot.py": code}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("submit")
    db = folder / "r.db"
    tokens = {}
    for name in ("alice", "bob", "gone"):
        tokens[name] = invoke("users", "add", name, "--db", db).output.strip().splitlines()[-1]
    invoke("users", "revoke", "gone", "--db", db)
    args = ["--db", db, "--check-games", "1"]
    args += ["--rate-limit", "submit:account=100/hour"]  # alice sends a dozen archives here
    with serving(args) as base:
        yield port_of(base), db, tokens


def call_raw(
    port: int,
    method: str,
    path: str,
    token: str | None = None,
    body: bytes = b"",
    headers: dict | None = None,
) -> tuple[int, dict[str, str], bytes]:
    """(status, headers by lower-case name, body) of a request with ``token`` as a Bearer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    sent = dict(headers or {})
    if token is not None:
        sent["Authorization"] = f"Bearer {token}"
    try:
        conn.request(method, path, body=body or None, headers=sent)
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read()
    finally:
        conn.close()


def call(
    port: int,
    method: str,
    path: str,
    token: str | None = None,
    body: bytes = b"",
    headers: dict | None = None,
) -> tuple[int, dict]:
    status, _, answer = call_raw(port, method, path, token, body, headers)
    return status, json.loads(answer or b"{}")


def until_done(port: int, token: str, sid: str, seconds: float = 240) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        status, view = call(port, "GET", f"/api/submissions/{sid}", token)
        assert status == 200, view
        if view["state"] in ("passed", "failed"):
            return view
        time.sleep(0.5)
    raise AssertionError("the check did not end")


def submissions(db) -> int:
    with Store(db, readonly=True) as store:
        return len(list(store.db.query("SELECT * FROM submissions")))


def test_a_bot_is_checked_in_the_queue_and_stored_as_name_at_n(server):
    port, db, tokens = server
    status, queued = call(
        port, "POST", "/api/bots?name=sharp", tokens["alice"], tar_gz(bot_files("sharp"))
    )
    assert status == 202 and queued["state"] in ("queued", "checking"), queued
    if queued["state"] == "queued":
        assert queued["position"] == 1
    # the owner sees it; another author does not
    assert call(port, "GET", queued["status"], tokens["bob"])[0] == 404
    done = until_done(port, tokens["alice"], queued["id"])
    assert done["state"] == "passed" and done["bot"] == "sharp@1", done
    assert "sharp" in done["output"]
    with Store(db, readonly=True) as store:
        assert store.accounts.owner("sharp") == "alice"
    # the name is alice's: bob may not submit under it
    status, refused = call(
        port, "POST", "/api/bots?name=sharp", tokens["bob"], zipped(bot_files("sharp"))
    )
    assert status == 403 and "belongs to account 'alice'" in refused["error"]


def test_a_failing_bot_gets_its_reason(server):
    port, _, tokens = server
    status, queued = call(
        port, "POST", "/api/bots?name=crashy", tokens["bob"], zipped(bot_files("crashy", CRASH))
    )
    assert status == 202, queued
    done = until_done(port, tokens["bob"], queued["id"])
    assert done["state"] == "failed" and "bot" not in done
    assert "Not submitted" in done["reason"], done["reason"]


@pytest.mark.parametrize(
    "archive, words",
    [
        (tar_gz({"../evil.py": b"x"}), "names must be relative"),
        (tar_gz({"/etc/evil.py": b"x"}), "names must be relative"),
        (zipped({"a/../../evil.py": b"x"}), "names must be relative"),
        (tar_gz(bot_files("linky"), link="linky/passwd"), "link or a special file"),
        (tar_gz(bot_files("linky"), "linky/hard", tarfile.LNKTYPE), "link or a special file"),
        (tar_gz(bot_files("linky"), "linky/tty", tarfile.CHRTYPE), "link or a special file"),
        (tar_gz(bot_files("linky"), "linky/fifo", tarfile.FIFOTYPE), "link or a special file"),
        (zip_link(bot_files("linky"), "linky/passwd"), "link or a special file"),
        (b"just some bytes", "neither a zip nor a tar.gz"),
    ],
)
def test_bad_archives_are_refused(server, archive, words):
    port, db, tokens = server
    before = submissions(db)
    status, refused = call(port, "POST", "/api/bots?name=linky", tokens["alice"], archive)
    assert status == 400 and words in refused["error"], refused
    assert submissions(db) == before


def test_oversize_and_tokenless_uploads_are_refused_before_anything_is_stored(server):
    port, db, tokens = server
    before = submissions(db)
    status, refused = call(
        port, "POST", "/api/bots?name=huge", tokens["alice"], b"x" * (MAX_ARCHIVE + 1)
    )
    assert status == 413 and "nothing was stored" in refused["error"]
    for token, words in (
        (None, "no token"),
        ("1.wrong", "not a valid token"),
        (tokens["gone"], "revoked"),
    ):
        status, refused = call(
            port, "POST", "/api/bots?name=huge", token, tar_gz(bot_files("huge"))
        )
        assert status == 401 and words in refused["error"], (token, refused)
    with Store(db, readonly=True) as store:
        assert store.accounts.owner("huge") is None
    assert submissions(db) == before
    # a page of another site may not post it with the author's token either
    status, refused = call(
        port,
        "POST",
        "/api/bots?name=huge",
        tokens["alice"],
        tar_gz(bot_files("huge")),
        {"Origin": "http://evil.example"},
    )
    assert status == 403


def test_bots_submit_with_server_and_token_from_an_authors_machine(server, tmp_path):
    port, _, tokens = server
    folder = tmp_path / "viaCli"
    folder.mkdir()
    for name, data in bot_files("viacli").items():
        (folder / name.split("/", 1)[1]).write_bytes(data)
    result = subprocess.run(
        [MALLOWS, "bots", "submit", str(folder), "--name", "viacli"]
        + ["--server", f"http://127.0.0.1:{port}", "--token", tokens["bob"]],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "viacli@1"
    assert "submitted viacli" in result.stdout
    result = subprocess.run(
        [MALLOWS, "bots", "submit", str(folder), "--name", "viacli"]
        + ["--server", f"http://127.0.0.1:{port}", "--token", tokens["gone"]],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2 and "revoked" in result.stderr
    assert "Traceback" not in result.stderr


def test_an_author_sees_and_withdraws_only_their_own_bots(server):
    port, db, tokens = server
    status, queued = call(
        port, "POST", "/api/bots?name=ownbot", tokens["alice"], tar_gz(bot_files("ownbot"))
    )
    assert status == 202
    assert until_done(port, tokens["alice"], queued["id"])["bot"] == "ownbot@1"
    status, me = call(port, "GET", "/api/me", tokens["alice"])
    assert status == 200 and me["name"] == "alice"
    versions = {v["version"]: v for b in me["bots"] for v in b["versions"]}
    assert "ownbot@1" in versions and versions["ownbot@1"]["withdrawn"] is None
    assert "take4" in versions["ownbot@1"]["check"]["games"]
    _, bobs = call(port, "GET", "/api/me", tokens["bob"])
    assert all(b["name"] != "ownbot" for b in bobs["bots"])  # another author's: not listed
    assert all(s["name"] != "ownbot" for s in bobs["submissions"])
    status, refused = call(port, "POST", "/api/bots/ownbot@1/withdraw", tokens["bob"])
    assert status == 404  # bob may not withdraw alice's bot
    assert call(port, "POST", "/api/bots/ownbot@1/withdraw", tokens["gone"])[0] == 401
    status, done = call(port, "POST", "/api/bots/ownbot@1/withdraw", tokens["alice"])
    assert status == 200 and done == {"withdrawn": "ownbot@1"}
    with Store(db, readonly=True) as store:
        assert store.submission("ownbot", 1)["withdrawn"] is not None
    page = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    page.request("GET", "/author.html")
    answer = page.getresponse()
    assert answer.status == 200 and b'src="/live/author.js"' in answer.read()
