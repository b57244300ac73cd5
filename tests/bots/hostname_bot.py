"""Refuses to play inside the sandbox, which it recognises by the sandbox's hostname
(`arena-bot`): there it exits at once, saying that it cannot reach the folder of the file
`argv[1]`. Anywhere else it appends its user id to that file (proof that it ran outside the
sandbox) and plays at random."""

import os
import random
import socket
import sys

from protocol.bot import run

if socket.gethostname() == "arena-bot":
    folder = os.path.dirname(os.path.abspath(sys.argv[1]))
    print(f"cannot list {folder}: not in this sandbox", file=sys.stderr, flush=True)
    sys.exit(3)
with open(sys.argv[1], "a") as marker:
    marker.write(f"ran outside the sandbox as uid {os.getuid()}\n")
rng = random.Random(0)
run(lambda request: rng.randrange(len(request["actions"])), name="hostname")
