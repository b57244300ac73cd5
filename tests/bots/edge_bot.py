"""Answers every decision at the edge of its time: `argv[1]` milliseconds after its allowance
runs out, counted from when it read the request (negative: that much before). It names on
stderr each decision it was asked, so that a test can tell a timeout of a request it got."""

import sys
import time

from protocol.bot import run

OFFSET = float(sys.argv[1]) / 1000


def decide(request: dict) -> int:
    asked = time.monotonic()
    print(f"asked {request['decision']}", file=sys.stderr, flush=True)
    wait = asked + request["time_ms"] / 1000 + OFFSET - time.monotonic()
    if wait > 0:
        time.sleep(wait)
    return 0


if __name__ == "__main__":
    run(decide, name="edge")
