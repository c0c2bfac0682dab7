"""An author's bots on a public server (issue 31, items 4 and 5): what another author's bot
sent is its owner's and the admins' alone, the rate limits and quotas answer 429 saying when to
retry, every write of a ``--public`` server needs a token, and no token reaches a URL or the
request log.

One server for all: ``mallows serve --public`` on loopback with its request log on and tight
limits. Before it starts, a bot of alice's and a bot no account owns both forfeit in a real
tournament (their processes crash, each saying why on stderr); the server then shows alice's
reason to nobody on its pages (a crawl of every page and file they link to, as an anonymous
visitor: a page is the same for everyone), nor in bob's ``/api/me``, and gives it whole to
alice and to an admin in theirs. The unowned bot's reason stays on the pages as before."""

from __future__ import annotations

import json
import os
import re
import urllib.parse

import pytest

from conftest import REPO, invoke, port_of, serving
from mallows.agents.submissions import read_files
from mallows.report.private import HIDDEN, redact_ladder, redact_record
from mallows.errors import Throttled
from mallows.results.store import Store
from mallows.server.throttle import Limits, Throttle, parse_rate_limits, parse_size
from test_serve_security import page_session as play_session
from test_server_submissions import bot_files, call_raw as call, tar_gz

SECRET = "alice-private-stderr-words"
OPEN = "unowned-bot-stderr-words"


def crasher(words: str) -> bytes:
    """The example bot, but it exits at its first decision saying ``words`` on stderr."""
    code = (REPO / "bots" / "example_python" / "bot.py").read_text()
    act = 'reply = {"type": "action", "action": choose(msg["observation"], rng)}'
    assert act in code
    return code.replace(act, f"raise SystemExit({words!r})").encode()


def store_bot(db, folder, name: str, code: bytes, owner: str | None) -> None:
    """Store ``name@1`` as ``mallows bots submit`` stores a version after its check (a bot that
    forfeits cannot pass one), claimed by ``owner``'s account."""
    manifest = (REPO / "bots" / "example_python" / "bot.toml").read_text()
    bot = folder / name
    bot.mkdir(parents=True)
    (bot / "bot.toml").write_text(manifest.replace('name = "example_python"', f'name = "{name}"'))
    (bot / "bot.py").write_bytes(code)
    snap = read_files(bot, "the bot")
    row = {"entry": snap.entry, "kind": "subprocess", "manifest": "", "source": str(bot)}
    with Store(db) as store:
        if owner is not None:
            account = next(a for a in store.accounts.list() if a["name"] == owner)
            store.accounts.claim(name, {**account, "admin": False})
        row.update(bytes=snap.size, files=len(snap.files), check="{}")
        store.add_submission(name, snap.digest, snap.files, row)


LIMITS = [
    *("--rate-limit", "submit:account=2/hour"),
    *("--rate-limit", "sign-in:account=3/minute"),
    *("--rate-limit", "play:address=1/hour"),
    *("--quota-versions", "2", "--quota-bytes", "20KiB"),
]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    folder = tmp_path_factory.mktemp("authors")
    db = folder / "r.db"
    tokens = {}
    for name, admin in (("alice", False), ("bob", False), ("carol", False), ("root", True)):
        made = invoke("users", "add", name, "--db", db, *(["--admin"] if admin else []))
        tokens[name] = made.output.strip().splitlines()[-1]
    store_bot(db, folder / "one", "crashy", crasher(SECRET), "alice")
    store_bot(db, folder, "openbot", crasher(OPEN), None)
    toml = folder / "t.toml"
    toml.write_text(
        'name = "priv"\ngame = "take4"\nplayers = 2\ndeals = 1\nseed = 7\n'
        'bots = ["crashy@1", "openbot@1"]\n'
    )
    ran = invoke("tournament", "run", toml, "--db", db, "--workers", "1", "--quiet")
    assert ran.exit_code == 0, ran.output
    store_bot(db, folder / "two", "crashy", crasher(SECRET + "-2"), "alice")  # crashy@2
    log = folder / "server.log"
    with (
        log.open("w") as err,
        serving(["--db", db, "--public", "--access-log", *LIMITS], err) as base,
    ):
        yield port_of(base), db, tokens, log


def get(port: int, path: str, token: str | None = None) -> tuple[int, str, bytes]:
    status, headers, body = call(port, "GET", path, token)
    return status, headers.get("content-type", ""), body


def crawl(port: int) -> dict[str, bytes]:
    """Every page and file the server's pages link to, from /index.html and /author.html."""
    seen: dict[str, bytes] = {}
    todo = ["/index.html", "/author.html"]
    while todo and len(seen) < 400:
        path = todo.pop()
        if path in seen or path.startswith(("/events", "/play", "/static/")):  # no reasons there
            continue
        status, kind, body = get(port, path)
        assert status == 200, (path, status, body[:200])
        seen[path] = body
        if "html" not in kind:
            continue
        for link in re.findall(rb'(?:href|src)="([^"#]+)', body):
            target = urllib.parse.urlsplit(urllib.parse.urljoin(path, link.decode()))
            if not target.scheme and not target.netloc and target.path not in seen:
                todo.append(target.path)
    return seen


@pytest.mark.slow  # the module's server: a tournament with sandboxed bots, then serve (~10 s)
def test_another_authors_reasons_are_on_no_page_and_only_in_their_owners_and_admins_api(server):
    port, _, tokens, _ = server
    pages = crawl(port)
    bot_pages = [p for p in pages if p.startswith("/b/")]
    match_pages = [p for p in pages if p.startswith("/m/") and p.count("/") == 3]
    assert bot_pages and match_pages, sorted(pages)  # the crawl reached them
    everything = b"".join(pages.values())
    assert SECRET.encode() not in everything
    assert HIDDEN.encode() in everything  # said where it was
    assert OPEN.encode() in everything  # a bot no account owns: shown as before
    _, _, bobs = get(port, "/api/me", tokens["bob"])
    assert SECRET.encode() not in bobs and json.loads(bobs)["bots"] == []
    for viewer in ("alice", "root"):
        status, _, mine = get(port, "/api/me", tokens[viewer])
        assert status == 200
        bots = {b["name"]: b for b in json.loads(mine)["bots"]}
        forfeits = bots["crashy"]["forfeits"]
        assert forfeits and all(SECRET in f["reason"] for f in forfeits), viewer
        assert bots["crashy"]["owner"] == "alice"
        status, _, page = get(port, forfeits[0]["page"])  # its match page: hidden there too
        assert status == 200 and SECRET.encode() not in page
    assert "openbot" not in bots  # no account owns it: on no author's page


def test_a_record_and_a_ladder_view_are_hidden_only_for_the_private_seats():
    record = {
        "players": ["a@1", "b"],
        "events": [
            {"type": "forfeit", "seat": 0, "reason": "secret", "kind": "crash"},
            {"type": "forfeit", "seat": 1, "reason": "open", "kind": "crash"},
        ],
        "result": {"ranks": [1, 1], "forfeits": ["secret", "open"]},
    }
    shown = redact_record(record, [0])
    assert "secret" not in json.dumps(shown) and json.dumps(shown).count("open") == 2
    assert record["events"][0]["reason"] == "secret"  # a copy: the record itself is kept
    view = {"standings": [{"bot": "a@1", "note": "secret"}, {"bot": "b", "note": "open"}]}
    hidden = redact_ladder(view, lambda bot: bot == "a@1")
    assert [s["note"] for s in hidden["standings"]] == [HIDDEN, "open"]


def page_session(port: int) -> dict[str, str]:
    """What the play page's script sends: its origin, the session cookie, the CSRF token."""
    return {**play_session(port), "Content-Type": "application/json"}


def refused_for(status: int, headers: dict[str, str], body: bytes, words: str) -> int:
    """The seconds to wait of a 429 answer that says ``words`` and when to retry."""
    error = json.loads(body)["error"]
    assert status == 429 and words in error, (status, error)
    wait = int(headers["retry-after"])
    assert f"retry in {wait} s" in error
    return wait


def test_over_a_rate_limit_the_answer_is_429_saying_when_to_retry(server):
    port, _, tokens, _ = server
    for _ in range(2):  # an upload counts, refused or not
        status, _, _ = call(port, "POST", "/api/bots?name=bobs", tokens["bob"], b"not an archive")
        assert status == 400
    wait = refused_for(
        *call(port, "POST", "/api/bots?name=bobs", tokens["bob"], tar_gz(bot_files("bobs"))),
        "too many submissions from this account: at most 2 per hour",
    )
    assert 3000 < wait <= 3600
    for _ in range(3):  # refused tokens of one account: its sign-in limit
        assert call(port, "GET", "/api/me", "999.guess")[0] == 401
    refused_for(*call(port, "GET", "/api/me", "999.guess"), "too many refused sign-ins")
    assert call(port, "GET", "/api/me", tokens["bob"])[0] == 200  # other accounts sign in
    session = page_session(port)
    start = json.dumps({"game": "no-such-game", "opponents": "random"}).encode()
    status, _, _ = call(port, "POST", "/play/new", tokens["alice"], start, session)
    assert status == 400  # refused by the play page, and counted
    refused_for(
        *call(port, "POST", "/play/new", tokens["alice"], start, session),
        "too many play matches started from this address",
    )


def test_quotas_refuse_a_version_before_anything_is_stored(server):
    port, db, tokens, _ = server

    def versions() -> int:
        with Store(db, readonly=True) as store:
            return len(store.submissions())

    before = versions()
    refused_for(  # alice stored crashy@1 and crashy@2 today: 2 a day
        *call(port, "POST", "/api/bots?name=crashy", tokens["alice"], tar_gz(bot_files("crashy"))),
        "account 'alice' stored 2 versions in the last 24 hours: at most 2 a day",
    )
    big = {**bot_files("bulky"), "bulky/data.bin": os.urandom(30 * 1024)}
    status, _, body = call(port, "POST", "/api/bots?name=bulky", tokens["carol"], tar_gz(big))
    error = json.loads(body)["error"]
    assert status == 403 and "at most 20480 bytes" in error and "withdraw" in error, error
    assert versions() == before


def test_every_write_of_a_public_server_needs_a_token_and_none_travels_in_an_address(server):
    port, _, tokens, _ = server
    session = page_session(port)  # the page's own origin, cookie and CSRF token: not enough
    for path, body in (
        ("/api/bots?name=x", tar_gz(bot_files("x"))),
        ("/api/bots/crashy@1/withdraw", b""),
        ("/play/new", json.dumps({"game": "take4", "opponents": "random"}).encode()),
        ("/play/abc/act", b'{"index": 0}'),
    ):
        for headers in ({}, session):
            status, _, answer = call(port, "POST", path, None, body, headers)
            assert status in (401, 403), (path, headers, status)
            if headers:
                assert status == 401 and b"no token" in answer, (path, answer)
    status, _, _ = call(port, "GET", f"/api/me?token={tokens['alice']}")
    assert status == 401  # a token in an address is not read


def test_the_request_log_of_the_whole_session_holds_no_token(server):
    port, _, tokens, log = server
    assert call(port, "GET", "/api/me", tokens["root"])[0] == 200
    assert call(port, "GET", f"/api/me?token={tokens['bob']}&x=1")[0] == 401  # a careless client
    text = log.read_text()
    assert '"GET /api/me HTTP/1.1" 200' in text and '"GET /api/me HTTP/1.1" 401' in text
    for name, token in tokens.items():
        assert token not in text and token.split(".", 1)[1] not in text, name


def test_serve_refuses_a_limit_it_cannot_read(tmp_path):
    for args, words in (
        (["--rate-limit", "submit:account=often"], "is not a rate"),
        (["--rate-limit", "uploads=3/hour"], "submit:account, submit:address"),
        (["--quota-bytes", "lots"], "give a size such as 50MiB"),
        (["--quota-versions", "0"], "--quota-versions 0: give 1 to"),
    ):
        result = invoke("serve", "--db", tmp_path / "none.db", *args)
        assert result.exit_code == 2 and words in result.output, (args, result.output)


def test_a_throttle_counts_each_account_and_address_apart_and_a_refusal_not_at_all():
    rates = ["sign-in:account=2/minute", "sign-in:address=3/minute", "play:address=off"]
    throttle = Throttle(Limits(parse_rate_limits(rates)))
    throttle.hit("sign-in", "1", "a")
    throttle.hit("sign-in", "1", "b")
    with pytest.raises(Throttled, match="from this account: at most 2 per minute"):
        throttle.hit("sign-in", "1", "c")
    for account in ("2", "3", None):  # the refusal above counted nothing for address c
        throttle.hit("sign-in", account, "c")
    with pytest.raises(Throttled, match="from this address: at most 3 per minute") as refused:
        throttle.hit("sign-in", "4", "c")
    assert refused.value.retry_after is not None and 1 <= refused.value.retry_after <= 60
    for _ in range(100):
        throttle.hit("play", None, "a")  # play:address is off (no account: nothing else)
    assert (parse_size("50MiB"), parse_size("512 KiB"), parse_size("1000")) == (
        50 * 1024**2,
        512 * 1024,
        1000,
    )
