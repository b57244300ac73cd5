"""Error bars that know paired deals: every rotation of one deal at one table is one draw of
chance (its luck cancels within them), in the fit (`Result.deal`) and in the standings of a
results folder (the games' seeds and bots); an SPRT whose every deal pair scored 1-1 gets a
bar far narrower than the one taken game by game, and deals that favour one bot in both
seatings widen it."""

from __future__ import annotations

import random

import msgspec
import pytest

from arena.league.leaderboard import Standings, leaderboard
from arena.league.match import game_name, match_seed
from arena.league.ratings import Result, fit, game_results
from arena.league.sprt import elo_estimate
from arena.referee.records import GameRecord
from tests.helpers.boards import made_game, table_deal


def sprt_games(pairs: int, split: bool = True) -> list[GameRecord]:
    """An SPRT's journal of `pairs` deal pairs between two equal bots, as `arena sprt` names
    and seeds them (seed 1): the bot in seat 0 wins (`split`: every pair 1-1), or the deal
    favours one bot in both seatings, a and b in turn (every pair 2-0 or 0-2)."""
    games = []
    for deal in range(pairs):
        seed = match_seed(1, deal)
        winner = "a" if deal % 2 == 0 else "b"
        for order, seats in enumerate((["a", "b"], ["b", "a"])):
            first = seats[0] == winner if not split else True
            ranks = [1, 2] if first else [2, 1]
            games.append(made_game(seats, ranks, game=game_name(deal, order), seed=seed))
    return games


def each_on_its_own_deal(games: list[GameRecord]) -> list[GameRecord]:
    """The same games, each given a seed of its own: the bars taken game by game."""
    return [msgspec.structs.replace(game, seed=10_000 + k) for k, game in enumerate(games)]


def test_an_sprt_whose_every_deal_pair_scored_1_1_gets_a_narrow_error_bar() -> None:
    games = sprt_games(60)
    paired = {row.bot: row for row in leaderboard(games).rows}
    alone = {row.bot: row for row in leaderboard(each_on_its_own_deal(games)).rows}
    assert paired["a"].pentanomial == [0, 0, 60, 0, 0]
    assert paired["a"].elo == alone["a"].elo == 0.0
    # Game by game, 120 coin tosses: ± 31 each (the difference ± 62). The luck of each deal
    # cancels within its pair, so paired the bars are a small fraction of that, narrower
    # than the SPRT's own interval of the difference, which its virtual pair keeps open.
    assert alone["a"].error == pytest.approx(31.3, abs=0.5)
    assert paired["a"].error < 0.1 * alone["a"].error
    sprt = elo_estimate(paired["a"].pentanomial)
    assert sprt is not None and sprt.error == pytest.approx(11.2, abs=0.1)
    assert 2 * paired["a"].error < sprt.error


def test_deals_that_favour_one_bot_in_both_seatings_widen_the_error_bar() -> None:
    # The pairs of a deal go together the other way: 2-0 or 0-2, never split. Taken game by
    # game they look like 120 independent games; they are 60 draws of chance.
    games = sprt_games(60, split=False)
    paired = {row.bot: row for row in leaderboard(games).rows}
    alone = {row.bot: row for row in leaderboard(each_on_its_own_deal(games)).rows}
    assert paired["a"].pentanomial == [30, 0, 0, 0, 30]
    assert paired["a"].error > 1.35 * alone["a"].error  # about √2


def test_the_rotations_of_one_deal_at_one_table_share_a_draw_of_chance() -> None:
    games = [
        *table_deal(0, ("a", "b", "c"), [(1, 2, 3), (2, 3, 1), (3, 1, 2)], seed=7),  # 0-2
        *table_deal(0, ("d", "e", "f"), [(1, 2, 3)] * 3, seed=7, number=1),  # 3-5: same seed
        made_game(["a", "b", "c"], [1, 2, 3], seed=8),  # 6: the same bots, another deal
        made_game(["a", "b"], [1, 2], seed=7),  # 7, 8: 2 seats, same deal, both seatings
        made_game(["b", "a"], [1, 2], seed=7),
        made_game(["a", "c"], [1, 2], seed=7),  # 9: another pair on it
        made_game(["a", "b", "c"], [1, 2, 3], seed=7, error="too long"),  # not rated
        made_game(["c", "a", "b"], [1, 2, 3], seed=-5),  # 10: a seed out of 64 bits
        made_game(["b", "a", "c"], [1, 2, 3], seed=-5),  # 11: in any seats
    ]
    standings = Standings()
    for game in games:
        standings.add(game)
    deal = standings.deals().tolist()
    assert len(deal) == 12  # the rated games, in order
    groups = [[0, 1, 2], [3, 4, 5], [6], [7, 8], [9], [10, 11]]
    for group in groups:
        assert len({deal[k] for k in group}) == 1, group
    assert len(set(deal)) == len(groups)


def test_results_keyed_by_deal_are_one_draw_of_chance_whatever_their_games() -> None:
    rng = random.Random(3)
    bots = ["a", "b", "c", "d", "e"]
    by_deal: list[Result] = []
    by_game: list[Result] = []
    for deal in range(120):
        table = rng.sample(bots, 3)
        for turn in range(3):
            seats = table[turn:] + table[:turn]
            ranks = rng.sample([1, 2, 3], 3)
            by_deal += game_results(seats, ranks, game=f"{deal}-{turn}", deal=deal)
            by_game += game_results(seats, ranks, game=f"{deal}-{turn}")
    # A deal key groups the results as one game key for all its rotations would ...
    as_one_game = [msgspec.structs.replace(r, game=r.deal, deal=None) for r in by_deal]
    assert fit(by_deal, bots) == fit(as_one_game, bots)
    # ... and changes the bars, not the ratings.
    grouped, apart = fit(by_deal, bots), fit(by_game, bots)
    assert [r.elo for r in grouped.ratings] == pytest.approx([r.elo for r in apart.ratings])
    assert [r.error for r in grouped.ratings] != pytest.approx([r.error for r in apart.ratings])
    # A deal and a game of the same key are different draws of chance.
    two = [Result("a", "b", 1.0, game=1), Result("a", "b", 0.0, deal=1)]
    apart_keys = [Result("a", "b", 1.0, game="x"), Result("a", "b", 0.0, deal="y")]
    assert fit(two, ["a", "b"]) == fit(apart_keys, ["a", "b"])


def test_deals_are_told_apart_among_many_bots_at_many_seats() -> None:
    # 1,500 bots at 6 seats: the set of a table's bots no longer fits in one 64-bit number.
    many = [f"x{k}" for k in range(1500)]
    table = ("x1499", "x3", "x700", "x12", "x0", "x999")
    games = [
        *table_deal(0, table, [(1, 2, 3, 4, 5, 6)] * 6, seed=7),  # 0-5
        *table_deal(0, ("x1", *table[1:]), [(1, 2, 3, 4, 5, 6)] * 6, seed=7)[:2],  # 6-7
    ]
    standings = Standings(many)
    for game in games:
        standings.add(game)
    deal = standings.deals().tolist()
    assert len(set(deal[:6])) == 1 and len(set(deal[6:8])) == 1 and deal[0] != deal[6]
