"""Plays at random, waiting `argv[2]` seconds at its first decision, and at game_over appends
one JSON line to the file `argv[1]`: its name (`argv[3]`), seat and first hand, and the wall
clock when it read hello and game_over (so a test can tell which games overlapped)."""

import json
import random
import sys
import time
from typing import Any

from protocol.bot import run

LOG, WAIT, NAME = sys.argv[1], float(sys.argv[2]), sys.argv[3]
rng = random.Random()
seen: dict[str, Any] = {}


def hello(msg: dict[str, Any]) -> None:
    seen.update(seat=msg["seat"], start=time.time())
    rng.seed(f"clock:{msg['seat']}")


def decide(request: dict[str, Any]) -> int:
    if "hand" not in seen:
        seen["hand"] = request["observation"]["hand"]
        time.sleep(WAIT)
    return rng.randrange(len(request["actions"]))


def game_over(msg: dict[str, Any]) -> None:
    line = json.dumps({"name": NAME, **seen, "end": time.time()}) + "\n"
    with open(LOG, "a") as log:  # one short write: lines of bots ending at once stay whole
        log.write(line)


if __name__ == "__main__":
    run(decide, name="clock", on_hello=hello, on_game_over=game_over)
