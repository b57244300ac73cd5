"""The fault taxonomy: every way a bot can break the protocol, the exception that carries one,
and the hint shown to the bot's author for each (PROTOCOL.md section 9 gives the policy)."""

from __future__ import annotations

import typing
from typing import Literal

FaultKind = Literal["startup", "timeout", "crash", "malformed", "schema", "illegal", "memory"]
FAULT_KINDS: tuple[FaultKind, ...] = typing.get_args(FaultKind)


class BotFault(Exception):
    """A bot broke the protocol; `kind` says how, `reason` in words that read after its name."""

    def __init__(self, kind: FaultKind, reason: str, overrun_ms: float | None = None) -> None:
        super().__init__(reason)
        self.kind: FaultKind = kind
        self.reason = reason
        self.overrun_ms = overrun_ms


HINTS: dict[FaultKind, str] = {
    "startup": "start quickly, read the hello line and answer "
    '{"type": "ready", "name": ...} on one line (and flush stdout)',
    "timeout": "answer each act within its time_ms, and flush stdout after every line",
    "crash": "keep running until game_over; check the bot's stderr below",
    "malformed": "write exactly one JSON object per line, nothing else, on stdout (log to stderr)",
    "schema": 'answer act with {"type": "action", "index": i} or '
    '{"type": "action", "action": {...}} (see PROTOCOL.md)',
    "illegal": "choose one of the offered actions (an index into actions is always safe)",
    "memory": "keep the memory of all the bot's processes together under the sandbox's "
    "memory_mb (-L memory_mb=... raises it)",
}
