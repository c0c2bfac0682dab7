"""Says "reuse": true in its hello, but exits a moment after answering `end`: whether the
platform's next `start` finds it alive is timing (issue 26, item 9). Self-contained (a
tournament runs a snapshot of this folder): plays the first legal action."""
import json
import os
import sys
import time


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        send({"type": "hello", "protocol": 1, "name": "lying_reuse", "version": "1.0",
              "games": ["arschmallows", "take4"], "reuse": True})
    elif kind == "start":
        send({"type": "ok"})
    elif kind == "act":
        send({"type": "action", "action": message["observation"]["legal_actions"][0]})
    elif kind == "end":
        send({"type": "ok"})
        time.sleep(0.02)
        os._exit(0)  # despite "reuse": true
    else:
        break
