"""The leaderboard's data: its order (Elo, with bots that only faulted last), wins, draws and
losses, deal pairs, fault warnings, and Swiss points with their tie-breaks."""

from __future__ import annotations

import msgspec
import pytest

from arena.league.leaderboard import leaderboard, swiss_standings
from arena.league.schedule import Game, bye_value, byes_from, standings_from, table_games
from arena.referee.records import GameRecord
from tests.helpers.boards import made_game, table_deal

# A 3-seat Swiss of 5 bots, one table a round: x crashes in all 3 of its games against b and c;
# w plays 3 games against a and b and scores 1/6. By Elo alone x stood 4th, above w.
SWISS_WITH_A_CRASHER = [
    *table_deal(1, ("b", "c", "x"), [(2, 1, 3)] * 3, faulted=["x"]),
    *table_deal(2, ("a", "c", "b"), [(3, 1, 2), (3, 2, 1), (3, 2, 1)]),
    *table_deal(3, ("a", "b", "w"), [(2, 1, 3), (3, 1, 2), (2, 1, 3)]),
]


def test_a_bot_that_faulted_in_every_game_comes_last_whatever_its_elo() -> None:
    board = leaderboard(SWISS_WITH_A_CRASHER, ["a", "b", "c", "w", "x"])
    rows = {row.bot: row for row in board.rows}
    assert rows["x"].faults == {"crash": 3} and rows["x"].games == 3
    assert rows["w"].score == pytest.approx(1 / 6, abs=1e-4) and rows["w"].faults == {}
    assert rows["x"].elo > rows["w"].elo  # the fit put it higher: the order does not follow it
    assert [row.bot for row in board.rows][-1] == "x"
    assert [row.rank for row in board.rows] == [1, 2, 3, 4, 5]
    above = [row.bot for row in board.rows[:-1]]
    assert above == sorted(above, key=lambda name: -rows[name].elo)  # the others by Elo


def test_bots_without_games_come_after_those_that_only_faulted() -> None:
    games = [
        *SWISS_WITH_A_CRASHER,
        *table_deal(4, ("a", "c", "w"), [(3, 1, 2), (3, 2, 1), (3, 1, 2)], faulted=["a"]),
    ]
    board = leaderboard(games, ["a", "b", "c", "w", "x", "idle"])
    order = [row.bot for row in board.rows]
    rows = {row.bot: row for row in board.rows}
    assert order[-2:] == ["x", "idle"]
    assert rows["a"].faulted_games == 3 and rows["a"].games == 9  # faulted in some: by Elo
    assert order[:4] == sorted(order[:4], key=lambda name: -rows[name].elo)
    assert rows["x"].faulted_games == 3 and rows["idle"].games == 0


def test_wins_draws_losses_and_deal_pairs_of_two_seat_games() -> None:
    # a and b play three deals, each in both seatings: a wins both games of deal 0 (WW),
    # wins one and draws one of deal 1 (WD), splits deal 2 (WL); one more game of deal 3
    # has no partner game yet and makes no pair.
    games = [
        *table_deal(0, ("a", "b"), [(1, 2), (1, 2)], deal=0),
        *table_deal(0, ("a", "b"), [(1, 2), (1, 1)], deal=1),
        *table_deal(0, ("a", "b"), [(1, 2), (2, 1)], deal=2),
        table_deal(0, ("a", "b"), [(2, 1), (2, 1)], deal=3)[0],
    ]
    board = leaderboard(games, ["a", "b"])
    rows = {row.bot: row for row in board.rows}
    assert (rows["a"].wins, rows["a"].draws, rows["a"].losses) == (4, 1, 2)
    assert (rows["b"].wins, rows["b"].draws, rows["b"].losses) == (2, 1, 4)
    assert rows["a"].pentanomial == [0, 0, 1, 1, 1]  # LL, LD, DD/WL, WD, WW
    assert rows["b"].pentanomial == [1, 1, 1, 0, 0]


def test_three_seat_games_have_no_wins_or_deal_pairs() -> None:
    board = leaderboard(SWISS_WITH_A_CRASHER)
    assert all(row.wins is None and row.pentanomial is None for row in board.rows)


def test_a_referee_error_breaks_its_deal_pair() -> None:
    first, second = table_deal(0, ("a", "b"), [(1, 2), (1, 2)])
    errored = msgspec.structs.replace(second, error="too many decisions")
    rows = {row.bot: row for row in leaderboard([first, errored]).rows}
    assert rows["a"].pentanomial == [0] * 5 and rows["a"].wins == 1


def test_bots_that_faulted_in_most_of_their_games_are_named() -> None:
    games = [
        *table_deal(0, ("a", "b"), [(2, 1), (1, 2)], faulted=["a"]),  # a faulted in both
        *table_deal(0, ("a", "c"), [(1, 2), (1, 2)], deal=1),
        *table_deal(0, ("b", "c"), [(2, 1), (2, 1)], deal=2, faulted=["b"]),
        *table_deal(0, ("b", "c"), [(2, 1), (2, 1)], deal=3, faulted=["b"]),
    ]
    board = leaderboard(games, ["a", "b", "c"])
    rows = {row.bot: row for row in board.rows}
    assert (rows["a"].faulted_games, rows["b"].faulted_games) == (2, 4)
    assert (rows["a"].games, rows["b"].games) == (4, 6)
    assert [row.bot for row in board.mostly_faulted()] == ["b"]  # a: 2 of 4 is not most


def swiss_games(
    tables: list[tuple[int, tuple[str, ...], list[tuple[int, ...]]]], seats_deals: int = 1
) -> tuple[list[Game], list[GameRecord]]:
    """Planned Swiss games (one table a round, one deal) and their records with `places`."""
    planned: list[Game] = []
    records: list[GameRecord] = []
    for round, table, places in tables:
        games = table_games([table], seats_deals, 7, "swiss", round)
        planned += games
        for game, rank_of in zip(games, places, strict=True):
            ranks = dict(zip(table, rank_of, strict=True))
            records.append(
                made_game(game.seats, [ranks[n] for n in game.seats], game=game.id, seed=game.seed)
            )
    return planned, records


def test_swiss_standings_count_byes_and_break_ties_by_buchholz_then_sonneborn_berger() -> None:
    # Round 1: a beats b twice, c has a bye (a win in each of the 2 games of the round).
    # Round 2: c and a win one game each, b has a bye. Points: a 2+1, c 2+1, b 0+2.
    planned, records = swiss_games(
        [(1, ("a", "b"), [(1, 2), (1, 2)]), (2, ("c", "a"), [(1, 2), (2, 1)])]
    )
    rows = swiss_standings(records, planned, ["a", "b", "c"], bye_value(2, 1))
    got = [
        (r.place, r.bot, r.points, r.games, r.byes, r.buchholz, r.sonneborn_berger) for r in rows
    ]
    assert got == [
        (1, "a", 3.0, 4, 0, 5.0, 7.0),  # Buchholz: b 2 + c 3; S-B: 2 wins x b's 2 + 1 x c's 3
        (2, "c", 3.0, 2, 1, 3.0, 3.0),  # equal points, a lower Buchholz
        (3, "b", 2.0, 2, 1, 3.0, 0.0),
    ]


def test_swiss_bots_equal_on_points_and_tie_breaks_share_a_place() -> None:
    planned, records = swiss_games([(1, ("a", "b"), [(1, 2), (1, 2)])])
    planned2, records2 = swiss_games([(2, ("b", "a"), [(1, 2), (1, 2)])])
    rows = swiss_standings(records + records2, planned + planned2, ["a", "b"], bye_value(2, 1))
    # each won 2 of the 4 games: 2 points; Buchholz 2 tables x 2; S-B 2 wins x 2 points
    assert [(r.place, r.points, r.buchholz, r.sonneborn_berger) for r in rows] == [
        (1, 2.0, 4.0, 4.0),
        (1, 2.0, 4.0, 4.0),
    ]


def test_three_seat_swiss_points_are_the_pairings() -> None:
    # The points are those the pairing used (`standings_from` with `byes_from`).
    planned, records = swiss_games(
        [(1, ("b", "c", "x"), [(2, 1, 3)] * 3), (2, ("a", "c", "b"), [(3, 1, 2)] * 3)]
    )
    rows = {r.bot: r for r in swiss_standings(records, planned, list("abcwx"), bye_value(3, 1))}
    table = standings_from(
        [(g, r.ranks) for g, r in zip(planned, records, strict=True)],
        byes_from(list("abcwx"), planned),
        bye_points=bye_value(3, 1),
    )
    for name, standing in table.items():
        assert rows[name].points == pytest.approx(standing.points)
        assert rows[name].byes == standing.byes
    assert rows["w"].byes == 2 and rows["w"].points == 6.0  # 3 points a bye of 3 games
