"""The fault taxonomy: every way a bot can break the protocol, the exception that carries one,
and the hint shown to the bot's author for each (PROTOCOL.md section 9 gives the policy).

A start-up fault has many causes, each with its own hint (`hint`): a debug print on stdout,
a first line that is not the ready line, a file the system refuses to run, a program or
interpreter that is not there, a bot that exited, one that answered too late. The cause is
read from the fault's reason (whose openings, below, the referee's messages share), so a
fault read back from a records file gets the same hint.
"""

from __future__ import annotations

import re
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

# The openings of the referee's reasons for a start-up fault (`arena.referee.bot`,
# `arena.referee.game`), by which `startup_cause` tells its cause.
NOT_STARTED = "could not be started"  # the referee could not start the program
IN_SANDBOX = "could not be started in the sandbox"
HELLO_LATE = "did not answer hello within"
HELLO_ANSWER = "answered hello with"  # then the line, quoted, and what is wrong with it
NOT_READY = "answered hello with an action instead of ready"
NOT_A_MESSAGE = "which is not a valid message"  # JSON, but no protocol message
LINE_TOO_LONG = "wrote a line longer than"
INPUT_CLOSED = "closed its input and kept running"  # (not a cause of its own)

StartupCause = Literal[
    "stdout", "answer", "permission", "missing", "exited", "slow", "sandbox", "other"
]
_STATUS = re.compile(r"exited with status (-?\d+)")
_ENDED = ("exited with status", "was killed by", "closed its output")

STARTUP_HINTS: dict[StartupCause, str] = {
    "stdout": "stdout carries the protocol's JSON lines only, and its first line must be the "
    "ready line: write debug prints and logs to stderr (Python: print(..., file=sys.stderr); "
    "JavaScript: console.error)",
    "answer": 'answer the hello line with the ready line, {"type": "ready", "name": ...}, on '
    "one line; its first line was another message (quoted above)",
    "permission": "the system refused to run a file of the bot (permission denied): make its "
    "program and the interpreter its #! line names executable (chmod +x FILE; in the sandbox, "
    "where it runs as another user, chmod a+rx FILE), or start it through its interpreter "
    "(python3 bot.py)",
    "missing": "a program it runs was not found (exit status 127, or no such file): the "
    "interpreter its #! line names (#!/usr/bin/env python3) or a program it starts is not "
    "installed here, or not on PATH (command -v NAME tells)",
    "exited": "it ended before answering hello: its stderr, below, says why",
    "slow": "answer hello within the start-up time (--startup-time gives it more): read one "
    "line at a time (not stdin to its end), and flush stdout after the ready line "
    "(Python: print(..., flush=True))",
    "sandbox": "the sandbox could not start it (the reason above): check-bot "
    "--try-unsandboxed tells whether the sandbox is the cause",
    "other": HINTS["startup"],
}
SILENT_EXIT = (
    "it ended before answering hello, and wrote nothing on stderr: run its command by hand "
    "and type the hello line to see what it does"
)


def startup_cause(reason: str) -> StartupCause:
    """Why a bot failed to start, from its start-up fault's reason."""
    if reason.startswith(NOT_STARTED):
        if "Permission denied" in reason:
            return "permission"
        if "No such file or directory" in reason:
            return "missing"
        return "sandbox"
    if reason.startswith(HELLO_LATE):
        return "slow"
    if reason.startswith(HELLO_ANSWER):
        return "answer" if reason == NOT_READY or NOT_A_MESSAGE in reason else "stdout"
    if reason.startswith(LINE_TOO_LONG):
        return "stdout"
    if (status := _STATUS.search(reason)) is not None:
        code = int(status[1])
        if code == 126:  # (a shell's: found, but not runnable)
            return "permission"
        if code == 127:  # (a shell's or env's: not found)
            return "missing"
        return "exited"
    if any(ended in reason for ended in _ENDED):
        return "exited"
    return "other"


def hint(kind: FaultKind, reason: str, stderr: str = "") -> str:
    """The hint for a bot's author: the one for its start-up fault's cause
    (`startup_cause`; for a bot that exited, whether it wrote to `stderr`), else the one for
    the kind of fault."""
    if kind != "startup":
        return HINTS[kind]
    cause = startup_cause(reason)
    if cause == "exited" and not stderr.strip():
        return SILENT_EXIT
    return STARTUP_HINTS[cause]


def cause(kind: FaultKind, reason: str) -> str:
    """What faults of one cause share, to group them: the kind, and a start-up fault's
    cause (`startup_cause`)."""
    return f"startup: {startup_cause(reason)}" if kind == "startup" else kind
