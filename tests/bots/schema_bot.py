"""Answers a decision with valid JSON that breaks the message schema (`argv[1]` says how)."""

import json
import sys

REPLIES = {
    "index-string": {"type": "action", "index": "x"},
    "unknown-type": {"type": "resign"},
    "no-type": {"index": 0},
    "ready": {"type": "ready", "name": "again"},
    "both": {"type": "action", "index": 0, "action": {"type": "pass"}},
    "neither": {"type": "action"},
    "unknown-action": {"type": "action", "action": {"type": "fold"}},
    "array": [0],
}
reply = json.dumps(REPLIES[sys.argv[1]])

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "schema"}), flush=True)
    elif msg["type"] == "act":
        print(reply, flush=True)
