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


#: A ladder's first 54 games of odin (16 bots, each deal in both rotations), as they came:
#: refitted after 16 of them, then after the other 38, the last solution is far from the new
#: optimum, and full Newton steps from there flew off the sigmoid's flat tail until the
#: information was singular.
FAR_REFIT = [
    (["s14", "s04"], [2, 1], 5246383536034654220),
    (["s03", "s16"], [2, 1], 8601752037364161738),
    (["s12", "s05"], [1, 2], 676982195782158550),
    (["s12", "s02"], [1, 2], 1826691787687389859),
    (["s08", "s09"], [1, 2], 5849214728895809102),
    (["s07", "s11"], [1, 2], 5988609675373616354),
    (["s12", "s04"], [2, 1], 8353807283397273517),
    (["s06", "s15"], [2, 1], 134038935266624296),
    (["s06", "s03"], [1, 2], 3818335825040874501),
    (["s04", "s06"], [2, 1], 2565599945438598288),
    (["s10", "s02"], [1, 2], 410116616260183138),
    (["s13", "s07"], [2, 1], 7770018835151265315),
    (["s10", "s16"], [2, 1], 5897463854164917316),
    (["s05", "s01"], [1, 2], 2600639325966104511),
    (["s12", "s02"], [1, 2], 3400428582666616039),
    (["s02", "s05"], [2, 1], 8161440166023962167),
    (["s07", "s06"], [2, 1], 6759856404454748877),
    (["s16", "s01"], [2, 1], 2875890734109738347),
    (["s03", "s14"], [2, 1], 432968763109683085),
    (["s13", "s10"], [1, 2], 8260940010527385072),
    (["s04", "s13"], [1, 2], 6431563994496569613),
    (["s03", "s13"], [2, 1], 3539485553580475314),
    (["s15", "s04"], [1, 2], 6819986232220704060),
    (["s05", "s12"], [1, 2], 676982195782158550),
    (["s16", "s15"], [1, 2], 4968570652626136869),
    (["s04", "s14"], [2, 1], 5246383536034654220),
    (["s11", "s08"], [1, 2], 7643660774826454344),
    (["s05", "s14"], [2, 1], 152875524417223956),
    (["s10", "s09"], [2, 1], 803763380971019245),
    (["s08", "s11"], [2, 1], 5785312882548657162),
    (["s16", "s03"], [2, 1], 8601752037364161738),
    (["s14", "s08"], [1, 2], 6521071897664505822),
    (["s15", "s11"], [2, 1], 1349919864743190596),
    (["s12", "s03"], [1, 2], 2869050315917879925),
    (["s06", "s04"], [2, 1], 2565599945438598288),
    (["s09", "s08"], [1, 2], 5849214728895809102),
    (["s07", "s13"], [2, 1], 7770018835151265315),
    (["s09", "s01"], [1, 2], 5158587159461798027),
    (["s02", "s12"], [1, 2], 1826691787687389859),
    (["s11", "s07"], [1, 2], 5988609675373616354),
    (["s15", "s06"], [2, 1], 134038935266624296),
    (["s04", "s12"], [2, 1], 8353807283397273517),
    (["s02", "s10"], [1, 2], 410116616260183138),
    (["s03", "s06"], [1, 2], 3818335825040874501),
    (["s16", "s01"], [2, 1], 4917182254045916844),
    (["s02", "s12"], [1, 2], 3400428582666616039),
    (["s05", "s02"], [2, 1], 8161440166023962167),
    (["s16", "s10"], [2, 1], 5897463854164917316),
    (["s01", "s05"], [1, 2], 2600639325966104511),
    (["s09", "s14"], [1, 2], 810202733712873828),
    (["s06", "s07"], [2, 1], 6759856404454748877),
    (["s13", "s03"], [2, 1], 3539485553580475314),
    (["s01", "s16"], [2, 1], 2875890734109738347),
    (["s08", "s06"], [1, 2], 859821462284194741),
]


def test_a_refit_far_from_the_last_solution_is_the_fit_from_scratch() -> None:
    names = sorted({bot for bots, _, _ in FAR_REFIT for bot in bots})
    live, batch = LiveRatings(names), Standings(names)
    for number, (bots, ranks, seed) in enumerate(FAR_REFIT):
        live.add(bots, ranks, seed)
        batch.add(made_game(bots, ranks, game=f"g{number}", seed=seed))
        if number == 15:
            live.table()
    assert_same_table(live.table(), batch.ratings())
