"""At its first decision, starts `sleep <marker>` (parameter `marker`), which inherits its
stdout, and exits with status 3 without answering: the grandchild holds the protocol channel
open after the bot is gone. Standard library only."""
import json
import subprocess
import sys

params = {}
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        params = message.get("params") or {}
        reply = {"type": "hello", "protocol": 1, "name": "holder", "version": "1.0"}
    elif kind == "act":
        subprocess.Popen(["sleep", params.get("marker", "3000.25")])  # stdout inherited
        sys.exit(3)
    elif kind in ("start", "end"):
        reply = {"type": "ok"}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
