"""A subprocess bot (the kind the bot guide starts from) holding a secret from its parameters
(`secret`) in its memory, playing the first legal action: the target of peeker.py and
signaller.py. Standard library only."""
import json
import sys

held = []
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "hello":
        held.append(("MALLOWS-SECRET-" + message["params"].get("secret", "0" * 32)).encode())
        reply = {"type": "hello", "protocol": 1, "name": "victim", "version": "1.0",
                 "games": ["arschmallows", "take4"]}
    elif kind == "act":
        action = message["observation"]["legal_actions"][0]
        if action["type"] == "get_rid":
            action = {"type": "get_rid", "slots": action["choose_from"][:2]}
        reply = {"type": "action", "action": action}
    elif kind in ("start", "end"):
        reply = {"type": "ok"}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
