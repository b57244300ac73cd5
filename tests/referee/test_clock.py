"""The clock's settings: one rule for what a move time, start-up time, bank and increment may
be, shared by the command line and tournament files, so no game starts with a clock on which
every decision is a timeout."""

from __future__ import annotations

import math

import pytest

from arena.games.errors import ArenaError
from arena.referee import clock


@pytest.mark.parametrize("value", [0.0, -1.0, 0.0004, math.nan, math.inf, 86_400.5])
def test_a_move_time_that_cannot_work_is_refused_naming_it(value: float) -> None:
    with pytest.raises(clock.ClockError) as exc:
        clock.check("move", value, "--move-time")
    message = str(exc.value)
    assert message.startswith("--move-time must be at least 0.001 s")
    assert "at most 86400 s" in message
    assert isinstance(exc.value, ArenaError)


@pytest.mark.parametrize("field", ["bank", "increment"])
def test_bank_and_increment_may_be_zero_but_not_negative(field: str) -> None:
    assert clock.check(field, 0.0) == 0.0
    with pytest.raises(clock.ClockError, match=f"^{field} must be at least 0 s"):
        clock.check(field, -0.5)


def test_limits_refuse_a_zero_move_time_and_keep_whole_milliseconds() -> None:
    with pytest.raises(clock.ClockError, match=r"^move must be at least 0\.001 s"):
        clock.limits(move=0.0, startup=10.0)
    with pytest.raises(clock.ClockError, match=r"^startup must be at least 0\.001 s"):
        clock.limits(move=1.0, startup=0.0)
    limits = clock.limits(move=0.001, startup=0.0015, bank=0.0, increment=0.25)
    assert (limits.move_ms, limits.startup_ms, limits.bank_ms, limits.increment_ms) == (
        1,
        2,
        0,
        250,
    )
