"""The live rating fit: fed games one at a time (or many at once), refitted warm from its last
solution, its table is the batch fit's on the same games (the one `arena leaderboard`
shows), rating by rating and error bar by error bar, to the solver's tolerance; and
`LiveStandings` gives the leaderboard `Standings` gives."""

from __future__ import annotations

import random

import numpy as np
import pytest

from arena.league.leaderboard import Standings
from arena.league.live_ratings import LiveRatings, LiveStandings
from arena.league.ratings import RatingTable, fit, game_results
from arena.referee.records import GameRecord
from tests.helpers.boards import made_game

BOTS = [f"b{i}" for i in range(12)]
ELO_TOLERANCE = 1e-6  # Elo; the two fits agree to about 1e-10 (see the module's docstring)
ERROR_TOLERANCE = 1e-6  # relative


def deals(count: int, seed: int, bots: list[str] = BOTS) -> list[GameRecord]:
    """`count` deals at tables of 2 to 6 of `bots`, each played in every rotation (most) or
    once, ranked by strength plus luck; a few tables seat one bot twice, and a few seeds come
    back with other bots (another draw of chance) or the same ones (the same draw)."""
    rng = random.Random(seed)
    strength = {name: rng.gauss(0.0, 1.0) for name in bots}
    games = []
    for number in range(count):
        k = rng.randint(2, 6)
        table = rng.sample(bots, k)
        if rng.random() < 0.05:
            table[1] = table[0]
        dealt = rng.randrange(count * 9 // 10)
        for r in range(k if rng.random() < 0.7 else 1):
            seats = table[r:] + table[:r]
            luck = [strength[name] + rng.gauss(0.0, 1.5) for name in seats]
            ranks = [1 + sum(other > mine for other in luck) for mine in luck]
            if rng.random() < 0.1:
                ranks = [min(rank, 2) for rank in ranks]  # ties
            games.append(made_game(seats, ranks, game=f"{number}-{r}", seed=dealt))
    return games


def assert_same_table(live: RatingTable, batch: RatingTable) -> None:
    """The two tables agree: the same bots in the same order, games, scores and head-to-head
    sums, and ratings, error bars and covariances to the tolerances."""
    assert live.names() == batch.names()
    for mine, theirs in zip(live.ratings, batch.ratings, strict=True):
        assert mine.games == theirs.games
        assert mine.score == pytest.approx(theirs.score, abs=1e-12)
        assert mine.elo == pytest.approx(theirs.elo, abs=ELO_TOLERANCE)
        assert mine.error == pytest.approx(theirs.error, rel=ERROR_TOLERANCE)
    assert live.pair_games == batch.pair_games
    assert np.allclose(live.pair_points, batch.pair_points, rtol=0.0, atol=1e-9)
    assert np.allclose(live.covariance, batch.covariance, rtol=1e-6, atol=1e-6)
    assert live.anchors == batch.anchors


def test_a_table_refitted_game_by_game_is_the_batch_fits_table() -> None:
    games = deals(150, seed=1)
    live = LiveRatings(BOTS)
    batch = Standings(BOTS)
    checked = 0
    for number, game in enumerate(games):
        live.add_game(game)
        batch.add(game)
        if number in (0, 3, 40, 41, 42, 200, len(games) - 1):
            assert_same_table(live.table(), batch.ratings())
            checked += 1
    assert checked == 7
    assert live.refits == 6  # every fit after the first started from the last solution


def test_games_added_many_at_once_give_the_same_table_as_one_by_one() -> None:
    games = deals(120, seed=2)
    one_by_one = LiveRatings(BOTS)
    for game in games:
        one_by_one.add([seat.bot for seat in game.seats], game.ranks, game.seed)
    at_once = LiveRatings(BOTS)
    index = {name: i for i, name in enumerate(BOTS)}
    at_once.extend(
        np.array([len(game.seats) for game in games]),
        np.array([index[seat.bot] for game in games for seat in game.seats]),
        np.array([rank for game in games for rank in game.ranks]),
        np.array([game.seed for game in games], dtype=np.uint64),
    )
    assert at_once.games == one_by_one.games == len(games)
    assert_same_table(at_once.table(), one_by_one.table())


def test_bots_that_arrive_later_are_fitted_with_the_others() -> None:
    early = deals(80, seed=3, bots=BOTS[:6])
    late = deals(80, seed=4)  # the other six join
    live = LiveRatings()
    batch = Standings()
    for game in early:
        live.add_game(game)
        batch.add(game)
    assert_same_table(live.table(), batch.ratings())
    assert len(live.names) == 6
    for game in late:
        live.add_game(game)
        batch.add(game)
    assert_same_table(live.table(), batch.ratings())
    assert sorted(live.names) == sorted(BOTS)


def test_a_registered_bot_without_games_keeps_the_priors_rating() -> None:
    live = LiveRatings([*BOTS, "idle"])
    batch = Standings([*BOTS, "idle"])
    for game in deals(60, seed=5):
        live.add_game(game)
        batch.add(game)
    table = live.table()
    assert_same_table(table, batch.ratings())
    assert table.rating("idle").games == 0


def test_the_rotations_of_a_deal_are_one_draw_of_chance_as_the_leaderboard_counts_them() -> None:
    # Two equal bots that split every deal pair: paired, the bars are far narrower than the
    # same games each on a deal of its own; the live fit groups them as the batch fit does.
    paired, alone = LiveRatings(), LiveRatings()
    for deal in range(40):
        for number, seats in enumerate((["a", "b"], ["b", "a"])):
            paired.add(seats, [1, 2], seed=deal)
            alone.add(seats, [1, 2], seed=1000 + 2 * deal + number)
    assert paired.table().rating("a").error < 0.1 * alone.table().rating("a").error
    games = [
        made_game(seats, [1, 2], seed=deal)
        for deal in range(40)
        for seats in (["a", "b"], ["b", "a"])
    ]
    standings = Standings()
    for game in games:
        standings.add(game)
    assert_same_table(paired.table(), standings.ratings())


def test_anchors_fix_ratings_as_in_the_batch_fit() -> None:
    games = deals(100, seed=6)
    anchors = {"b0": 1500.0, "b3": 1400.0}
    live = LiveRatings(BOTS, anchors=anchors)
    results = []
    for number, game in enumerate(games):
        live.add_game(game)
        bots = [seat.bot for seat in game.seats]
        results += game_results(bots, game.ranks, number, f"{game.seed}:{sorted(bots)}")
        if number in (50, len(games) - 1):
            batch = fit(results, BOTS, anchors=anchors)
            assert_same_table(live.table(), batch)
    assert live.table().rating("b0").elo == 1500.0


def test_the_table_is_refitted_only_after_new_games() -> None:
    live = LiveRatings(BOTS)
    for game in deals(30, seed=7):
        live.add_game(game)
    first = live.table()
    assert live.table() is first
    live.add(["b1", "b2"], [1, 2], seed=99)
    assert live.table() is not first
    assert live.table().rating("b1").games == first.rating("b1").games + 1


def test_games_a_referee_error_ended_are_left_out_and_solo_games_refused() -> None:
    live = LiveRatings()
    live.add_game(made_game(["a", "b"], [1, 2], error="too long"))
    assert live.games == 0
    assert live.names == ["a", "b"]
    with pytest.raises(ValueError, match="solo"):
        live.add_game(made_game(["a"], [1], scores=[3.0]))
    with pytest.raises(ValueError, match="ranks"):
        live.add(["a", "b"], [1], seed=0)
    with pytest.raises(ValueError, match="not registered"):
        live.extend(np.array([2]), np.array([0, 7]), np.array([1, 2]), np.zeros(1, np.uint64))


def test_live_standings_give_the_leaderboard_of_standings() -> None:
    games = deals(100, seed=8)
    live, batch = LiveStandings(BOTS), Standings(BOTS)
    for number, game in enumerate(games):
        live.add(game)
        batch.add(game)
        if number in (10, len(games) - 1):
            mine, theirs = live.leaderboard(), batch.leaderboard()
            assert [row.bot for row in mine.rows] == [row.bot for row in theirs.rows]
            for a, b in zip(mine.rows, theirs.rows, strict=True):
                assert (a.elo, a.error, a.games, a.score) == (b.elo, b.error, b.games, b.score)
                assert a.los_next == pytest.approx(b.los_next, abs=1e-4)
            assert mine.pairs == theirs.pairs
    assert live.live.refits == 1
    # Anchors other than its own take the batch fit, as do solo games.
    anchored = live.leaderboard({"b0": 0.0})
    assert anchored.anchors == {"b0": 0.0}
    assert anchored.rows == batch.leaderboard({"b0": 0.0}).rows
