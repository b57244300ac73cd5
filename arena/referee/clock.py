"""A seat's clock: the move limit, the bank it may draw on past it, the increment added after
each decision, and the allowance of the decision being asked (PROTOCOL.md section 8)."""

from __future__ import annotations

from protocol.messages import Limits


def limits(*, move: float, startup: float, bank: float = 0.0, increment: float = 0.0) -> Limits:
    """The clock of a game from seconds (the command line's and the tournament file's units)
    to the whole milliseconds of the protocol."""
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
