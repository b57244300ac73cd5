"""A seat's clock: the move limit, the bank it may draw on past it, the increment added after
each decision, and the allowance of the decision being asked (PROTOCOL.md section 8); one
decision's deadline, by which every answer is judged (`Deadline`); and the one rule for which
settings can work, shared by the command line and tournament files."""

from __future__ import annotations

import math
from collections.abc import Mapping

from arena.games.errors import ArenaError
from arena.referee.faults import BotFault
from protocol.messages import Limits

DAY = 86_400.0  # seconds: the most any setting may be (a longer clock is a typo)
#: Each setting's least and most value in seconds. A move or start-up time under 1 ms is 0 in
#: the protocol's whole milliseconds, and a limit of 0 makes every decision a timeout.
BOUNDS: dict[str, tuple[float, float]] = {
    "move": (0.001, DAY),
    "startup": (0.001, DAY),
    "bank": (0.0, DAY),
    "increment": (0.0, DAY),
    "margin": (0.0, 1.0),  # (a second: a margin longer than that is no margin but a clock)
}
_WHY = {
    "move": " (1 ms: a decision with no time is a timeout)",
    "startup": " (1 ms: a bot needs time to answer hello)",
}


class ClockError(ArenaError, ValueError):
    """A clock setting that cannot work; the message names it and what is allowed."""


def check(field: str, value: float, name: str | None = None) -> float:
    """`value` if the clock's `field` (move, startup, bank, increment; in seconds) may be
    set to it, else a ClockError that names it as `name` (the option or the file's field)."""
    least, most = BOUNDS[field]
    if least <= value <= most:  # (NaN is no number in range)
        return value
    shown = "nan" if math.isnan(value) else f"{value:g}"
    raise ClockError(
        f"{name or field} must be at least {least:g} s{_WHY.get(field, '')} and at most "
        f"{most:g} s (a day); got {shown}"
    )


def limits(
    *,
    move: float,
    startup: float,
    bank: float = 0.0,
    increment: float = 0.0,
    names: Mapping[str, str] | None = None,
) -> Limits:
    """The clock of a game from seconds (the command line's and the tournament file's units)
    to the whole milliseconds of the protocol; each setting checked (`check`), named in an
    error by `names` (default: the setting's own name)."""
    given = {"move": move, "startup": startup, "bank": bank, "increment": increment}
    for field, value in given.items():
        check(field, value, (names or {}).get(field))
    return Limits(
        startup_ms=round(startup * 1000),
        move_ms=round(move * 1000),
        bank_ms=round(bank * 1000),
        increment_ms=round(increment * 1000),
    )


class Clock:
    """One seat's time: each decision may take `move_ms` plus what is left of the bank."""

    __slots__ = ("bank", "increment_ms", "move_ms", "uses_bank")

    def __init__(self, limits: Limits) -> None:
        self.move_ms = limits.move_ms
        self.increment_ms = limits.increment_ms
        self.bank = float(limits.bank_ms)  # milliseconds, fractional: what is left of it
        self.uses_bank = bool(limits.bank_ms or limits.increment_ms)

    def allowance(self) -> float:
        """The milliseconds the next decision may take."""
        return self.move_ms + self.bank

    def spent(self, elapsed_ms: float) -> None:
        """A decision took `elapsed_ms`: time past the move limit comes off the bank, and the
        increment goes on it."""
        if self.uses_bank:
            self.bank += self.increment_ms - max(0.0, elapsed_ms - self.move_ms)


#: Milliseconds past a decision's allowance within which an answer is still taken (as
#: cutechess's `timemargin`): what the referee itself may take to read an answer that came in
#: time, on a loaded machine. The record's `ms` of such an answer shows by how much it ran over.
MARGIN_MS = 20


class Deadline:
    """One decision's clock, on trio's clock (seconds): the seat asked, when it was asked
    (`start`: the bot's time runs from there), its allowance in ms, when that ends (`due`), and
    when the referee stops waiting (`limit`: `due` plus the margin). Every answer is judged
    here by the time it was read (`judge`), whatever path read it; a decision's deadline is its
    own, and never another seat's."""

    __slots__ = ("allowance", "due", "limit", "seat", "start")

    def __init__(self, seat: int, start: float, allowance_ms: float, margin_ms: float) -> None:
        self.seat = seat
        self.start = start
        self.allowance = allowance_ms
        self.due = start + allowance_ms / 1000
        self.limit = self.due + margin_ms / 1000

    def judge(self, at: float) -> float:
        """The milliseconds the answer read at `at` took; a timeout, with its overrun past the
        allowance, when it was read after the limit."""
        if at > self.limit:
            raise self.late(at)
        return (at - self.start) * 1000

    def had(self, overrun_ms: float | None, now: float) -> float:
        """The milliseconds the bot had for a decision it faulted in, at `now`: its allowance
        and the overrun of a late answer, or else all the time since it was asked."""
        if overrun_ms is not None:
            return self.allowance + overrun_ms
        return (now - self.start) * 1000

    def late(self, at: float) -> BotFault:
        """The timeout of an answer read at `at`, past the limit."""
        overrun = (at - self.due) * 1000
        return BotFault(
            "timeout", f"answered {overrun:.0f} ms after its {self.allowance:.0f} ms", overrun
        )
