"""A game's trace, for debugging a bot: every line between the referee and each bot process,
each way, with the seat, the direction and the time since the game started, and each fault
as it is charged (`arena play --trace`, `arena check-bot --trace`).

A traced game's bot processes are `TracedBotProcess`es; an untraced game's are plain
`BotProcess`es, whose exchange has nothing to check: tracing costs nothing when it is off.
Lines are shown as plain text whatever a bot writes: bytes that are not UTF-8 and control
characters are escaped (`\\xff`, `\\x1b`), and a line over `LINE_LIMIT` bytes is cut, with
its size.

Each trace line reads `TIME  to    seat N  LINE` (the referee's line to the bot) or
`TIME  from  seat N  LINE` (the bot's line to the referee), TIME in milliseconds since the
game started; a fault reads `TIME  fault seat N  KIND: SENTENCE`. A game's first trace line
names the game and the bot in each seat.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TextIO

import trio

from arena.referee.bot import STDERR_LIMIT, BotProcess
from arena.referee.folders import BotSpec
from arena.referee.text import plain
from protocol.messages import MAX_LINE_BYTES

LINE_LIMIT = 16 * 1024  # bytes of one line shown; real requests fit, a flood is cut


def shown_line(line: bytes | bytearray, limit: int = LINE_LIMIT) -> str:
    """A line as the trace shows it: without its line end, bytes that are not UTF-8 and
    control characters escaped, cut after `limit` bytes with its size in bytes."""
    data = bytes(line).removesuffix(b"\n")
    text = plain(data[:limit].decode("utf-8", "backslashreplace"))
    if len(data) > limit:
        text += f" … ({len(data):,} bytes in all, cut after {limit:,})"
    return text


class Trace:
    """Where a game's trace goes (`write` takes one trace line, without its line end), and
    the trio time its game started, from which each line's time is counted."""

    def __init__(self, write: Callable[[str], None], *, limit: int = LINE_LIMIT) -> None:
        self.write = write
        self.limit = limit
        self.started = 0.0

    @classmethod
    def to_file(cls, file: TextIO) -> Trace:
        """A trace written to an open text file, a line at a time (flushed: what a crash
        leaves is still there)."""

        def write(text: str) -> None:
            file.write(text + "\n")
            file.flush()

        return cls(write)

    def begin(self, title: str, seats: Sequence[str]) -> None:
        """A new game starts now: its header (`title`, then the bot in each seat)."""
        self.started = trio.current_time()
        names = ", ".join(f"seat {seat} {plain(name)}" for seat, name in enumerate(seats))
        self.write(f"trace of {title}: {names} (times in ms since the game started)")

    def _line(self, at: float, what: str, seat: int, text: str) -> None:
        self.write(f"{(at - self.started) * 1000:10.3f}  {what:<5} seat {seat}  {text}")

    def sent(self, seat: int, line: bytes | bytearray, at: float) -> None:
        """The referee wrote `line` to the bot in `seat` at trio time `at`."""
        self._line(at, "to", seat, shown_line(line, self.limit))

    def received(self, seat: int, line: bytes | bytearray, at: float) -> None:
        """The referee read `line` from the bot in `seat` at trio time `at`."""
        self._line(at, "from", seat, shown_line(line, self.limit))

    def fault(self, seat: int, kind: str, sentence: str) -> None:
        """A fault was charged to the bot in `seat`, now."""
        self._line(trio.current_time(), "fault", seat, f"{kind}: {plain(sentence)}")


class TracedBotProcess(BotProcess):
    """A `BotProcess` whose lines, each way, go to a `Trace`: each line written as it is
    written, each line read as the referee takes it (at the time it was read)."""

    def __init__(
        self,
        spec: BotSpec,
        trace: Trace,
        seat: int,
        *,
        max_line: int = MAX_LINE_BYTES,
        stderr_limit: int = STDERR_LIMIT,
        hide: tuple[str, ...] = (),
    ) -> None:
        super().__init__(spec, max_line=max_line, stderr_limit=stderr_limit, hide=hide)
        self.trace = trace
        self.seat = seat

    async def send(self, line: bytes) -> None:
        self.trace.sent(self.seat, line, self._now())
        await super().send(line)

    async def receive(self) -> tuple[bytes, float]:
        line, at = await super().receive()
        self.trace.received(self.seat, line, at)
        return line, at

    def exchange_at_once(
        self, line: bytes | bytearray, deadline: float, alone: bool = True
    ) -> tuple[bytes, float] | None:
        self.trace.sent(self.seat, line, self._now())
        answer = super().exchange_at_once(line, deadline, alone)
        if answer is not None:
            self.trace.received(self.seat, *answer)
        return answer

    async def exchange_rest(
        self, line: bytes | bytearray, scope: trio.CancelScope, deadline: float
    ) -> tuple[bytes, float]:
        answer = await super().exchange_rest(line, scope, deadline)
        self.trace.received(self.seat, *answer)
        return answer
