"""Re-play a game record through the rules engine and check that it reproduces.

`steps` walks a record move by move, checking each move as it goes and the result at the
end; `replay` is that walk with the game's lines for people (what `arena replay` prints),
and the replay viewer's frames (`arena.referee.frames`) are built from the same walk, so
every view of a record is the rules engine's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from arena.games import GameState, IllegalAction, get_ruleset
from arena.games.base import describe
from arena.games.errors import ArenaError
from arena.games.text import counted, progress_lines
from arena.referee.records import GameRecord


class ReplayError(ArenaError, ValueError):
    """A record that the rules engine does not reproduce."""


def steps(record: GameRecord) -> Iterator[tuple[int | None, GameState[Any, Any]]]:
    """The game of `record` from a fresh game of its seed: `(None, state)` before the first
    move, then `(n, state)` once move n is applied. Raises ReplayError at a move that is not
    its seat's or not legal, and, once the last move is applied, when the game's end (or the
    referee's error) is not what the record says. The state is the same object throughout."""
    ruleset = get_ruleset(record.ruleset)
    state = ruleset.new_game(record.players, record.options, record.seed)
    yield None, state
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
        yield number, state
    if record.error is not None:  # ended by the referee past the rules' bound: no result
        bound = ruleset.max_decisions(record.players, ruleset.options(record.options))
        if state.is_terminal or len(record.moves) != bound:
            raise ReplayError(
                f"the record says the referee ended it after {counted(bound, 'decision')} "
                f"({record.error}), but it holds {counted(len(record.moves), 'move')}"
                + (" and the game ended" if state.is_terminal else "")
            )
        return
    if not state.is_terminal:
        moves = counted(len(record.moves), "move")
        raise ReplayError(f"the record ends after {moves}, before the game ends")
    outcome = state.outcome()
    if list(outcome.ranks) != record.game_ranks or [float(s) for s in outcome.scores] != [
        float(s) for s in record.scores
    ]:
        raise ReplayError(
            f"the replay ends with scores {list(outcome.scores)} and ranks {list(outcome.ranks)}, "
            f"the record says {record.scores} and {record.game_ranks}"
        )


def replay(record: GameRecord, on_line: Callable[[str], None] | None = None) -> GameState[Any, Any]:
    """Apply every recorded move to a fresh game from the record's seed; raise on any mismatch."""
    emit = on_line or (lambda _line: None)
    seen = 0
    state: GameState[Any, Any] | None = None
    for number, state in steps(record):
        if number is not None and record.moves[number].by == "fallback":
            emit(f"  (seat {record.moves[number].seat} was played by the fallback)")
        for line in progress_lines(state, state.events_since(seen)):
            emit(line)
        seen = state.event_count
    assert state is not None  # `steps` yields the fresh game first
    return state
