"""The error of games a cluster did not play: one line that groups the games by reason, the
commonest first, with no Dask task key in a reason (so that one cause struck in many batches
is one reason), one worker's address standing for all it struck, and long reasons cut."""

from __future__ import annotations

from arena.games.errors import ArenaError
from arena.league.executors.cluster import (
    LINE_CHARS,
    REASON_LINES,
    _not_played,
    _reason,
)


class KilledWorker(Exception):
    """As Dask names it."""


def test_a_reason_holds_no_task_key_and_is_cut() -> None:
    keyed = RuntimeError("task 'arena-0123456789ab-17' lost its dependencies")
    assert _reason(keyed) == "RuntimeError: task its task lost its dependencies"
    assert _reason(ArenaError("worker w has no program 'node'")) == "worker w has no program 'node'"
    assert _reason(KilledWorker("arena-0123456789ab-3", "tcp://10.0.0.7:1")) == (
        "its workers died while playing it, three times (a bot may exhaust the worker)"
    )
    long = ArenaError("\n".join(["x" * (LINE_CHARS + 5)] * (REASON_LINES + 10)))
    lines = _reason(long).split("\n")
    assert len(lines) == REASON_LINES and lines[-1] == "... (11 more lines)"
    assert lines[0] == "x" * LINE_CHARS + "... (5 more)"


def test_games_not_played_are_grouped_by_reason_the_commonest_first() -> None:
    failed = {
        "worker tcp://10.0.0.7:40917 has no program 'node', which bot js runs": ["g1", "g2"],
        "worker tcp://10.0.0.8:41000 has no program 'node', which bot js runs": ["g3"],
        "its workers died while playing it, three times": ["g4"],
        "worker tcp://10.0.0.9:1: the build of c failed\nbot.c:1: error": ["g5", "g6", "g7", "g8"],
    }
    assert _not_played(failed) == (
        "8 games were not played: worker tcp://10.0.0.9:1: the build of c failed (4 games, e.g. "
        "g5); worker tcp://10.0.0.7:40917 has no program 'node', which bot js runs (3 games, "
        "e.g. g1, and the same on 1 other worker); its workers died while playing it, three "
        "times (1 game, e.g. g4)"
    )


def test_more_than_five_reasons_are_counted_past_the_fifth() -> None:
    failed = {f"reason {i}": [f"g{i}-{j}" for j in range(10 - i)] for i in range(8)}
    shown = _not_played(failed)
    assert shown.startswith("52 games were not played: reason 0 (10 games, e.g. g0-0); ")
    assert "reason 4 (6 games, e.g. g4-0); and 3 other reasons (12 games)" in shown
    assert "reason 5" not in shown
