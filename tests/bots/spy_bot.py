"""Plays at random and appends every line it receives to the file `argv[1]`."""

import json
import random
import sys

rng = random.Random()

with open(sys.argv[1], "a") as log:
    for line in sys.stdin:
        log.write(line)
        log.flush()
        msg = json.loads(line)
        if msg["type"] == "hello":
            rng.seed(f"spy:{msg['seat']}")
            print(json.dumps({"type": "ready", "name": "spy"}), flush=True)
        elif msg["type"] == "act":
            index = rng.randrange(len(msg["actions"]))
            print(json.dumps({"type": "action", "index": index}), flush=True)
        elif msg["type"] == "game_over":
            break
