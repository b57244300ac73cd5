"""Answers hello, then answers its first decision with one 100 MiB line."""

import json
import sys

MIB = 1 << 20

sys.stdin.readline()
print(json.dumps({"type": "ready", "name": "huge"}), flush=True)
sys.stdin.readline()
out = sys.stdout.buffer
out.write(b'{"type": "action", "index": 0, "pad": "')
chunk = b"x" * MIB
for _ in range(100):
    out.write(chunk)
out.write(b'"}\n')
out.flush()
sys.stdin.read()
