"""An in-process bot speaking the same JSON lines as a subprocess, for check-bot and tests.

`play_local` plays a whole game between such bots and keeps, for every seat, the
exact lines exchanged with the referee (the golden tests and the protocol
transcript in PROTOCOL.md are made with it).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

import msgspec
import trio

from arena.games import OptionsInput
from arena.referee.faults import BotFault
from arena.referee.folders import BotSpec
from arena.referee.game import RefereeConfig, play_game
from arena.referee.records import GameRecord

Decide = Callable[[dict[str, Any]], int | dict[str, Any]]
Sender = Literal["referee", "bot"]


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
        #: every line in either direction, in order, with who sent it (without the newline)
        self.exchange: list[tuple[Sender, bytes]] = []
        self._replies: list[bytes] = []
        self._decode = msgspec.json.Decoder().decode
        self._encode = msgspec.json.Encoder().encode
        self.killed = False

    async def start(self, nursery: trio.Nursery) -> None:
        return None

    async def send(self, line: bytes) -> None:
        if self.killed:
            raise BotFault("crash", "was killed")
        self.received.append(line)
        self.exchange.append(("referee", line.rstrip(b"\n")))
        msg = self._decode(line)
        if msg["type"] == "hello":
            self._replies.append(self._encode({"type": "ready", "name": self.spec.name}))
        elif msg["type"] == "act":
            choice = self.decide(msg)
            key = "index" if isinstance(choice, int) else "action"
            self._replies.append(self._encode({"type": "action", key: choice}))

    async def receive(self) -> tuple[bytes, float]:
        if self._replies:
            reply = self._replies.pop(0)
            self.exchange.append(("bot", reply))
            return reply, trio.current_time()
        await trio.sleep_forever()  # a bot that does not answer: the caller's deadline ends it
        raise AssertionError("unreachable")

    def pending(self) -> bool:
        return bool(self._replies)

    def kill(self) -> None:
        self.killed = True

    async def close(self, grace: float = 0.0) -> None:
        self.killed = True

    def stderr_text(self) -> str:
        return ""


async def play_local(
    ruleset_id: str,
    deciders: Sequence[Decide],
    *,
    options: OptionsInput = None,
    seed: int = 0,
    config: RefereeConfig | None = None,
    names: Sequence[str] | None = None,
) -> tuple[GameRecord, list[LocalBot]]:
    """Play one game in process, seat i deciding with `deciders[i]`; return the record and
    the bots, whose `exchange` holds every line of that seat's conversation in order."""
    names = list(names or (f"local-{i}" for i in range(len(deciders))))
    specs = [BotSpec(name, ["(in-process)"]) for name in names]
    bots = {id(spec): LocalBot(spec, decide) for spec, decide in zip(specs, deciders, strict=True)}
    record = await play_game(
        ruleset_id,
        specs,
        options=options,
        seed=seed,
        config=config,
        connect=lambda spec: bots[id(spec)],
    )
    return record, list(bots.values())
