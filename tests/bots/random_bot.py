"""A good bot: a uniformly random legal action, seeded by its seat (so games replay);
it thinks for `argv[1]` seconds (default 0) before each answer."""

import random
import sys
import time

from protocol.bot import run

THINK = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
rng = random.Random()


def hello(msg: dict) -> None:
    rng.seed(f"test-random:{msg['seat']}")


def decide(request: dict) -> int:
    time.sleep(THINK)
    return rng.randrange(len(request["actions"]))


if __name__ == "__main__":
    run(decide, name="random", on_hello=hello)
