"""Writes `argv[1]` bytes to stderr before answering hello, then plays at random."""

import random
import sys

from protocol.bot import run

SIZE = int(sys.argv[1])
PREFIX = b"stderr-bot says hello\n"
rng = random.Random(0)


def hello(msg: dict) -> None:
    data = PREFIX + b"e" * (SIZE - len(PREFIX))
    for start in range(0, SIZE, 1 << 16):
        sys.stderr.buffer.write(data[start : start + (1 << 16)])
    sys.stderr.buffer.flush()


def decide(request: dict) -> int:
    return rng.randrange(len(request["actions"]))


if __name__ == "__main__":
    run(decide, name="stderr", on_hello=hello)
