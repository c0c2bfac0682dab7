"""At its first decision, writes two log lines on stdout before its answer, all in one write
(they reach the platform together). Standard library only."""
import json
import os
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        reply = {"type": "hello", "protocol": 1, "name": "preamble", "version": "1.0"}
    elif kind == "act":
        answer = {"type": "action", "action": message["observation"]["legal_actions"][0]}
        os.write(1, b"thinking about it\nstill thinking\n" + json.dumps(answer).encode() + b"\n")
        continue
    elif kind in ("start", "end"):
        reply = {"type": "ok"}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
