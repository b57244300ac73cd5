"""The numpy rating fit against references computed the plain way: the pure-Python dense
Newton fit it replaced (kept here as it was, to pin the ratings), the likelihood equations
on lopsided data that fit could not solve, and the sandwich covariance summed deal by deal
and game by game, with each bot's t quantile; and a table that does not change by one bit
when the results come in another order."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.league.ratings import (
    ELO_PER_NAT,
    Z95,
    RatingTable,
    Result,
    _exact_sums,
    _stable_order,
    fit,
    game_results,
    t95,
)

# The fit before numpy (arena/league/ratings.py at commit 6b1bae4), trimmed to the ratings
# and their Fisher error bars; the algorithm and its arithmetic are unchanged.


def reference_fit(
    results: Sequence[Result], bots: Sequence[str], prior: float = 1.0
) -> dict[str, tuple[float, float]]:
    """Bot name -> (Elo, 95% error from the inverse Fisher information), as arena had it."""
    index = {name: i for i, name in enumerate(bots)}
    n = len(bots)
    weight_terms: list[list[list[float]]] = [[[] for _ in range(n)] for _ in range(n)]
    point_terms: list[list[list[float]]] = [[[] for _ in range(n)] for _ in range(n)]
    bot_terms: list[list[float]] = [[] for _ in range(n)]
    for r in results:
        if r.a == r.b:
            continue
        a, b = index[r.a], index[r.b]
        for me, other, mine in ((a, b, r.score), (b, a, 1.0 - r.score)):
            weight_terms[me][other].append(r.weight)
            point_terms[me][other].append(r.weight * mine)
            bot_terms[me].append(r.weight)
    weights = [[math.fsum(cell) for cell in row] for row in weight_terms]
    points = [[math.fsum(cell) for cell in row] for row in point_terms]
    pool = [i for i in range(n) if math.fsum(bot_terms[i]) > 0.0] or list(range(n))
    theta = _maximise(weights, points, prior)
    cov = _centred(_inverse(_information(theta, weights, prior)), pool)
    mean = math.fsum(theta[i] for i in pool) / len(pool)
    return {
        bots[i]: ((theta[i] - mean) * ELO_PER_NAT, Z95 * ELO_PER_NAT * math.sqrt(cov[i][i]))
        for i in range(n)
    }


def _log_sigmoid(x: float) -> float:
    if x >= 0.0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _sigmoid(x: float) -> float:
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _log_likelihood(
    theta: list[float], weights: list[list[float]], points: list[list[float]], prior: float
) -> float:
    n = len(theta)
    terms: list[float] = []
    for i in range(n):
        terms.append(0.5 * prior * (_log_sigmoid(theta[i]) + _log_sigmoid(-theta[i])))
        for j in range(i + 1, n):
            if weights[i][j] > 0.0:
                d = theta[i] - theta[j]
                terms.append(points[i][j] * _log_sigmoid(d) + points[j][i] * _log_sigmoid(-d))
    return math.fsum(terms)


def _gradient(
    theta: list[float], weights: list[list[float]], points: list[list[float]], prior: float
) -> list[float]:
    n = len(theta)
    grad = [prior * (0.5 - _sigmoid(t)) for t in theta]
    for i in range(n):
        for j in range(i + 1, n):
            if weights[i][j] > 0.0:
                g = points[i][j] - weights[i][j] * _sigmoid(theta[i] - theta[j])
                grad[i] += g
                grad[j] -= g
    return grad


def _information(theta: list[float], weights: list[list[float]], prior: float) -> list[list[float]]:
    n = len(theta)
    info = [[0.0] * n for _ in range(n)]
    for i in range(n):
        p = _sigmoid(theta[i])
        info[i][i] += prior * p * (1.0 - p)
        for j in range(i + 1, n):
            if weights[i][j] > 0.0:
                p = _sigmoid(theta[i] - theta[j])
                h = weights[i][j] * p * (1.0 - p)
                info[i][i] += h
                info[j][j] += h
                info[i][j] -= h
                info[j][i] -= h
    return info


def _maximise(weights: list[list[float]], points: list[list[float]], prior: float) -> list[float]:
    theta = [0.0] * len(weights)
    current = _log_likelihood(theta, weights, points, prior)
    for _ in range(500):
        step = _solve(_information(theta, weights, prior), _gradient(theta, weights, points, prior))
        if max((abs(s) for s in step), default=0.0) < 1e-10:
            return theta
        slack = 1e-12 * (1.0 + abs(current))
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            value = _log_likelihood(trial, weights, points, prior)
            if value >= current - slack:
                break
            scale *= 0.5
            if scale < 1e-12:
                return theta
        theta, current = trial, max(current, value)
    raise ArithmeticError("rating fit did not converge")


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = a[i][j] - math.fsum(low[i][k] * low[j][k] for k in range(j))
            if i == j:
                if s <= 0.0:
                    raise ArithmeticError("information matrix is not positive definite")
                low[i][i] = math.sqrt(s)
            else:
                low[i][j] = s / low[j][j]
    return low


def _cholesky_solve(low: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - math.fsum(low[i][k] * y[k] for k in range(i))) / low[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - math.fsum(low[k][i] * x[k] for k in range(i + 1, n))) / low[i][i]
    return x


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    return _cholesky_solve(_cholesky(a), b)


def _inverse(a: list[list[float]]) -> list[list[float]]:
    n = len(a)
    low = _cholesky(a)
    columns = [_cholesky_solve(low, [float(i == j) for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def _centred(cov: list[list[float]], pool: list[int]) -> list[list[float]]:
    n = len(cov)
    v = [math.fsum(cov[i][k] for k in pool) / len(pool) for i in range(n)]
    total = math.fsum(v[k] for k in pool) / len(pool)
    return [[cov[i][j] - v[i] - v[j] + total for j in range(n)] for i in range(n)]


# Fixed data sets, each with what the fit must handle.


def two_seat(seed: int, bots: int = 12, games: int = 900, prefix: str = "b") -> list[Result]:
    """Random pairings (some pairs never meet, some often), 25% draws."""
    rng = random.Random(seed)
    names = [f"{prefix}{i}" for i in range(bots)]
    strength = {name: rng.gauss(0.0, 1.0) for name in names}
    out = []
    for _ in range(games):
        a, b = rng.sample(names[: rng.randint(2, bots)], 2)
        p = 1.0 / (1.0 + math.exp(strength[b] - strength[a]))
        r = rng.random()
        out.append(Result(a, b, 0.5 if r < 0.25 else 1.0 if r < 0.25 + 0.75 * p else 0.0))
    return out


def many_seat(seed: int, keyed: bool, games: int = 300) -> list[Result]:
    """Games of 2 to 6 seats among 8 bots, with ties and now and then a bot in two seats."""
    rng = random.Random(seed)
    names = [f"m{i}" for i in range(8)]
    out = []
    for g in range(games):
        seats = [rng.choice(names) for _ in range(rng.randint(2, 6))]
        ranks = [rng.randint(1, len(seats)) for _ in seats]
        out += game_results(seats, ranks, game=g if keyed else None)
    return out


def odd_weights(seed: int) -> list[Result]:
    """Two groups that never meet, any weight and any score within 0..1."""
    rng = random.Random(seed)
    out = []
    for group in ("x", "y"):
        names = [f"{group}{i}" for i in range(4)]
        for _ in range(120):
            a, b = rng.sample(names, 2)
            out.append(Result(a, b, rng.random(), rng.uniform(0.05, 3.0)))
    return out


def test_ratings_equal_the_pure_python_fit_they_replace() -> None:
    cases = [
        (two_seat(1), [f"b{i}" for i in range(12)], 1.0),
        (two_seat(21, 80, 12000), [f"b{i}" for i in range(80)], 1.0),
        (many_seat(2, keyed=False), [f"m{i}" for i in range(8)] + ["idle"], 1.0),
        (many_seat(3, keyed=True) + two_seat(4, 8, 200, "m"), [f"m{i}" for i in range(8)], 1.0),
        (odd_weights(5), [f"{g}{i}" for g in "xy" for i in range(4)], 0.25),
        (
            [Result("a", "b", 1.0)] * 5 + [Result("c", "a", 0.0)] * 3 + [Result("b", "c", 0.5)],
            ["a", "b", "c"],
            2.0,
        ),
    ]
    for results, bots, prior in cases:
        table = fit(results, bots, prior_games=prior)
        reference = reference_fit(results, bots, prior)
        for row in table.ratings:
            assert row.elo == pytest.approx(reference[row.name][0], abs=1e-6), row.name


def test_without_game_keys_many_seat_error_bars_stay_the_model_ones() -> None:
    # Pieces of games whose other pieces are unknown put their information into the spread,
    # so their bars are the inverse Fisher information as before, up to the prior's share.
    results = [r for r in many_seat(6, keyed=False, games=400) if r.weight < 1.0]
    bots = [f"m{i}" for i in range(8)]
    table = fit(results, bots)
    reference = reference_fit(results, bots)
    for row in table.ratings:
        assert row.error == pytest.approx(reference[row.name][1], rel=2e-3)
        assert row.error >= reference[row.name][1]


def theta_of(table: RatingTable, prior: float) -> dict[str, float]:
    """The fit's ratings in nats before centring: at the optimum the prior's gradient terms
    sum to zero (the pairs' cancel), Σ σ(θ) = n/2, which fixes the shift."""
    centred = {row.name: row.elo / ELO_PER_NAT for row in table.ratings}
    low, high = -50.0, 50.0
    for _ in range(200):
        shift = (low + high) / 2
        total = math.fsum(1.0 / (1.0 + math.exp(-(t + shift))) for t in centred.values())
        low, high = (shift, high) if total < len(centred) / 2 else (low, shift)
    return {name: t + (low + high) / 2 for name, t in centred.items()}


def assert_optimal(results: Sequence[Result], table: RatingTable, prior: float) -> None:
    """Every bot's gradient of the log-likelihood is zero, relative to the size of its terms."""
    theta = theta_of(table, prior)
    grad: dict[str, list[float]] = {}
    size: dict[str, list[float]] = {}
    for name, t in theta.items():
        p = 1.0 / (1.0 + math.exp(-t))
        grad[name], size[name] = [prior * (0.5 - p)], [prior * (0.5 + p)]
    for r in results:
        p = 1.0 / (1.0 + math.exp(theta[r.b] - theta[r.a]))
        for name, term in ((r.a, r.weight * (r.score - p)), (r.b, -r.weight * (r.score - p))):
            grad[name].append(term)
            size[name].append(r.weight * (r.score + p + 1.0))
    for name in theta:
        assert abs(math.fsum(grad[name])) <= 1e-8 * math.fsum(size[name]), name


def test_lopsided_results_converge_where_the_old_fit_gave_up() -> None:
    results = [Result("a", "b", 1.0, 1e6), Result("b", "c", 0.5, 10.0)]
    with pytest.raises(ArithmeticError):
        reference_fit(results, ["a", "b", "c"])  # its absolute 1e-10 step was never met
    table = fit(results, ["a", "b", "c"])
    assert table.names() == ["a", "c", "b"]
    assert all(math.isfinite(row.elo) and math.isfinite(row.error) for row in table.ratings)
    assert_optimal(results, table, 1.0)


lopsided = st.builds(
    Result,
    st.sampled_from("abcd"),
    st.sampled_from("abcd"),
    st.one_of(st.sampled_from([0.0, 0.5, 1.0]), st.floats(0.0, 1.0)),
    st.sampled_from([1e-6, 1e-3, 0.2, 1.0, 30.0, 1e4, 1e6, 1e9]),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(lopsided, min_size=1, max_size=12), st.sampled_from([0.1, 1.0, 5.0]))
def test_any_weights_converge_to_the_optimum(results: list[Result], prior: float) -> None:
    table = fit(results, ["a", "b", "c", "d"], prior_games=prior)
    assert all(math.isfinite(row.elo) and math.isfinite(row.error) for row in table.ratings)
    assert_optimal([r for r in results if r.a != r.b], table, prior)


def plain_sandwich(results: Sequence[Result], table: RatingTable, prior: float) -> dict[str, float]:
    """The 95% errors of `fit`'s documented covariance, summed result by result in Python,
    each times its bot's quantile: t95(draws - 1) for the draws of chance (deals, games, or
    keyless whole games) it was in, 1.96 without any."""
    theta = theta_of(table, prior)
    names = list(theta)
    at = {name: k for k, name in enumerate(names)}
    n = len(names)
    info, spread = np.zeros((n, n)), np.zeros((n, n))
    games: dict[object, np.ndarray] = {}
    members: dict[object, set[str]] = {}
    for r in results:
        a, b = at[r.a], at[r.b]
        p = 1.0 / (1.0 + math.exp(theta[r.b] - theta[r.a]))
        d = np.zeros(n)
        d[a], d[b] = 1.0, -1.0
        info += r.weight * p * (1 - p) * np.outer(d, d)
        if r.game is None and r.weight != 1.0:  # a piece of an unknown game: its information
            spread += r.weight * p * (1 - p) * np.outer(d, d)
        else:
            key = object() if r.game is None else ("game", r.game)
            key = key if r.deal is None else ("deal", r.deal)
            games[key] = games.get(key, np.zeros(n)) + r.weight * (r.score - p) * d
            members.setdefault(key, set()).update((r.a, r.b))
    for g in games.values():
        spread += np.outer(g, g)
    for name, k in at.items():
        p = 1.0 / (1.0 + math.exp(-theta[name]))
        info[k, k] += prior * p * (1 - p)
        spread[k, k] += prior / 4
    inverse = np.linalg.inv(info)
    cov = inverse @ spread @ inverse
    centre = np.eye(n) - 1.0 / n
    cov = centre @ cov @ centre.T
    draws = {name: sum(name in bots for bots in members.values()) for name in names}
    return {
        name: (t95(draws[name] - 1) if draws[name] else Z95) * ELO_PER_NAT * math.sqrt(cov[k, k])
        for name, k in at.items()
    }


def paired(seed: int, deals: int = 80) -> list[Result]:
    """Deals of 2 to 4 seats among 8 bots, each played in every rotation of its table (the
    rotations' results keyed by the deal, their games by number), some cut short."""
    rng = random.Random(seed)
    names = [f"m{i}" for i in range(8)]
    out = []
    for deal in range(deals):
        table = rng.sample(names, rng.randint(2, 4))
        for turn in range(rng.randint(1, len(table))):
            seats = table[turn:] + table[:turn]
            ranks = [rng.randint(1, len(seats)) for _ in seats]
            out += game_results(seats, ranks, game=f"{deal}-{turn}", deal=deal)
    return out


def test_error_bars_are_the_sandwich_summed_deal_by_deal_and_game_by_game() -> None:
    results = many_seat(7, keyed=True) + many_seat(8, keyed=False) + two_seat(9, 8, 300, "m")
    results += paired(10)
    results += [Result("m0", "m1", 1.0, game="two-seat, keyed"), Result("m2", "m3", 0.5, 0.4)]
    results = [r for r in results if r.a != r.b]
    bots = [f"m{i}" for i in range(8)]
    table = fit(results, bots)
    plain = plain_sandwich(results, table, 1.0)
    for row in table.ratings:
        assert row.error == pytest.approx(plain[row.name], rel=1e-9), row.name


def test_the_order_of_results_does_not_change_a_bit() -> None:
    # Weights and scores whose float sums depend on the order they are added in.
    rng = random.Random(11)
    results = many_seat(12, keyed=True, games=200)
    results += many_seat(13, keyed=False, games=100)
    results += [
        Result(
            rng.choice("mn") + str(rng.randrange(8)),
            "m" + str(rng.randrange(8)),
            rng.random(),
            rng.choice([0.1, 0.7, 1.0, 1 / 3, 1e-3, 7.3]),
        )
        for _ in range(600)
    ]
    bots = [f"m{i}" for i in range(8)] + [f"n{i}" for i in range(8)]
    first = fit(results, bots)
    for seed in range(3):
        shuffled = list(results)
        random.Random(seed).shuffle(shuffled)
        assert fit(shuffled, bots) == first


def test_the_fast_stable_order_is_argsorts() -> None:
    rng = np.random.default_rng(3)
    keys = rng.integers(0, 50, 1000)
    expected = np.argsort(keys, kind="stable")
    assert np.array_equal(_stable_order(keys, 50), expected)
    assert np.array_equal(_stable_order(keys, 2**62), expected)  # too wide to pack: argsort


@pytest.mark.parametrize("scale", [1e-300, 1e-5, 1.0, 1e6, 1e300])
def test_sums_are_exact_whatever_the_order(scale: float) -> None:
    rng = np.random.default_rng(4)
    values = rng.normal(0.0, 1.0, 5000) * scale
    values[::7] = 0.5 * scale  # a few on a coarse grid among the rest
    index = rng.integers(0, 7, 5000)
    sums = _exact_sums(index, values, 8)
    for k in range(8):
        assert sums[k] == pytest.approx(math.fsum(values[index == k]), rel=1e-15, abs=1e-13 * scale)
    shuffled = rng.permutation(values.size)
    assert np.array_equal(_exact_sums(index[shuffled], values[shuffled], 8), sums)
