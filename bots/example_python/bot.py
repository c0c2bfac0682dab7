"""example_python: a stand-alone subprocess bot speaking protocol v1 (JSON lines on stdin/stdout).

It imports nothing from the platform: any program that reads one JSON object per line and
writes one per line can be a bot. Logs go to stderr. Strategy, Take4: take the card that adds
a character to the squad it already holds most of. Arschmallows: keep low cards, swap out known
high ones, refuse the rest, never call.
"""

import json
import random
import sys


def choose(obs, rng):
    legal = obs["legal_actions"]
    first = lambda kind: [a for a in legal if a["type"] == kind]
    if obs["game"] == "take4":
        mine = set(obs["collections"][obs["seat"]])

        def score(a):
            card = obs["positions"][a["position"] - 1]
            squad = next(s for s in obs["squads"].values() if card in s)
            return (card not in mine) * (1 + len(mine & set(squad))), rng.random()

        return max(legal, key=score)
    row = obs["rows"][obs["seat"]]
    held, top = obs["held"], (obs["discard"] or [None])[-1]
    if obs["phase"] == "take":
        if first("take_discard") and top is not None and top <= 3:
            return first("take_discard")[0]
        return (first("draw") or legal)[0]
    if obs["phase"] == "use":
        known = [
            (s["value"], i)
            for i, s in enumerate(row)
            if not s["face_up"] and s["value"] is not None
        ]
        unknown = [i for i, s in enumerate(row) if not s["face_up"] and s["value"] is None]
        target = max(known)[1] if known and max(known)[0] > held["value"] else None
        if target is None and held["value"] <= 4 and unknown:
            target = unknown[0]
        for a in first("swap"):
            if a["slot"] == target:
                return a
        low = min(known)[1] if known else None
        return next((a for a in first("refuse") if a["slot"] == low), (first("refuse") or legal)[0])
    if obs["phase"] == "end":
        return (first("pass") or legal)[0]
    return legal[0]  # peek: the first pair


def main():
    rng = random.Random(0)
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            reply = {
                "type": "hello",
                "protocol": 1,
                "name": "example_python",
                "version": "1.0",
                "games": ["arschmallows", "take4"],
            }
        elif kind == "start":
            rng.seed(msg["info"]["seed"])
            reply = {"type": "ok"}
        elif kind == "act":
            reply = {"type": "action", "action": choose(msg["observation"], rng)}
        elif kind == "end":
            print("result:", msg["info"]["result"]["ranks"], file=sys.stderr)
            reply = {"type": "ok"}
        else:  # "quit"
            return
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
