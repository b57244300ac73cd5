"""Re-play a game record through the rules engine and check that it reproduces."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from arena.games import GameState, IllegalAction, get_ruleset
from arena.games.base import describe
from arena.games.errors import ArenaError
from arena.games.text import progress_lines
from arena.referee.records import GameRecord


class ReplayError(ArenaError, ValueError):
    """A record that the rules engine does not reproduce."""


def replay(record: GameRecord, on_line: Callable[[str], None] | None = None) -> GameState[Any, Any]:
    """Apply every recorded move to a fresh game from the record's seed; raise on any mismatch."""
    ruleset = get_ruleset(record.ruleset)
    state = ruleset.new_game(record.players, record.options, record.seed)
    emit = on_line or (lambda _line: None)
    seen = 0

    def flush() -> None:
        nonlocal seen
        for line in progress_lines(state, state.events_since(seen)):
            emit(line)
        seen = state.event_count

    flush()
    for number, move in enumerate(record.moves):
        if state.current_player != move.seat:
            raise ReplayError(
                f"move {number}: recorded for seat {move.seat}, "
                f"but it is seat {state.current_player}'s decision"
            )
        try:
            action = msgspec.convert(move.action, ruleset.action_type)
            state.apply(action)
        except (msgspec.ValidationError, IllegalAction) as exc:
            raise ReplayError(f"move {number} ({describe(move.action)}): {exc}") from None
        if move.by == "fallback":
            emit(f"  (seat {move.seat} was played by the fallback)")
        flush()
    if record.error is not None:  # ended by the referee past the rules' bound: no result
        bound = ruleset.max_decisions(record.players, ruleset.options(record.options))
        if state.is_terminal or len(record.moves) != bound:
            raise ReplayError(
                f"the record says the referee ended it after {bound} decisions "
                f"({record.error}), but it holds {len(record.moves)} moves"
                + (" and the game ended" if state.is_terminal else "")
            )
        return state
    if not state.is_terminal:
        raise ReplayError(f"the record ends after {len(record.moves)} moves, before the game ends")
    outcome = state.outcome()
    if list(outcome.ranks) != record.game_ranks or [float(s) for s in outcome.scores] != [
        float(s) for s in record.scores
    ]:
        raise ReplayError(
            f"the replay ends with scores {list(outcome.scores)} and ranks {list(outcome.ranks)}, "
            f"the record says {record.scores} and {record.game_ranks}"
        )
    return state
