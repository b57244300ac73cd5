"""Ratings fitted to all games at once: Bradley–Terry (logistic Elo) maximum likelihood.

Online K-factor Elo depends on the order games finish in; this fit, like Ordo and BayesElo,
does not. Many-seat games are decomposed into weighted pairwise results, a weak prior keeps
every rating finite, and error bars come from the observed Fisher information.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import msgspec

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Logistic Elo scale: P(a beats b) = 1 / (1 + 10^((eb - ea) / 400)) = sigmoid((ea - eb) / this)."""

Z95 = 1.96
"""Normal quantile for the 95% error bars and intervals."""

_MAX_NEWTON_STEPS = 500
_STEP_TOLERANCE = 1e-10  # in natural units (nats); 1e-10 nats is ~4e-9 Elo


class Result(msgspec.Struct, frozen=True):
    """One pairwise result between bots `a` and `b`, from one game: a's score (1, 0.5 or 0).

    A game with k seats contributes its C(k, 2) pairs, each with weight 1/(k-1) (see
    `game_results`), so every bot's total weight per game is 1. Unweighted, a 6-seat game
    would count as 5 independent games per bot although it is one noisy outcome, and the
    error bars would be too narrow; with the weight, a game is worth one game to each bot.
    """

    a: str
    b: str
    score: float
    weight: float = 1.0


class BotRating(msgspec.Struct, frozen=True):
    """One row of the table: Elo (pool mean 0), 95% half-width, games played, mean score."""

    name: str
    elo: float
    error: float
    games: int
    score: float


class RatingTable(msgspec.Struct, frozen=True):
    """Fitted ratings, best first, with the covariance needed for likelihoods of superiority.

    `covariance` (Elo², of the mean-centred ratings), `pair_points` and `pair_games` are
    indexed in the order of `ratings`. `pair_points[i][j]` is the unweighted sum of the
    pairwise scores of bot i against bot j (one per game they shared), `pair_games[i][j]` the
    number of those games.
    """

    ratings: list[BotRating]
    covariance: list[list[float]]
    pair_points: list[list[float]]
    pair_games: list[list[int]]

    def names(self) -> list[str]:
        """Bot names, best first."""
        return [row.name for row in self.ratings]

    def rating(self, name: str) -> BotRating:
        """The row of one bot (KeyError if it is not in the table)."""
        return self.ratings[self._index(name)]

    def los(self, a: str, b: str) -> float:
        """Likelihood of superiority P(elo_a > elo_b), from the normal approximation."""
        i, j = self._index(a), self._index(b)
        if i == j:
            return 0.5
        diff = self.ratings[i].elo - self.ratings[j].elo
        cov = self.covariance
        var = cov[i][i] + cov[j][j] - 2.0 * cov[i][j]
        if var <= 0.0:
            return 0.5 if diff == 0.0 else float(diff > 0.0)
        return normal_cdf(diff / math.sqrt(var))

    def los_neighbours(self) -> list[float]:
        """LOS of each bot over the next one down the table: element i is los(row i, row i+1)."""
        names = self.names()
        return [self.los(names[i], names[i + 1]) for i in range(len(names) - 1)]

    def pairwise_table(self) -> dict[tuple[str, str], tuple[float, int]]:
        """For each ordered pair (a, b), a != b: (a's mean score against b, games between them).

        The score is unweighted (each shared game counts once, whatever its seat count);
        pairs that never met get (0.5, 0), the neutral score, so every pair is present.
        """
        names = self.names()
        table: dict[tuple[str, str], tuple[float, int]] = {}
        for i, a in enumerate(names):
            for j, b in enumerate(names):
                if i == j:
                    continue
                games = self.pair_games[i][j]
                score = self.pair_points[i][j] / games if games else 0.5
                table[(a, b)] = (score, games)
        return table

    def _index(self, name: str) -> int:
        for i, row in enumerate(self.ratings):
            if row.name == name:
                return i
        raise KeyError(name)


def normal_cdf(x: float) -> float:
    """Φ(x), the standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def pairwise_results(ranks: Sequence[int]) -> list[tuple[int, int, float]]:
    """A finished game's ranks per seat (1 = best, ties share) as (i, j, score of i), i < j."""
    out: list[tuple[int, int, float]] = []
    for i in range(len(ranks)):
        for j in range(i + 1, len(ranks)):
            if ranks[i] < ranks[j]:
                score = 1.0
            elif ranks[i] > ranks[j]:
                score = 0.0
            else:
                score = 0.5
            out.append((i, j, score))
    return out


def game_results(bots: Sequence[str], ranks: Sequence[int]) -> list[Result]:
    """One game (bot name and rank per seat) as weighted `Result`s, weight 1/(seats - 1).

    A pair of seats held by the same bot says nothing about its strength and is left out.
    """
    if len(bots) != len(ranks):
        raise ValueError(f"{len(bots)} bots but {len(ranks)} ranks")
    if len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    return [
        Result(bots[i], bots[j], score, weight)
        for i, j, score in pairwise_results(ranks)
        if bots[i] != bots[j]
    ]


def fit(results: Iterable[Result], bots: Sequence[str], *, prior_games: float = 1.0) -> RatingTable:
    """Bradley–Terry maximum likelihood on all results at once (Newton–Raphson).

    The model is P(a beats b) = sigmoid(θa - θb), Elo = θ·400/ln 10; a draw counts as half
    a win for each side, as in Ordo. The prior: every bot also drew `prior_games` virtual
    games against a virtual opponent fixed at rating 0. It keeps a bot with only wins or only
    losses finite, makes the fit unique even when the bots are not all connected by games,
    and is weak (one game's worth by default). Ratings are then shifted so that the mean of
    the real bots that have played is 0 (of all bots if none has). Bots without games are
    left out of that mean, or their unknown ratings would widen every bot's error bar; they
    keep the prior's rating, 0 ± about 680 Elo before the shift.

    Error bars: the covariance of θ is the inverse of the observed Fisher information (minus
    the Hessian of the log-likelihood at the optimum, well defined because the virtual
    opponent anchors the scale); it is then mapped through the centring θ - mean(θ), so each
    error (1.96 σ) is relative to the mean of the pool. `games` per bot is the sum of its result
    weights, which is the number of games when they come from `game_results`.

    Sums are exact (math.fsum), so the table does not depend on the order of the results.
    """
    if not prior_games > 0.0 or math.isinf(prior_games):
        raise ValueError(f"prior_games must be positive and finite, not {prior_games}")
    index = {name: i for i, name in enumerate(bots)}
    if len(index) != len(bots):
        raise ValueError("bot names must be unique")
    n = len(bots)
    data = _Tally(n)
    for result in results:
        for name in (result.a, result.b):
            if name not in index:
                raise ValueError(f"result for unknown bot {name!r}")
        if not 0.0 <= result.score <= 1.0:
            raise ValueError(f"score must be within 0..1, not {result.score}")
        if not 0.0 <= result.weight < math.inf:
            raise ValueError(f"weight must be non-negative and finite, not {result.weight}")
        if result.a != result.b:
            data.add(index[result.a], index[result.b], result.score, result.weight)
    weights, points = data.matrices()

    bot_weight = [math.fsum(w) for w in data.bot_weight]
    played = [i for i in range(n) if bot_weight[i] > 0.0]
    pool = played or list(range(n))
    theta = _maximise(weights, points, prior_games)
    cov = _centred(_inverse(_information(theta, weights, prior_games)), pool)
    mean = math.fsum(theta[i] for i in pool) / len(pool) if pool else 0.0
    elo = [(t - mean) * ELO_PER_NAT for t in theta]

    bot_score = [
        math.fsum(s) / total if total > 0.0 else 0.5
        for s, total in zip(data.bot_points, bot_weight, strict=True)
    ]
    order = sorted(range(n), key=lambda i: -elo[i])
    scale2 = ELO_PER_NAT**2
    return RatingTable(
        ratings=[
            BotRating(
                name=bots[i],
                elo=elo[i],
                error=Z95 * ELO_PER_NAT * math.sqrt(max(cov[i][i], 0.0)),
                games=round(bot_weight[i]),
                score=bot_score[i],
            )
            for i in order
        ],
        covariance=[[cov[i][j] * scale2 for j in order] for i in order],
        pair_points=[[math.fsum(data.raw_points[i][j]) for j in order] for i in order],
        pair_games=[[data.raw_games[i][j] for j in order] for i in order],
    )


class _Tally:
    """Per-pair and per-bot term lists, summed exactly once all results are in."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.weight: list[list[list[float]]] = [[[] for _ in range(n)] for _ in range(n)]
        self.points: list[list[list[float]]] = [[[] for _ in range(n)] for _ in range(n)]
        self.raw_points: list[list[list[float]]] = [[[] for _ in range(n)] for _ in range(n)]
        self.raw_games = [[0] * n for _ in range(n)]
        self.bot_weight: list[list[float]] = [[] for _ in range(n)]
        self.bot_points: list[list[float]] = [[] for _ in range(n)]

    def add(self, a: int, b: int, score: float, weight: float) -> None:
        for me, other, mine in ((a, b, score), (b, a, 1.0 - score)):
            self.weight[me][other].append(weight)
            self.points[me][other].append(weight * mine)
            self.raw_points[me][other].append(mine)
            self.raw_games[me][other] += 1
            self.bot_weight[me].append(weight)
            self.bot_points[me].append(weight * mine)

    def matrices(self) -> tuple[list[list[float]], list[list[float]]]:
        """Total weight W[i][j] of games between i and j, and weighted points S[i][j] of i."""
        weights = [[math.fsum(cell) for cell in row] for row in self.weight]
        points = [[math.fsum(cell) for cell in row] for row in self.points]
        return weights, points


def _log_sigmoid(x: float) -> float:
    """log(1 / (1 + e^-x)) without overflow."""
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
    """Observed Fisher information: minus the Hessian of the log-likelihood (positive definite)."""
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
    """Newton–Raphson with step halving; the log-likelihood is strictly concave, so it converges."""
    theta = [0.0] * len(weights)
    current = _log_likelihood(theta, weights, points, prior)
    for _ in range(_MAX_NEWTON_STEPS):
        step = _solve(_information(theta, weights, prior), _gradient(theta, weights, points, prior))
        if max((abs(s) for s in step), default=0.0) < _STEP_TOLERANCE:
            return theta
        slack = 1e-12 * (1.0 + abs(current))  # rounding noise in the log-likelihood
        scale = 1.0
        while True:
            trial = [t + scale * s for t, s in zip(theta, step, strict=True)]
            value = _log_likelihood(trial, weights, points, prior)
            if value >= current - slack:
                break
            scale *= 0.5
            if scale < 1e-12:
                return theta  # no step improves: at the optimum up to rounding
        theta, current = trial, max(current, value)
    raise ArithmeticError("rating fit did not converge")


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """Lower-triangular L with L·Lᵀ = a, for a symmetric positive definite matrix."""
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
    if n == 0:
        return []
    low = _cholesky(a)
    columns = [_cholesky_solve(low, [float(i == j) for i in range(n)]) for j in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]


def _centred(cov: list[list[float]], pool: list[int]) -> list[list[float]]:
    """Covariance of θ - mean(θ over pool): C·Σ·Cᵀ with C = I - 1·mᵀ, m the pool's mean weights."""
    n = len(cov)
    if not pool:
        return cov
    v = [math.fsum(cov[i][k] for k in pool) / len(pool) for i in range(n)]
    total = math.fsum(v[k] for k in pool) / len(pool)
    return [[cov[i][j] - v[i] - v[j] + total for j in range(n)] for i in range(n)]
