"""Starts a child process (`sleep 1000`) at hello and writes "<own pid> <child pid>" to the
file `argv[1]`; then, by `argv[2]`: "hang-hello" never answers hello, "hang-act" answers
hello and hangs at its first decision, "leak" plays on and exits at game over (leaving the
child behind)."""

import json
import os
import random
import subprocess
import sys
import time

PIDFILE, MODE = sys.argv[1], sys.argv[2]
rng = random.Random(0)

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        child = subprocess.Popen(["sleep", "1000"])
        with open(PIDFILE + ".tmp", "w") as fh:
            fh.write(f"{os.getpid()} {child.pid}")
        os.replace(PIDFILE + ".tmp", PIDFILE)
        if MODE == "hang-hello":
            time.sleep(1000)
        print(json.dumps({"type": "ready", "name": "spawner"}), flush=True)
    elif msg["type"] == "act":
        if MODE == "hang-act":
            time.sleep(1000)
        index = rng.randrange(len(msg["actions"]))
        print(json.dumps({"type": "action", "index": index}), flush=True)
    elif msg["type"] == "game_over":
        break
