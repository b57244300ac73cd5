"""Answers hello properly, then answers a decision with a line that is not JSON."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "garbage"}), flush=True)
    elif msg["type"] == "act":
        print("this is {not JSON", flush=True)
