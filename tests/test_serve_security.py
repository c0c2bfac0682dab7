"""``mallows serve`` safe by default (issue 31, item 5), each attack as a real client on loopback
would try it (and each succeeded on the hand-written ``http.server`` serve before): a DNS
rebinding ``Host`` is refused; a post from another origin, or without one, is refused; a post
without the session's CSRF token is refused; every answer carries a CSP without inline script
and forbids framing; too large or too slow request bodies hold nothing; a client that goes away
leaves no traceback; connections that trickle their headers (slowloris) are cut off and hold no
descriptor for long."""

from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import time

import pytest

from conftest import MALLOWS, REPO, port_of, serving
from mallows.report.data import slug

TOML = (
    'name = "sec"\ngame = "take4"\nplayers = 2\ndeals = 2\nseed = 4\nbots = ["random", "greedy"]\n'
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("security")
    (folder / "t.toml").write_text(TOML)
    db = folder / "r.db"
    subprocess.run(
        [MALLOWS, "tournament", "run", str(folder / "t.toml"), "--db", str(db)]
        + ["--workers", "1", "--quiet"],
        check=True,
        capture_output=True,
        cwd=REPO,
    )
    with open(folder / "stderr.txt", "w+") as err:
        with serving(["--db", db, "--public-name", "mallows.example"], err) as base:
            yield port_of(base), folder / "stderr.txt"


def request(
    port: int, method: str, path: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> tuple[int, dict[str, str], str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request(method, path, body=body or None, headers=headers or {})
        r = conn.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        conn.close()


def page_session(port: int) -> dict[str, str]:
    """What the play page's script sends: its origin, the session cookie, the CSRF token."""
    status, headers, text = request(port, "GET", "/play.html")
    assert status == 200
    cookie = headers["set-cookie"].split(";", 1)[0]
    token = re.search(r'name="csrf" value="([0-9a-f]+)"', text).group(1)
    return {"Origin": f"http://127.0.0.1:{port}", "Cookie": cookie, "X-CSRF-Token": token}


def new_match(port: int, headers: dict[str, str]) -> tuple[int, dict]:
    body = json.dumps({"game": "take4", "opponents": "random", "seat": 0, "seed": 3}).encode()
    status, _, text = request(
        port, "POST", "/play/new", {"Content-Type": "application/json", **headers}, body
    )
    return status, json.loads(text)


def test_a_rebinding_host_is_refused(server):
    port, _ = server
    ok = page_session(port)
    status, started = new_match(port, ok)
    assert status == 200
    for path in ("/index.html", f"/t/{slug('sec')}.html", f"/play/{started['id']}/state"):
        status, _, text = request(port, "GET", path, {"Host": "rebind.attacker.example"})
        assert status == 400 and "sec" not in text, path
    for name in (f"127.0.0.1:{port}", f"localhost:{port}", "mallows.example"):
        assert request(port, "GET", "/index.html", {"Host": name})[0] == 200, name


def test_posts_from_another_origin_or_none_are_refused(server):
    port, _ = server
    ok = page_session(port)
    for origin in (f"http://localhost:{port}", "http://localhost:3000", "http://127.0.0.1:9"):
        status, answer = new_match(port, {**ok, "Origin": origin})
        assert status == 403 and "refused" in answer["error"], origin
    missing = {k: v for k, v in ok.items() if k != "Origin"}
    status, answer = new_match(port, missing)
    assert status == 403 and "needs an Origin header" in answer["error"]
    # nor may another origin play the person's seat of a match started by the page itself
    status, started = new_match(port, ok)
    assert status == 200
    body = json.dumps({"index": 0}).encode()
    for headers in ({**ok, "Origin": "http://127.0.0.1:9"}, missing):
        status, _, text = request(
            port,
            "POST",
            f"/play/{started['id']}/act",
            {"Content-Type": "application/json", **headers},
            body,
        )
        assert status == 403 and '"ok"' not in text


def test_a_post_needs_the_sessions_csrf_token(server):
    port, _ = server
    ok = page_session(port)
    other = page_session(port)
    for headers in (
        {k: v for k, v in ok.items() if k != "X-CSRF-Token"},
        {**ok, "X-CSRF-Token": "0" * 64},
        {**ok, "X-CSRF-Token": other["X-CSRF-Token"]},  # another session's token
        {k: v for k, v in ok.items() if k != "Cookie"},
    ):
        status, answer = new_match(port, headers)
        assert status == 403 and "CSRF token" in answer["error"], headers
    # the form's post carries the token as a field
    body = f"game=take4&opponents=random&seat=0&csrf={ok['X-CSRF-Token']}".encode()
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": ok["Origin"]}
    status, headers, _ = request(port, "POST", "/play/new", {**form, "Cookie": ok["Cookie"]}, body)
    assert status == 303 and headers["location"].startswith("/play/")
    status, _, _ = request(port, "POST", "/play/new", form, body)  # no cookie: no session
    assert status == 403


def test_every_answer_forbids_inline_script_and_framing(server):
    port, _ = server
    ok = page_session(port)
    _, started = new_match(port, ok)
    cookie = {"Cookie": ok["Cookie"]}
    for path in (
        "/index.html",
        f"/t/{slug('sec')}.html",
        f"/m/{slug('sec')}/1.html",
        f"/m/{slug('sec')}.html",
        f"/b/{slug('greedy')}.html",
        "/play.html",
        f"/play/{started['id']}",
        "/nope.html",
    ):
        status, headers, text = request(port, "GET", path, cookie)
        csp = headers["content-security-policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self';" in csp, path
        assert headers["x-frame-options"] == "DENY" and headers["x-content-type-options"]
        for tag in re.findall(r"<script[^>]*>", text):  # data blocks or files, never code
            assert "src=" in tag or 'type="application/json"' in tag, (path, tag)


def test_bodies_too_large_or_too_slow_hold_nothing(server):
    port, _ = server
    ok = page_session(port)
    status, _, text = request(
        port, "POST", "/play/new", {**ok, "Content-Length": "10000000"}, b"x" * 10
    )
    assert status == 413 and "too large" in text
    # posts whose bodies never arrive, more than any pool of threads: the pages are served
    stuck = []
    for _ in range(12):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(
            b"POST /play/new HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{}"
        )
        stuck.append(s)
    try:
        t0 = time.monotonic()
        for _ in range(3):
            assert request(port, "GET", "/index.html")[0] == 200
        assert time.monotonic() - t0 < 20
    finally:
        for s in stuck:
            s.close()


def test_a_client_that_goes_away_leaves_no_traceback(server):
    port, stderr = server
    for _ in range(5):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(f"GET /t/{slug('sec')}.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        s.close()
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    s.recv(100)
    s.close()
    time.sleep(1)
    assert request(port, "GET", "/index.html")[0] == 200
    assert "Traceback" not in stderr.read_text()


@pytest.mark.parametrize(
    "args,words",
    [
        (["--public-name", "bad name\x1b"], "is not a host name"),
        (["--public-name", "a" * 300], "is not a host name"),
        (["--public-name", "9" * 30], "is not a host name"),
        (["--check-workers", "9" * 30], "--check-workers"),
        (["--check-games", "0"], "--check-games"),
    ],
)
def test_serve_refuses_what_it_could_not_serve_by_before_it_listens(tmp_path, args, words):
    """A bad --public-name (the one name besides loopback that Host may carry) or an
    impossible number of checks is refused at once (exit 2), never served with."""
    from conftest import invoke
    from mallows.results.store import Store

    db = tmp_path / "r.db"
    Store(db).close()
    result = invoke("serve", "--db", db, "--port", "0", *args)
    assert result.exit_code == 2, result.output
    assert words in result.output and "Traceback" not in result.output


def _few_descriptors() -> None:
    """In serve's child: at most 256 open files, soft and hard (so serve cannot raise it)."""
    import resource

    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def _trickle(socks: list[socket.socket]) -> int:
    """One more header byte on each connection; how many the server still took."""
    alive = 0
    for s in socks:
        try:
            s.sendall(b"X")
            alive += 1
        except OSError:
            pass
    return alive


@pytest.mark.slow
def test_connections_that_trickle_their_headers_are_cut_off_and_hold_nothing(server, tmp_path):
    """Slowloris: 300 connections that each send a header byte every second, against a serve of
    256 file descriptors. uvicorn alone has no deadline for a request's headers (its idle timer
    starts again at each byte), so they held every descriptor for as long as they trickled and
    a normal request was reset; now each is closed ``HEADER_SECONDS`` after it opened, and the
    server answers again."""
    from mallows.server.connections import HEADER_SECONDS

    db = tmp_path / "r.db"
    db.write_bytes((server[1].parent / "r.db").read_bytes())
    with serving(["--db", db], preexec_fn=_few_descriptors) as base:
        port = port_of(base)
        socks = []
        try:
            for _ in range(300):
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                s.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                socks.append(s)
            deadline = time.monotonic() + HEADER_SECONDS + 5
            alive = len(socks)
            while alive and time.monotonic() < deadline:
                time.sleep(1)
                alive = _trickle(socks)
            assert alive == 0 or _trickle(socks) == 0, f"{alive} connections still trickling"
            assert request(port, "GET", "/index.html")[0] == 200
        finally:
            for s in socks:
                s.close()


def test_a_request_in_time_is_answered_and_its_connection_kept_alive(server):
    """The deadline is for headers only: a kept-alive connection answers request after request,
    each sent in time, past ``HEADER_SECONDS`` in all."""
    from mallows.server import connections

    port, _ = server
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        t0 = time.monotonic()
        for _ in range(4):  # gaps under uvicorn's 5 s keep-alive, more than the deadline in all
            conn.request("GET", "/index.html")
            r = conn.getresponse()
            assert r.status == 200
            r.read()
            time.sleep(connections.HEADER_SECONDS / 3)
        assert time.monotonic() - t0 > connections.HEADER_SECONDS
    finally:
        conn.close()


def test_endless_request_headers_are_refused_after_a_bound_not_kept(server):
    """One connection that sends header lines without end: the parser kept them all (uvicorn
    sets no bound with httptools; 8 s of it grew a serve to 2.5 GB). Now the answer is 431
    once they pass ``HEADER_BYTES`` and the connection is closed; headers of a normal size,
    if large (a 40 KB one), are served."""
    from mallows.server.connections import HEADER_BYTES

    port, _ = server
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n")
    line = b"X-Big: " + b"a" * 8000 + b"\r\n"
    sent, answer = 0, b""
    try:
        while sent < 64 * 2**20:
            s.sendall(line * 16)
            sent += len(line) * 16
    except OSError:
        pass
    try:
        answer = s.recv(100)
    except OSError:
        pass
    s.close()
    assert sent < 16 * 2**20, f"the server read {sent} bytes of headers"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431"), answer
    status, _, _ = request(port, "GET", "/index.html", {"X-Pad": "p" * (HEADER_BYTES // 2)})
    assert status == 200
