"""Solo rulesets: every bot plays the same deals; standings compare bots deal by deal."""

from __future__ import annotations

from arena.league.leaderboard import leaderboard, solo_deals
from arena.league.schedule import solo
from arena.referee.game import ranks_with_faults
from arena.referee.records import Fault, GameRecord, SeatRecord


def record(bot: str, seed: int, margin: float, fault: bool = False) -> GameRecord:
    faults = [Fault(0, bot, "timeout", 3, "no answer")] if fault else []
    rank = 2 if fault or margin < 0 else 1
    return GameRecord(
        ruleset="bested-solo",
        options={},
        seed=seed,
        players=1,
        seats=[SeatRecord(0, bot, ["x"])],
        moves=[],
        faults=faults,
        scores=[margin],
        game_ranks=[1 if margin >= 0 else 2],
        ranks=[rank],
        seconds=0.0,
        stderr=[""],
    )


def test_solo_schedule_gives_every_bot_the_same_deals() -> None:
    games = solo(["a", "b", "c"], deals=4, seed=9)
    assert len(games) == 12 and len({g.id for g in games}) == 12
    for deal in range(4):
        seeds = {g.seed for g in games if g.deal == deal}
        assert len(seeds) == 1
        assert sorted(g.seats[0] for g in games if g.deal == deal) == ["a", "b", "c"]
    assert len({g.seed for g in games}) == 4


def test_a_faulting_solo_bot_loses_to_the_dummy() -> None:
    assert ranks_with_faults([1], {0}) == [2]
    assert ranks_with_faults([1], set()) == [1]


def test_deals_are_compared_by_margin_and_faults_rank_last() -> None:
    recs = [record("a", 1, 5), record("b", 1, -3), record("c", 1, 9, fault=True)]
    ((names, ranks),) = solo_deals(recs)
    assert dict(zip(names, ranks, strict=True)) == {"a": 1, "b": 2, "c": 3}


def test_solo_leaderboard_win_rate_margin_and_elo_order() -> None:
    recs = []
    for seed in range(20):
        recs.append(record("strong", seed, 4 + seed % 3))  # always wins, by 4-6
        recs.append(record("weak", seed, -2 + seed % 3))  # wins 1 deal in 3 (margin 0 counts)
    board = leaderboard(recs, ["strong", "weak", "idle"])
    assert board.solo
    rows = {r.bot: r for r in board.rows}
    assert [r.bot for r in board.rows][:2] == ["strong", "weak"]
    assert rows["strong"].win_rate == 1.0
    assert abs(rows["weak"].win_rate - 6 / 20) < 1e-9  # seeds 2, 5, 8, 11, 14, 17
    assert abs(rows["strong"].margin - sum(4 + s % 3 for s in range(20)) / 20) < 1e-3
    assert 0 < rows["strong"].margin_error < 1
    assert rows["strong"].elo > rows["weak"].elo
    assert rows["idle"].games == 0 and rows["idle"].margin is None
