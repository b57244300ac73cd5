"""Checking a game record against the rules and the fault policy."""

from __future__ import annotations

from collections.abc import Sequence

from arena.games import new_game
from arena.referee.records import GameRecord


def expected_ranks(game_ranks: Sequence[int], faulty: set[int]) -> list[int]:
    """The fault policy, written out: faulters share last place; the others are ranked
    among themselves by their game ranks."""
    ok = [s for s in range(len(game_ranks)) if s not in faulty]
    ranks = []
    for s in range(len(game_ranks)):
        if s in faulty:
            ranks.append(len(ok) + 1)
        else:
            ranks.append(1 + len([o for o in ok if game_ranks[o] < game_ranks[s]]))
    return ranks


def check_record(record: GameRecord, faulty: set[int]) -> None:
    """The record replays to its result, ranks follow the fault policy, and every move is
    by the bot (timed) until its seat's fault and by the fallback (untimed) from then on."""
    n = record.players
    assert len(record.seats) == n and len(record.stderr) == n
    assert sorted(f.seat for f in record.faults) == sorted(faulty), record.faults
    state = new_game(record.ruleset, n, record.options, record.seed)
    for i, move in enumerate(record.moves):
        assert state.current_player == move.seat, f"move {i}"
        state.apply(move.action)
    assert state.is_terminal, "the game did not reach its end"
    outcome = state.outcome()
    assert record.scores == [float(s) for s in outcome.scores]
    assert record.game_ranks == list(outcome.ranks)
    assert record.ranks == expected_ranks(record.game_ranks, faulty)
    assert all(1 <= r <= n for r in record.ranks)
    fault_at = {f.seat: f.decision for f in record.faults}
    for f in record.faults:
        assert f.bot == record.seats[f.seat].bot
        assert f.reason
        if f.decision is not None:
            assert record.moves[f.decision].seat == f.seat
    for i, move in enumerate(record.moves):
        at = fault_at.get(move.seat, len(record.moves))
        if at is None or i > at:
            assert (move.by, move.ms) == ("fallback", 0), f"move {i}"
        elif i == at:  # the faulting decision (an illegal action keeps the bot's time)
            assert move.by == "fallback" and move.ms >= 0, f"move {i}"
        else:
            assert move.by == "bot" and move.ms > 0, f"move {i}: {move}"
    assert record.seconds > 0


def seating(record: GameRecord) -> tuple[str, ...]:
    """The bots of a game, seat by seat."""
    return tuple(s.bot for s in record.seats)
