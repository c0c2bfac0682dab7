"""The protocol client is not welded to the pipe: a channel built only here, over a
``socket.socketpair()`` to a real bot process (the bot host, as a remote bot would run it),
drives real bots through the same ``BotClient`` for a whole match, protocol 1 and 2, with the
same record as the pipe runtime for the same seed; and a bot that answers wrongly fails in
the same words over either channel (the stderr tail aside, which only a process channel has:
these bots write none)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mallows.agents.channel import Ask, decode
from mallows.agents.client import BotClient
from mallows.agents.history import VERSIONS
from mallows.agents.process import SubprocessBot
from mallows.agents.protocol import BotFailure, Limits
from mallows.agents.registry import load_bot
from mallows.agents.wire import dumps
from mallows.games import get_game
from mallows.runner.match import play_match

TESTS = Path(__file__).resolve().parent
RECALL = str(TESTS / "v2_bots" / "recall.py")
RANDOM = str(TESTS.parent / "bots" / "random.py")
RAW = TESTS / "misbehaving_bots" / "raw_replies.py"
PLAIN = Limits(sandbox="off", decision_seconds=30.0, start_seconds=60.0)


class SocketChannel:
    """A ``Channel`` over one end of a socket pair; the bot host runs at the other end."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.sock: socket.socket | None = None
        self.proc: subprocess.Popen | None = None
        self.stopped: str | None = None
        self.buf = b""

    @property
    def ready(self) -> bool:
        return self.sock is not None

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None and not self.stopped

    def open(self) -> None:
        if self.sock is not None:
            return
        ours, theirs = socket.socketpair()
        self.proc = subprocess.Popen(self.command, stdin=theirs, stdout=theirs)
        theirs.close()
        self.sock = ours

    def send(self, message: dict, ask: Ask) -> None:
        assert self.sock is not None
        self.sock.sendall(dumps(message) + b"\n")

    def receive(self, ask: Ask) -> tuple[dict, bytes]:
        assert self.sock is not None
        while b"\n" not in self.buf:
            left = ask.deadline - time.monotonic()
            if left <= 0:
                self.stop("it ran out of time")
                raise BotFailure(f"no answer to {ask.what} in time", kind="timeout")
            self.sock.settimeout(left)
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                self.stop("it closed the socket")
                raise BotFailure(f"the bot closed the socket during {ask.what}", kind="exit")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return decode(line, ask.what, self.stop), line

    def reported(self, message: str) -> BotFailure:
        return BotFailure(f"the bot reported an error: {message}", kind="error")

    def stop(self, why: str) -> None:
        self.stopped = why
        if self.proc is not None:
            self.proc.kill()

    def renew(self) -> bool:
        return False

    def quit(self) -> None:
        if self.sock is not None and not self.stopped:
            self.sock.sendall(b'{"type":"quit"}\n')

    def close(self) -> None:
        if self.proc is not None:
            self.quit()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.sock is not None:
            self.sock.close()


def _socket_bot(target: str, name: str) -> BotClient:
    """A Python bot hosted as the pipe runtime hosts it, at the far end of a socket."""
    command = [sys.executable, "-P", "-m", "mallows.agents.host", target]
    client = BotClient(name, SocketChannel(command), PLAIN, protocols=VERSIONS)
    client.isolation = "process"  # type: ignore[attr-defined]  # as the record says it
    return client


def _pipe_bot(target: str, name: str):
    spec = load_bot(target, isolate=True)
    handle = spec.handle(PLAIN)
    handle.name = name
    return handle


def _match(game: str, seed: int, seats: list) -> dict:
    return play_match(game, get_game(game).make_options(), seed, seats)


@pytest.mark.slow  # four bot processes start, one after another (about 5 s)
def test_a_socket_channel_plays_a_whole_match_with_the_pipes_record():
    seats = [(RECALL, "recall"), (RANDOM, "random")]  # protocol 2 (events) and protocol 1
    over_socket = [_socket_bot(t, n) for t, n in seats]
    seed = 11
    socket_record = _match("arschmallows", seed, [*over_socket, load_bot("random").handle()])
    assert [c.protocol for c in over_socket] == [2, 1]  # both protocols, negotiated
    pipe = [_pipe_bot(t, n) for t, n in seats]
    pipe_record = _match("arschmallows", seed, [*pipe, load_bot("random").handle()])
    assert socket_record["result"]["forfeits"] == [None] * 3, socket_record["result"]
    assert socket_record["isolation"] == ["process", "process", "in-process"]
    assert len(socket_record["events"]) > 100  # a whole match, rounds of it
    assert socket_record == pipe_record


@pytest.mark.parametrize(
    "raw",
    [
        {"act": "not json\n"},  # the channel's own reading: not JSON
        {"act": '{"type": "move"}\n'},  # an object, not an action: the client's words
        {"start": '{"type":"error","message":"no thanks"}\n'},  # the bot's own report
    ],
    ids=["not-json", "not-action", "error"],
)
def test_a_bad_answer_fails_in_the_same_words_over_either_channel(raw):
    command = [sys.executable, str(RAW), json.dumps(raw)]
    failures = []
    for handle in (
        BotClient("raw", SocketChannel(command), PLAIN, protocols=VERSIONS),
        SubprocessBot("raw", command, limits=PLAIN, protocols=VERSIONS),
    ):
        try:
            handle.start({"seed": 1})
            handle.act({"legal_actions": [{"type": "pick", "position": 3}]})
            failures.append(None)
        except BotFailure as exc:
            failures.append((exc.kind, str(exc)))
        finally:
            handle.close()
    assert failures[0] is not None, raw
    assert failures[0] == failures[1]
