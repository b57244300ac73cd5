"""Plays the first offered action, and writes every line it reads and writes, each way, to the
file `argv[1]`: one JSON line each, ["in", LINE] or ["out", LINE], LINE without its line end."""

import json
import sys

log = open(sys.argv[1], "w")  # noqa: SIM115 (open for the whole game)


def answer(msg: dict[str, object]) -> None:
    line = json.dumps(msg)
    log.write(json.dumps(["out", line]) + "\n")
    log.flush()
    print(line, flush=True)


for raw in sys.stdin:
    line = raw.rstrip("\n")
    log.write(json.dumps(["in", line]) + "\n")
    log.flush()
    msg = json.loads(line)
    if msg["type"] == "hello":
        answer({"type": "ready", "name": "log"})
    elif msg["type"] == "act":
        answer({"type": "action", "index": 0})
    elif msg["type"] == "game_over":
        break
