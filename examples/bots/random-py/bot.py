"""A bot for every ruleset: a uniformly random legal action (seeded by its seat)."""

import random

from protocol.bot import run

rng = random.Random()


def hello(msg: dict) -> None:
    rng.seed(f"random-py:{msg['seat']}")


def decide(request: dict) -> int:
    return rng.randrange(len(request["actions"]))


if __name__ == "__main__":
    run(decide, name="random-py", on_hello=hello)
