"""Plays `argv[1]` decisions at random, then exits with status 3: right after its last
answer (`argv[2]` = "after-answer") or on reading the next request ("on-request"); or, with
"close-output", on reading the next request closes its standard output and sleeps on."""

import json
import os
import random
import sys
import time

N, WHEN = int(sys.argv[1]), sys.argv[2]
rng = random.Random(0)
answered = 0

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "crash"}), flush=True)
    elif msg["type"] == "act":
        if answered == N and WHEN == "close-output":
            os.close(1)
            time.sleep(60)
        if answered == N:
            sys.exit(3)
        index = rng.randrange(len(msg["actions"]))
        print(json.dumps({"type": "action", "index": index}), flush=True)
        answered += 1
        if answered == N and WHEN == "after-answer":
            os._exit(3)  # at once: the end of its output follows its answer closely
