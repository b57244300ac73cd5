"""A game between uniformly random players, played in process: the rules engine at work."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from arena.games import OptionsInput, Outcome, new_game
from arena.games.text import progress_lines


def random_game(
    ruleset: str,
    players: int,
    options: OptionsInput = None,
    seed: int = 0,
    on_line: Callable[[str], None] | None = None,
) -> Outcome:
    """Play one game with random legal actions (seeded); report every event as a line, and
    the picture of the table after each move when the game has one."""
    state = new_game(ruleset, players, options, seed)
    chooser = random.Random(seed ^ 0x5EED)
    seen = 0

    def flush() -> Iterator[str]:
        nonlocal seen
        lines = progress_lines(state, state.events_since(seen))
        seen = state.event_count
        yield from lines

    emit = on_line or (lambda _line: None)
    for line in flush():
        emit(line)
    while not state.is_terminal:
        state.apply(chooser.choice(state.legal_actions()))
        for line in flush():
            emit(line)
    return state.outcome()
