"""Answers properly and writes a second line nobody asked for, in the same write (one atomic
pipe write, so both lines reach the platform together)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import wire  # noqa: E402


def both(obs, reply):
    action = wire.random_action(obs, wire.random.Random(0))
    lines = [{"type": "action", "action": action}, {"type": "note", "text": "and another thing"}]
    os.write(1, "".join(json.dumps(m) + "\n" for m in lines).encode())


wire.serve(both)
