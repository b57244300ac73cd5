"""An in-process bot speaking the same JSON lines as a subprocess, for check-bot and tests."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import msgspec
import trio

from arena.bot import BotFault, BotSpec

Decide = Callable[[dict[str, Any]], int | dict[str, Any]]


def random_decider(seed: str) -> Decide:
    """Uniformly random legal actions from a seeded generator."""
    rng = random.Random(seed)
    return lambda request: rng.randrange(len(request["actions"]))


class LocalBot:
    """A `Connection` whose bot is a Python function; every message still goes through JSON."""

    def __init__(self, spec: BotSpec, decide: Decide) -> None:
        self.spec = spec
        self.decide = decide
        self.received: list[bytes] = []  # every line the referee sent, for golden tests
        self._replies: list[bytes] = []
        self._decode = msgspec.json.Decoder().decode
        self._encode = msgspec.json.Encoder().encode
        self.killed = False

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    async def send(self, line: bytes, deadline: float) -> None:
        if self.killed:
            raise BotFault("crash", "was killed")
        self.received.append(line)
        msg = self._decode(line)
        if msg["type"] == "hello":
            self._replies.append(self._encode({"type": "ready", "name": self.spec.name}))
        elif msg["type"] == "act":
            choice = self.decide(msg)
            key = "index" if isinstance(choice, int) else "action"
            self._replies.append(self._encode({"type": "action", key: choice}))

    async def receive(self, deadline: float) -> tuple[bytes, float]:
        if self._replies:
            return self._replies.pop(0), trio.current_time()
        await trio.sleep_until(deadline if math.isfinite(deadline) else trio.current_time())
        raise BotFault("timeout", "no answer in time")

    def pending(self) -> bool:
        return bool(self._replies)

    def kill(self) -> None:
        self.killed = True

    async def close(self, grace: float = 0.0) -> None:
        self.killed = True

    def stderr_text(self) -> str:
        return ""
