"""Ratings fitted to all games at once: known Elo gaps, symmetry, error bars, simulated pools,
many-seat decomposition, the head-to-head table and independence from the order of games."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.ratings import Result, fit, game_results, pairwise_results, t95

ELO_75 = 400 * math.log10(3)  # 190.85: the gap at which the stronger bot scores 75%


def games(a: str, b: str, wins: int, draws: int, losses: int) -> list[Result]:
    """Two-player results of `a` against `b`."""
    return [Result(a, b, 1.0)] * wins + [Result(a, b, 0.5)] * draws + [Result(a, b, 0.0)] * losses


def expected(gap: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-gap / 400.0))


def test_a_75_percent_score_is_about_191_elo():
    for results in (games("a", "b", 3000, 0, 1000), games("a", "b", 2000, 2000, 0)):
        table = fit(results, ["a", "b"])
        gap = table.rating("a").elo - table.rating("b").elo
        assert gap == pytest.approx(ELO_75, abs=2.0)
        assert table.rating("a").score == pytest.approx(0.75)
        assert table.rating("a").games == table.rating("b").games == 4000


def test_the_ratings_average_zero_and_run_best_first():
    results = games("a", "b", 30, 10, 20) + games("b", "c", 25, 5, 10) + games("a", "c", 9, 0, 1)
    table = fit(results, ["c", "b", "a"])
    assert math.fsum(row.elo for row in table.ratings) == pytest.approx(0.0, abs=1e-9)
    assert table.names() == ["a", "b", "c"]
    elos = [row.elo for row in table.ratings]
    assert elos == sorted(elos, reverse=True)


def test_symmetric_results_give_equal_ratings():
    # a and b split their games; each does the same against c.
    results = games("a", "b", 7, 6, 7) + games("a", "c", 12, 3, 5) + games("b", "c", 12, 3, 5)
    table = fit(results, ["a", "b", "c"])
    a, b = table.rating("a"), table.rating("b")
    assert a.elo == pytest.approx(b.elo, abs=1e-6)
    assert a.error == pytest.approx(b.error, abs=1e-6)
    assert table.los("a", "b") == pytest.approx(0.5, abs=1e-6)
    # A cycle: each beats the next 3:1, so all are equal.
    cycle = games("a", "b", 3, 0, 1) + games("b", "c", 3, 0, 1) + games("c", "a", 3, 0, 1)
    table = fit(cycle, ["a", "b", "c"])
    for row in table.ratings:
        assert row.elo == pytest.approx(0.0, abs=1e-6)
    assert table.los_neighbours() == pytest.approx([0.5, 0.5], abs=1e-6)


def test_error_bars_follow_the_spread_of_the_scores_and_halve_with_four_times_the_games():
    small = fit(games("a", "b", 50, 20, 30), ["a", "b"])
    large = fit(games("a", "b", 200, 80, 120), ["a", "b"])
    ratio = large.rating("a").error / small.rating("a").error
    assert ratio == pytest.approx(0.5, abs=0.03)
    # Two bots, N games, expected score p, observed scores s: the information is N p (1 - p)
    # and the spread sum (s - p)^2, so var(elo_a - elo_b) = (400/ln10)^2 spread / info^2;
    # each rating relative to the mean of the two carries half the difference.
    n, p = 400, expected(large.rating("a").elo - large.rating("b").elo)
    spread = 200 * (1 - p) ** 2 + 80 * (0.5 - p) ** 2 + 120 * p**2
    sigma_diff = 400 / math.log(10) * math.sqrt(spread) / (n * p * (1 - p))
    assert large.rating("a").error == pytest.approx(1.96 * sigma_diff / 2, rel=0.01)
    # Without draws the spread is the information: the Fisher error bar.
    plain = fit(games("a", "b", 240, 0, 160), ["a", "b"])
    n, p = 400, expected(plain.rating("a").elo - plain.rating("b").elo)
    sigma_diff = 400 / math.log(10) / math.sqrt(n * p * (1 - p))
    assert plain.rating("a").error == pytest.approx(1.96 * sigma_diff / 2, rel=0.01)
    # The same 60% score with draws is less noisy, and says so.
    assert large.rating("a").error < 0.92 * plain.rating("a").error


def test_a_many_seat_game_counts_as_one_draw_of_chance():
    assert game_results(["a", "b", "c"], [2, 1, 3], game=7) == [
        Result("a", "b", 0.0, 0.5, 7),
        Result("a", "c", 1.0, 0.5, 7),
        Result("b", "c", 1.0, 0.5, 7),
    ]
    rng = random.Random(5)
    bots = ["a", "b", "c", "d", "e", "f"]
    tables = [(rng.sample(bots, 4), rng.sample([1, 2, 3, 4], 4)) for _ in range(600)]
    keyed = [r for g, (seats, ranks) in enumerate(tables) for r in game_results(seats, ranks, g)]
    # Within a game the pairs go together (a bot that came first won all three of its
    # pairs): counted as independent games they look less noisy than they are, and the
    # model's own covariance, which the results fall back to without a key, overstates it.
    alone = [Result(r.a, r.b, r.score, r.weight, k) for k, r in enumerate(keyed)]
    keyless = [Result(r.a, r.b, r.score, r.weight) for r in keyed]
    error = {
        name: fit(results, bots).rating("a").error
        for name, results in (("keyed", keyed), ("alone", alone), ("keyless", keyless))
    }
    assert error["alone"] < 0.85 * error["keyed"]  # about 0.77 (0.75-0.8 in theory)
    assert error["keyed"] < 0.85 * error["keyless"]  # about 0.76
    # Ratings do not depend on the grouping; two-seat games are whole games with or without.
    assert fit(keyed, bots).rating("a").elo == pytest.approx(fit(keyless, bots).rating("a").elo)
    two = games("a", "b", 30, 10, 20) + games("b", "c", 12, 3, 5)
    named = [Result(r.a, r.b, r.score, r.weight, f"g{k}") for k, r in enumerate(two)]
    assert fit(named, ["a", "b", "c"]) == fit(two, ["a", "b", "c"])


def test_los_uses_the_covariance():
    table = fit(games("a", "b", 60, 0, 40), ["a", "b"])
    a, b = table.rating("a"), table.rating("b")
    # With two bots the ratings are perfectly anti-correlated: var(a - b) = 4 var(a). The
    # bar is t95(99) σ, from 100 games; LOS is the normal approximation.
    sigma_a = a.error / t95(99)
    z = (a.elo - b.elo) / (2 * sigma_a)
    assert table.los("a", "b") == pytest.approx(0.5 * (1 + math.erf(z / math.sqrt(2))), rel=1e-6)
    assert table.los("a", "b") + table.los("b", "a") == pytest.approx(1.0)
    assert table.los("a", "a") == 0.5
    assert 0.97 < table.los("a", "b") < 1.0


def simulate(true_elo: dict[str, float], per_pair: int, seed: int) -> list[Result]:
    """A round robin of two-player games (30% draws) drawn from the logistic model."""
    rng = random.Random(seed)
    names = sorted(true_elo)
    results = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            score = expected(true_elo[a] - true_elo[b])
            draw = min(0.3, 2 * score, 2 * (1 - score))
            win = score - draw / 2
            for _ in range(per_pair):
                r = rng.random()
                results.append(Result(a, b, 1.0 if r < win else 0.5 if r < win + draw else 0.0))
    return results


def test_ratings_recover_known_strengths():
    true_elo = {"w": -160.0, "x": -40.0, "y": 30.0, "z": 170.0}
    mean = sum(true_elo.values()) / len(true_elo)
    covered = checked = 0
    for seed in range(6):
        table = fit(simulate(true_elo, 300, seed), list(true_elo))
        assert table.names() == ["z", "y", "x", "w"]
        assert all(los > 0.95 for los in table.los_neighbours())
        for row in table.ratings:
            checked += 1
            covered += abs(row.elo - (true_elo[row.name] - mean)) <= row.error
    assert covered >= 0.85 * checked


def test_a_bot_with_only_losses_is_finite_and_last():
    results = games("a", "b", 10, 5, 10) + games("c", "a", 0, 0, 8) + games("c", "b", 0, 0, 8)
    table = fit(results, ["a", "b", "c"])
    last = table.ratings[-1]
    assert last.name == "c"
    assert math.isfinite(last.elo) and math.isfinite(last.error)
    assert last.elo < table.ratings[-2].elo - 100
    assert last.score == 0.0


def test_a_bot_without_games_keeps_the_prior():
    table = fit(games("a", "b", 300, 100, 100), ["a", "b", "new"])
    new = table.rating("new")
    assert new.games == 0 and new.score == 0.5
    assert abs(new.elo) < 50 and new.error > 500
    # It does not widen the others' error bars.
    alone = fit(games("a", "b", 300, 100, 100), ["a", "b"])
    assert table.rating("a").elo == pytest.approx(alone.rating("a").elo, abs=1e-6)
    assert table.rating("a").error == pytest.approx(alone.rating("a").error, abs=1e-6)
    assert fit([], ["a", "b"]).rating("a").elo == pytest.approx(0.0, abs=1e-9)


def test_many_seat_games_decompose_into_weighted_pairs():
    assert pairwise_results([1, 1, 3]) == [(0, 1, 0.5), (0, 2, 1.0), (1, 2, 1.0)]
    assert pairwise_results([2, 1]) == [(0, 1, 0.0)]
    assert pairwise_results([1]) == []
    assert len(pairwise_results([1, 2, 3, 4, 5])) == 10
    results = game_results(["a", "b", "c"], [1, 1, 3])
    assert results == [
        Result("a", "b", 0.5, 0.5),
        Result("a", "c", 1.0, 0.5),
        Result("b", "c", 1.0, 0.5),
    ]
    four = game_results(["a", "b", "c", "d"], [4, 1, 2, 3])
    assert all(r.weight == pytest.approx(1 / 3) for r in four)
    table = fit(results + four, ["a", "b", "c", "d"])
    assert {row.name: row.games for row in table.ratings} == {"a": 2, "b": 2, "c": 2, "d": 1}
    # a: 0.5 and 1 at weight 1/2, then three losses at weight 1/3: (0.75 + 0) / 2.
    assert table.rating("a").score == pytest.approx(0.375)
    # The same bot in two seats: the pair between them is left out.
    assert game_results(["a", "a", "b"], [1, 2, 3]) == [
        Result("a", "b", 1.0, 0.5),
        Result("a", "b", 1.0, 0.5),
    ]
    with pytest.raises(ValueError):
        game_results(["a", "b"], [1, 2, 3])


def test_pairwise_table_counts_head_to_head():
    results = games("a", "b", 3, 1, 2) + games("b", "c", 1, 0, 0)
    results += game_results(["a", "b", "c"], [1, 2, 3])
    table = fit(results, ["a", "b", "c"]).pairwise_table()
    assert len(table) == 6
    assert table[("a", "b")] == (pytest.approx(4.5 / 7), 7)
    assert table[("b", "a")] == (pytest.approx(2.5 / 7), 7)
    assert table[("b", "c")] == (1.0, 2)
    assert table[("c", "b")] == (0.0, 2)
    assert table[("a", "c")] == (1.0, 1)
    assert table[("c", "a")] == (0.0, 1)
    assert fit([], ["a", "b"]).pairwise_table() == {("a", "b"): (0.5, 0), ("b", "a"): (0.5, 0)}


BOTS = ["a", "b", "c", "d"]
seat_ranks = st.lists(st.integers(1, 4), min_size=2, max_size=4)
game = st.tuples(st.permutations(BOTS), seat_ranks).map(
    lambda g: game_results(g[0][: len(g[1])], g[1])
)


@settings(max_examples=40, deadline=None)
@given(st.lists(game, min_size=1, max_size=30), st.randoms(use_true_random=False))
def test_the_order_of_games_does_not_matter(played, rng):
    shuffled = list(played)
    rng.shuffle(shuffled)
    first = fit([r for g in played for r in g], BOTS)
    second = fit([r for g in shuffled for r in g], BOTS)
    assert first == second


def test_bad_input_is_refused():
    with pytest.raises(ValueError):
        fit([Result("a", "x", 1.0)], ["a", "b"])
    with pytest.raises(ValueError):
        fit([Result("a", "b", 1.5)], ["a", "b"])
    with pytest.raises(ValueError):
        fit([], ["a", "a"])
    with pytest.raises(ValueError):
        fit([], ["a", "b"], prior_games=0.0)
    with pytest.raises(KeyError):
        fit([], ["a", "b"]).los("a", "x")


def test_error_bars_take_students_t_for_the_draws_of_chance_measured() -> None:
    # The 95% two-sided quantiles of t (tables to 9 digits), at least 3 degrees of freedom.
    known = {3: 3.182446305, 4: 2.776445105, 9: 2.262157163, 29: 2.045229642, 60: 2.000297822}
    for degrees, quantile in known.items():
        assert t95(degrees) == pytest.approx(quantile, abs=1e-9)
    assert t95(61) == pytest.approx(1.999623, abs=1e-6)  # past 60: the series
    assert t95(1000) == pytest.approx(1.962339081, abs=1e-9)
    assert t95(1) == t95(2) == t95(3)
    # Two bots, 10 games: each bar is t with 9 degrees of freedom times σ; 40 games, 39.
    for count, degrees in ((10, 9), (40, 39)):
        few = fit(games("a", "b", count // 2, 0, count // 2), ["a", "b"])
        sigma = math.sqrt(few.covariance[0][0])
        assert few.rating("a").error == pytest.approx(t95(degrees) * sigma, rel=1e-12)
