"""Answers each request properly, except the kinds given in argv[1]: a JSON object mapping a
request type ("hello", "start", "act", "end") to the exact bytes to write instead (as a
latin-1 string, the line terminator included), e.g. {"act": "\\ufeff{...}\\r\\n"}. An "act"
entry may contain "ACTION", replaced by the first legal action's JSON; "PAD<n>" is replaced
by n bytes of padding."""
import json
import sys

raw = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
out = sys.stdout.buffer
for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if kind == "quit":
        break
    if kind == "hello":
        proper = {"type": "hello", "protocol": 1, "name": "raw", "version": "1"}
    elif kind == "act":
        proper = {"type": "action", "action": message["observation"]["legal_actions"][0]}
    else:
        proper = {"type": "ok"}
    if kind in raw:
        text = raw[kind]
        if kind == "act":
            text = text.replace("ACTION", json.dumps(proper["action"]))
        if "PAD" in text:  # PAD<n>: n bytes of padding (argv cannot carry a long line)
            head, _, rest = text.partition("PAD")
            digits = len(rest) - len(rest.lstrip("0123456789"))
            text = head + "x" * int(rest[:digits]) + rest[digits:]
        out.write(text.encode("latin-1"))
    else:
        out.write(json.dumps(proper).encode() + b"\n")
    out.flush()
