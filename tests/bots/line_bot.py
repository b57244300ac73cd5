"""Writes one given line, then plays at random: `argv[1]` says when ("ready": as its answer
to hello; "action": as its answer to its first act, after a valid ready), `argv[2]` names the
file holding the line's bytes (a file, since one command-line argument holds at most 128 KiB)."""

import json
import random
import sys
from pathlib import Path

MOMENT = sys.argv[1]
LINE = Path(sys.argv[2]).read_bytes()
READY = b'{"type": "ready", "name": "line"}'

rng = random.Random(0)
out = sys.stdout.buffer
first = True
for raw in sys.stdin.buffer:
    msg = json.loads(raw)
    if msg["type"] == "hello":
        out.write((LINE if MOMENT == "ready" else READY) + b"\n")
    elif msg["type"] == "act":
        if MOMENT == "action" and first:
            out.write(LINE + b"\n")
        else:
            index = rng.randrange(len(msg["actions"]))
            out.write(json.dumps({"type": "action", "index": index}).encode() + b"\n")
        first = False
    else:
        break
    out.flush()
