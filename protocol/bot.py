"""A tiny helper so that a Python bot is a function from request to action.

    from protocol.bot import run

    def decide(request: dict) -> int | dict:
        return 0                 # an index into request["actions"], or an action dict

    run(decide, name="first-choice")

Messages are plain dicts decoded from the JSON lines of PROTOCOL.md. `run`
answers `hello` with `ready`, each `act` with the decision, and returns on
`game_over` (or end of input).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import msgspec

Decide = Callable[[dict[str, Any]], int | dict[str, Any]]


def run(
    decide: Decide,
    name: str,
    *,
    on_hello: Callable[[dict[str, Any]], None] | None = None,
    on_game_over: Callable[[dict[str, Any]], None] | None = None,
) -> None:
    """Serve one game on stdin/stdout."""
    encode = msgspec.json.Encoder().encode
    decode = msgspec.json.Decoder().decode
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    for line in stdin:
        msg = decode(line)
        kind = msg.get("type")
        if kind == "hello":
            if on_hello is not None:
                on_hello(msg)
            reply: dict[str, Any] = {"type": "ready", "name": name}
        elif kind == "act":
            choice = decide(msg)
            if isinstance(choice, int):
                reply = {"type": "action", "index": choice}
            else:
                reply = {"type": "action", "action": choice}
        elif kind == "game_over":
            if on_game_over is not None:
                on_game_over(msg)
            return
        else:
            continue
        stdout.write(encode(reply) + b"\n")
        stdout.flush()
