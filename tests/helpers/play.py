"""Random play through the game API, shared by the families' test helpers."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

Choose = Callable[[random.Random, list[Any], str], Any]


def play_random(
    state: Any,
    rng: random.Random,
    choose: Choose,
    bound: int,
    *,
    style: str = "uniform",
    on_step: Callable[[Any], None] | None = None,
    stop_after: int | None = None,
) -> int:
    """Apply `choose`n legal actions until the game ends (or `stop_after` actions); return
    the number applied. Fails if the game runs past `bound` actions: it is stuck."""
    steps = 0
    while not state.is_terminal:
        if stop_after is not None and steps >= stop_after:
            break
        assert steps < bound, f"the game did not end within {bound} actions"
        state.apply(choose(rng, state.legal_actions(), style))
        steps += 1
        if on_step is not None:
            on_step(state)
    return steps
