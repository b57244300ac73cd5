"""Starts a child process (`sleep 1000`) at hello and writes "<own pid> <child pid>" to the
file `argv[1]`; then, by `argv[2]`: "hang-hello" never answers hello, "hang-act" answers
hello and hangs at its first decision, "leak" plays on and exits at game over (leaving the
child behind). `argv[3]`, if given, is how the child escapes: "setsid" (a session of its
own, out of the bot's process group) or "daemon" (a double fork: the child's parent exits,
and the grandchild, in a session of its own, is the one left)."""

import json
import os
import random
import subprocess
import sys
import time

PIDFILE, MODE = sys.argv[1], sys.argv[2]
ESCAPE = sys.argv[3] if len(sys.argv) > 3 else ""


def start_child() -> int:
    """Start `sleep 1000` as ESCAPE says; its pid."""
    if ESCAPE == "setsid":
        return subprocess.Popen(["sleep", "1000"], start_new_session=True).pid
    if ESCAPE == "daemon":
        read, write = os.pipe()
        if os.fork() == 0:  # the middle process: starts the grandchild, tells its pid, exits
            grandchild = subprocess.Popen(["sleep", "1000"], start_new_session=True)
            os.write(write, str(grandchild.pid).encode())
            os._exit(0)
        os.close(write)
        pid = int(os.read(read, 64))
        os.wait()
        return pid
    return subprocess.Popen(["sleep", "1000"]).pid


rng = random.Random(0)

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        child = start_child()
        with open(PIDFILE + ".tmp", "w") as fh:
            fh.write(f"{os.getpid()} {child}")
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
