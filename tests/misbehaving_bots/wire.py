"""The well-behaved part shared by the subprocess fixture bots: protocol v1 over stdin/stdout.

``serve(misbehave)`` answers hello, start, end and quit properly and plays a legal random move
for every decision, except that at decision ``at`` (bot parameter, default 2) it calls
``misbehave(observation, reply)``, where ``reply(action)`` sends a proper answer.
"""
import json
import os
import random
import sys

PROTOCOL = 1


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def random_action(observation, rng):
    action = rng.choice(observation["legal_actions"])
    if action["type"] == "get_rid":
        return {"type": "get_rid", "slots": action["choose_from"][:2]}
    return action


def serve(misbehave=None, hello=None, on_start=None):
    rng = random.Random(0)
    params, n = {}, 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            params = message.get("params") or {}
            send(hello or {"type": "hello", "protocol": PROTOCOL, "name": "fixture",
                           "version": "1.0", "games": ["arschmallows", "take4"]})
        elif kind == "start":
            if on_start:
                on_start(params)
            send({"type": "ok"})
        elif kind == "act":
            n += 1
            action = random_action(message["observation"], rng)
            if misbehave and n == int(params.get("at", 2)):
                misbehave(message["observation"], lambda a=action: send(
                    {"type": "action", "action": a}))
            else:
                send({"type": "action", "action": action})
        elif kind == "end":
            send({"type": "ok"})
        else:
            return


def here():
    return os.path.dirname(os.path.abspath(sys.argv[0]))
