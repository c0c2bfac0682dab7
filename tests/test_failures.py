"""The reasons a bot process failed are pure functions of what happened (``agents.failures``):
a table of facts -> the kind and the words an author acts on. (The real processes behind each
fact are in test_protocol_isolation.py and test_sandbox.py.)"""

from __future__ import annotations

import signal

import pytest

from mallows.agents import failures
from mallows.agents.protocol import Limits

TAIL = "; the end of its stderr: boom"


@pytest.mark.parametrize(
    "rc, bwrap, tail, hit, kind, words",
    [
        (-signal.SIGKILL, False, "", (), "crash", ["killed by SIGKILL", "during a decision"]),
        (128 + signal.SIGKILL, True, "", (), "crash", ["killed by SIGKILL"]),  # bwrap: 128 + N
        (128 + signal.SIGKILL, False, "", (), "exit", ["exited with status 137"]),  # not bwrap
        (200, True, "", (), "exit", ["exited with status 200"]),  # issue 19: not "signal 72"
        (255, True, "", (), "exit", ["exited with status 255"]),  # a Perl compile error
        (3, False, TAIL, (), "exit", ["exited with status 3", "boom"]),
        (-signal.SIGXFSZ, False, "", (), "flood", ["SIGXFSZ", "bytes to stderr or a file"]),
        (1, False, "; the end of its stderr: MemoryError", (), "memory", ["ran out of memory"]),
        (-signal.SIGKILL, True, "", ("memory",), "memory", ["sandbox's memory limit"]),
        (1, True, "", ("pids",), "exit", ["limit of", "processes (a fork was refused)"]),
    ],
)
def test_a_dead_bot_process(rc, bwrap, tail, hit, kind, words):
    failure = failures.died("a decision", rc, tail, Limits(memory_mb=512), True, bwrap, hit)
    assert failure.kind == kind
    for w in words:
        assert w in str(failure), str(failure)


def test_no_answer_in_time_names_the_limit_and_the_budget():
    limits = Limits(decision_seconds=0.5, match_seconds=3.0)
    one = failures.timed_out("a decision", "decision_seconds", limits, 7, TAIL)
    assert one.kind == "timeout" and "0.5 s (decision_seconds)" in str(one) and "boom" in str(one)
    budget = failures.timed_out("a decision", "match_seconds", limits, 7, TAIL)
    assert "budget of 3 s" in str(budget) and "after 7 decisions" in str(budget)
    held = failures.timed_out_exited("a decision", "decision_seconds", 0, "")
    assert held.kind == "exit" and "kept its standard output open" in str(held)


def test_more_than_one_line_says_where_the_answer_was():
    after = failures.several_lines(b'{"type":"action","action":{}}', [b"log"], "a decision")
    assert "after its answer" in str(after) and after.kind == "garbage"
    before = failures.several_lines(b"log", [b'{"type":"ok"}'], "a decision")
    assert "the answer not first" in str(before)
    none = failures.several_lines(b"a", [b"b"], "a decision")
    assert "none of them an answer" in str(none)


def test_a_reported_error_about_memory_names_the_memory_limit():
    plain = failures.reported_error("bad state", Limits(), True, ())
    assert plain.kind == "error" and str(plain) == "the bot reported an error: bad state"
    memory = failures.reported_error("MemoryError", Limits(memory_mb=256), True, ())
    assert memory.kind == "memory" and "256 MiB" in str(memory)
