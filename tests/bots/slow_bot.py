"""Answers every decision `argv[1]` seconds after its time allowance has run out."""

import sys
import time

from protocol.bot import run

LATE = float(sys.argv[1])


def decide(request: dict) -> int:
    time.sleep(request["time_ms"] / 1000 + LATE)
    return 0


if __name__ == "__main__":
    run(decide, name="slow")
