"""Ratings fitted to all games at once: Bradley–Terry (logistic Elo) maximum likelihood.

Online K-factor Elo depends on the order games finish in; this fit, like Ordo and BayesElo,
does not. Many-seat games are decomposed into weighted pairwise results, a weak prior keeps
every rating finite, and error bars come from a robust (sandwich) covariance that takes each
draw of chance as one: a game, or every rotation of one deal at one table, whose luck
cancels within them. Ratings are relative to the mean of the pool, or to anchors: bots whose
ratings are fixed (as in Ordo). Results are summed per pair of bots with numpy and Newton's
method runs on those sums, so a thousand bots and a million results fit in seconds.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence

import msgspec
import numpy as np
import numpy.typing as npt

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Logistic Elo scale: P(a beats b) = 1 / (1 + 10^((eb - ea) / 400)) = sigmoid((ea - eb) / this)."""

Z95 = 1.96
"""Normal quantile for the 95% error bars and intervals (see `t95` for the bars)."""

MIN_DEGREES = 3
"""The fewest degrees of freedom an error bar's quantile takes (`t95`): a bot with so few
draws of chance has a bar set mostly by the prior, and t with 1 or 2 would blow it up."""

_MAX_NEWTON_STEPS = 500
_STEP_TOLERANCE = 1e-6  # nats (1e-6 is 4e-5 Elo): a full Newton step this small was the last
# A Newton step under this many machine epsilons of its own rounding noise (the size of the
# terms of its bot's gradient, over its information) is noise: lopsided data gets no lower.
_NOISE_STEPS = 1e3 * float(np.finfo(np.float64).eps)
_MAX_STEP = 2.0  # nats: the longest Newton step taken at once (see `_maximise`)
_WARM_UP_SWEEPS = 6

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]


class Result(msgspec.Struct, frozen=True):
    """One pairwise result between bots `a` and `b`, from one game: a's score (1, 0.5 or 0).

    A game with k seats contributes its C(k, 2) pairs, each with weight 1/(k-1) (see
    `game_results`), so every bot's total weight per game is 1. Unweighted, a 6-seat game
    would count as 5 independent games per bot although it is one noisy outcome, and the
    error bars would be too narrow; with the weight, a game is worth one game to each bot.

    `game` names the game the result came from (any int or str unique to it): the results
    of one game rise and fall together, and the error bars count them as one draw of chance.
    Without it (None) a result is taken as a whole two-seat game when its weight is 1; a
    result of weight other than 1 without it is a piece of a many-seat game whose other
    pieces are unknown, and its error bar falls back to the model's (see `fit`).

    `deal` names the deal the game was played on together with the bots at its table (any
    int or str unique to that deal and table): with paired deals each deal is played in
    every rotation of its table's seating, the luck of the deal cancels within them, and
    the error bars count all their results as one draw of chance. Given, it groups the
    results instead of `game`.
    """

    a: str
    b: str
    score: float
    weight: float = 1.0
    game: int | str | None = None
    deal: int | str | None = None


class BotRating(msgspec.Struct, frozen=True):
    """One row of the table: Elo (pool mean 0, or relative to the anchors), 95% half-width
    (0 for an anchor), games played, mean score."""

    name: str
    elo: float
    error: float
    games: int
    score: float


class RatingTable(msgspec.Struct, frozen=True):
    """Fitted ratings, best first, with the covariance needed for likelihoods of superiority.

    `covariance` (Elo², of the mean-centred ratings, or of the ratings relative to the
    anchors; the robust estimate `fit` describes), `pair_points` and `pair_games` are
    indexed in the order of `ratings`. `pair_points[i][j]` is the unweighted sum of the
    pairwise scores of bot i against bot j (one per game they shared), `pair_games[i][j]`
    the number of those games. `anchors` are the fixed ratings by bot name (none: the mean
    of the pool is 0).
    """

    ratings: list[BotRating]
    covariance: list[list[float]]
    pair_points: list[list[float]]
    pair_games: list[list[int]]
    anchors: dict[str, float] = msgspec.field(default_factory=dict)

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


def game_results(
    bots: Sequence[str],
    ranks: Sequence[int],
    game: int | str | None = None,
    deal: int | str | None = None,
) -> list[Result]:
    """One game (bot name and rank per seat) as weighted `Result`s, weight 1/(seats - 1).

    A pair of seats held by the same bot says nothing about its strength and is left out.
    `game`, a key unique to this game (its index or id), is put on every result, so that the
    error bars of a many-seat game count its pairs as one game; `deal`, a key unique to the
    game's deal and table, groups every rotation of the deal as one (see `Result`).
    """
    if len(bots) != len(ranks):
        raise ValueError(f"{len(bots)} bots but {len(ranks)} ranks")
    if len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    return [
        Result(bots[i], bots[j], score, weight, game, deal)
        for i, j, score in pairwise_results(ranks)
        if bots[i] != bots[j]
    ]


def fit(
    results: Iterable[Result],
    bots: Sequence[str],
    *,
    prior_games: float = 1.0,
    anchors: Mapping[str, float] | None = None,
) -> RatingTable:
    """Bradley–Terry maximum likelihood on all results at once (Newton–Raphson).

    The model is P(a beats b) = sigmoid(θa - θb), Elo = θ·400/ln 10; a draw counts as half
    a win for each side, as in Ordo. The prior: every bot also drew `prior_games` virtual
    games against a virtual opponent fixed at rating 0. It keeps a bot with only wins or only
    losses finite, makes the fit unique even when the bots are not all connected by games,
    and is weak (one game's worth by default). Ratings are then shifted so that the mean of
    the real bots that have played is 0 (of all bots if none has). Bots without games are
    left out of that mean, or their unknown ratings would widen every bot's error bar; they
    keep the prior's rating, 0 ± about 680 Elo before the shift.

    `anchors` (Elo by bot name, as Ordo's anchors) fix ratings instead: one anchor is the
    same fit, shifted so that the anchor has its Elo, and every error bar is relative to
    it (its own is 0). Several anchors keep their given differences: they move in the fit
    as one, at their mean Elo, and the others are fitted to them; the bars are relative to
    them. Without anchors the ratings and bars are relative to the mean of the pool.

    Error bars: the robust (sandwich) covariance H⁻¹·V·H⁻¹, where H is the observed Fisher
    information (minus the Hessian of the log-likelihood and prior at the optimum) and V the
    observed spread of the score: the sum over draws of chance of g·gᵀ, g being a draw's
    gradient of the log-likelihood. A draw of chance is a deal (all results of one `deal`
    key together: every rotation of a deal at one table, whose luck cancels within them),
    else a game (all pairs of one `game` key together), else a keyless result of weight 1
    alone. Summing a deal's rotations before the outer product is what makes paired deals
    count: two equal bots that split every deal pair have a near-zero g per deal, where
    game by game each game's residual adds its full square. The model's own covariance H⁻¹
    assumes each pair's outcome is a coin toss; a draw varies less than that, and the pairs
    of one many-seat game are not independent, so H⁻¹ made the 95% bars cover 98-100%; the
    sandwich measures the spread instead. Keyless results of weight other than 1 (pieces of
    unknown many-seat games) put their expected spread, their information, into V, which is
    H⁻¹ for them as before. The prior's virtual games add 1/4 each (the most a game can
    vary), so a bot without games keeps the prior's bar and one whose results are all alike
    (tiny residuals) does not get a falsely narrow one. The covariance is then mapped
    through the centring θ - mean(θ) (or θ less the anchors' level), so each error is
    relative to the mean of the pool (or to the anchors). Each error is t·σ, t the 95%
    quantile of Student's t with k - 1 degrees of freedom (`t95`), k the draws of chance the
    bot was in whose spread V measures (1.96 for a bot with none: its spread is the model's
    or the prior's). `games` per bot is the sum of its result weights, which is the number
    of games when they come from `game_results`.

    Every sum over the results is exact (`_exact_sums`), so the table does not depend on the
    order of the results, not even in the last bit.
    """
    index = {name: i for i, name in enumerate(bots)}
    if len(index) != len(bots):
        raise ValueError("bot names must be unique")
    columns = ResultColumns.of(results, index)
    return fit_columns(columns, bots, prior_games=prior_games, anchors=anchors)


class ResultColumns(msgspec.Struct, frozen=True):
    """Pairwise results as columns: bot indices `a` and `b`, a's score, the weight and the
    draw of chance each belongs to (`group`: a number shared by the results of one deal, or
    of one game; -1: none). What `fit` makes of `Result`s, and what a caller holding a
    million games as arrays (the standings) hands `fit_columns` without making them."""

    a: Ints
    b: Ints
    score: Floats
    weight: Floats
    group: Ints

    @classmethod
    def of(cls, results: Iterable[Result], index: dict[str, int]) -> ResultColumns:
        results = results if isinstance(results, list | tuple) else list(results)
        try:
            a = np.array([index[r.a] for r in results], dtype=np.int64)
            b = np.array([index[r.b] for r in results], dtype=np.int64)
        except KeyError as missing:
            raise ValueError(f"result for unknown bot {missing.args[0]!r}") from None
        return cls(
            a=a,
            b=b,
            score=np.array([r.score for r in results], dtype=np.float64),
            weight=np.array([r.weight for r in results], dtype=np.float64),
            group=_groups(results),
        )


def fit_columns(
    columns: ResultColumns,
    bots: Sequence[str],
    *,
    prior_games: float = 1.0,
    anchors: Mapping[str, float] | None = None,
) -> RatingTable:
    """`fit` of results given as columns (bot indices into `bots`); the same table."""
    if not prior_games > 0.0 or math.isinf(prior_games):
        raise ValueError(f"prior_games must be positive and finite, not {prior_games}")
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    n = len(bots)
    tie = _Tie.of(anchors or {}, bots)
    data = _Data.of(columns, n)
    chance = _Draws.of(data, n)
    pairs = _Pairs.of(data, chance, n)

    theta = _maximise(pairs, prior_games, tie)
    spread, draws = _spread(theta, data, chance, pairs, prior_games)
    return _rating_table(bots, theta, pairs, spread, draws, prior_games, tie)


def _rating_table(
    bots: Sequence[str],
    theta: Floats,
    pairs: _Pairs,
    spread: Floats,
    draws: Ints,
    prior: float,
    tie: _Tie | None,
    inverse: Floats | None = None,
    information: Floats | None = None,
) -> RatingTable:
    """The table of a fit at its optimum `theta`: Elo, the robust error bars from the
    spread V and the draws of chance per bot (`_spread`), scores and the head-to-head sums.
    What `fit_columns` ends with, and what the live fit (arena.league.live_ratings) ends
    with on the sums it keeps, so that both give the same table. `inverse`, if given, is
    the inverse of the information at `theta` (without anchors), already computed, and
    `information` that information.
    """
    n = len(bots)
    bot_weight = _per_bot(n, pairs.i, pairs.weight, pairs.j, pairs.weight)
    bot_points = _per_bot(n, pairs.i, pairs.points_i, pairs.j, pairs.points_j)
    if information is None:
        information = _information(theta, pairs, prior)
    if tie is None:
        played = np.flatnonzero(bot_weight > 0.0)
        pool = played if played.size else np.arange(n)
        cov = _centred(_sandwich(information, spread, inverse), pool)
        mean = float(theta[pool].mean()) if pool.size else 0.0
        elo = (theta - mean) * ELO_PER_NAT
    else:
        cov = tie.relative(_sandwich(tie.matrix(information), tie.matrix(spread)))
        elo = tie.elo(theta)
    score = np.divide(bot_points, bot_weight, out=np.full(n, 0.5), where=bot_weight > 0.0)
    quantile = np.array([t95(int(k) - 1) if k else Z95 for k in draws.tolist()])
    error = quantile * ELO_PER_NAT * np.sqrt(np.maximum(np.diagonal(cov), 0.0))

    order = sorted(range(n), key=lambda i: -elo[i])
    rows = np.array(order, dtype=np.int64)
    points = np.zeros((n, n))
    points[pairs.i, pairs.j] = pairs.raw_i
    points[pairs.j, pairs.i] = pairs.raw_j
    counts = np.zeros((n, n), dtype=np.int64)
    counts[pairs.i, pairs.j] = pairs.games
    counts[pairs.j, pairs.i] = pairs.games
    mesh = np.ix_(rows, rows)
    return RatingTable(
        ratings=[
            BotRating(
                name=bots[i],
                elo=float(elo[i]),
                error=float(error[i]),
                games=round(float(bot_weight[i])),
                score=float(score[i]),
            )
            for i in order
        ],
        covariance=(cov[mesh] * ELO_PER_NAT**2).tolist(),
        pair_points=points[mesh].tolist(),
        pair_games=counts[mesh].tolist(),
        anchors={} if tie is None else {bots[i]: value for i, value in tie.given.items()},
    )


class _Tie(msgspec.Struct, frozen=True):
    """The anchors of a fit: bots whose ratings are fixed, moving in the fit as one.

    The fit runs on m = n - (anchors - 1) coordinates: each bot that is not an anchor has
    its own, and the anchors share one, `level` (bot i's is `group[i]`), anchor k sitting
    `offset[k]` nats from it (its Elo less the anchors' mean Elo, `mean`). With one anchor
    nothing is shared (m = n, offset 0): the fit is the one without anchors, and only the
    frame in which it is shown moves. `given` is each anchor's Elo by bot index, `keep` the
    bot that stands for each coordinate (the first anchor for the level).
    """

    group: Ints
    keep: Ints
    anchors: Ints
    offset: Floats
    level: int
    size: int
    mean: float
    given: dict[int, float]

    @classmethod
    def of(cls, anchors: Mapping[str, float], bots: Sequence[str]) -> _Tie | None:
        if not anchors:
            return None
        index = {name: i for i, name in enumerate(bots)}
        given: dict[int, float] = {}
        for name, value in anchors.items():
            if name not in index:
                raise ValueError(f"anchor for unknown bot {name!r}")
            if not math.isfinite(value):
                raise ValueError(f"an anchor's Elo must be finite, not {value}")
            given[index[name]] = float(value)
        fixed = np.array(sorted(given), dtype=np.int64)
        elo = np.array([given[i] for i in fixed.tolist()])
        mean = float(np.mean(elo))
        shared = np.zeros(len(bots), dtype=bool)
        shared[fixed[1:]] = True  # the first anchor stands for them all
        group = np.cumsum(~shared) - 1
        group[fixed] = group[fixed[0]]
        return cls(
            group=group,
            keep=np.flatnonzero(~shared),
            anchors=fixed,
            offset=(elo - mean) / ELO_PER_NAT,
            level=int(group[fixed[0]]),
            size=len(bots) - fixed.size + 1,
            mean=mean,
            given=given,
        )

    def place(self, theta: Floats) -> Floats:
        """`theta` with the anchors moved to their offsets from their mean level."""
        out = theta.copy()
        out[self.anchors] = float(np.mean(theta[self.anchors] - self.offset)) + self.offset
        return out

    def vector(self, v: Floats) -> Floats:
        """A gradient on the m coordinates: the anchors' entries summed into the level's."""
        return _sum_by(self.group, v, self.size)

    def matrix(self, h: Floats) -> Floats:
        """Mᵀ·h·M, M (n × m) putting each bot on its coordinate: the anchors' rows and
        columns summed into the level's."""
        if self.anchors.size == 1:
            return h
        rows = h[self.keep]
        rows[self.level] = h[self.anchors].sum(axis=0)
        out = rows[:, self.keep]
        out[:, self.level] = rows[:, self.anchors].sum(axis=1)
        return out

    def step(self, reduced: Floats) -> Floats:
        """A step on the m coordinates as a step of every bot (the anchors move together)."""
        out: Floats = reduced[self.group]
        return out

    def relative(self, cov: Floats) -> Floats:
        """Per bot (n × n), the covariance of its rating less the level's, from that of the
        m coordinates: the anchors' rows and columns are 0."""
        v = cov[:, self.level]
        rel: Floats = cov - v[:, None] - v[None, :] + cov[self.level, self.level]
        out: Floats = rel[np.ix_(self.group, self.group)]
        out[self.anchors, :] = 0.0
        out[:, self.anchors] = 0.0
        return out

    def elo(self, theta: Floats) -> Floats:
        """Every bot's Elo relative to the anchors, each anchor at exactly its own."""
        level = float(np.mean(theta[self.anchors] - self.offset))
        elo: Floats = (theta - level) * ELO_PER_NAT + self.mean
        elo[self.anchors] = [self.given[i] for i in self.anchors.tolist()]
        return elo


_ALONE, _PIECE, _TOGETHER = 0, 1, 2
"""How a result enters the spread V (see `_spread`): a draw of chance by itself, a piece of
an unknown many-seat game, or one of the results of a deal or game named by its key."""


class _Data(msgspec.Struct, frozen=True):
    """The results as columns, each pair oriented i < j (j's score is 1 - score).

    `role` is `_ALONE`, `_PIECE` or `_TOGETHER`; `group` numbers the draw of chance of each
    result (-1: none) densely.
    """

    i: Ints
    j: Ints
    score: Floats
    weight: Floats
    role: Ints
    group: Ints

    @classmethod
    def of(cls, columns: ResultColumns, n: int) -> _Data:
        a, b, score, weight = columns.a, columns.b, columns.score, columns.weight
        if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
            outside = (a < 0) | (a >= n) | (b < 0) | (b >= n)
            k = int(np.flatnonzero(outside)[0])
            number = int(a[k] if 0 <= a[k] < n else b[k])
            raise ValueError(f"result for unknown bot number {number}")
        # The checks by extremes first (a NaN makes them fail too), then the culprit.
        if score.size and not (score.min() >= 0.0 and score.max() <= 1.0):
            bad = ~((score >= 0.0) & (score <= 1.0))
            raise ValueError(f"score must be within 0..1, not {score[bad][0]}")
        if weight.size and not (weight.min() >= 0.0 and weight.max() < math.inf):
            bad = ~((weight >= 0.0) & (weight < math.inf))
            raise ValueError(f"weight must be non-negative and finite, not {weight[bad][0]}")
        group = columns.group
        if group.size and group.max() >= group.size:  # numbered sparsely: number them densely
            named = group >= 0
            group = group.copy()
            group[named] = np.unique(group[named], return_inverse=True)[1]
        keep = a != b  # a bot against itself says nothing
        if not keep.all():
            a, b, score, weight, group = a[keep], b[keep], score[keep], weight[keep], group[keep]
        swap = a > b
        keyless = group < 0
        size = np.bincount(group[~keyless] if keyless.any() else group, minlength=1)
        alone = size[np.maximum(group, 0)] == 1
        if keyless.any():
            alone = np.where(keyless, weight == 1.0, alone)
        role = np.where(alone, _ALONE, np.where(keyless, _PIECE, _TOGETHER))
        return cls(
            i=np.minimum(a, b),
            j=np.maximum(a, b),
            score=np.where(swap, 1.0 - score, score),
            weight=weight,
            role=role,
            group=group,
        )


def _groups(results: Sequence[Result]) -> Ints:
    """Each result's draw of chance as a number (-1 for none), numbered in order of first
    appearance: its deal if it has one, else its game (a deal and a game of the same key
    are different draws)."""
    keys: list[tuple[bool, int | str] | None] = [
        (True, r.deal) if r.deal is not None else None if r.game is None else (False, r.game)
        for r in results
    ]
    if keys.count(None) == len(keys):
        return np.full(len(keys), -1, dtype=np.int64)
    named = (key for key in dict.fromkeys(keys) if key is not None)
    numbers: dict[tuple[bool, int | str] | None, int] = {
        key: number for number, key in enumerate(named)
    }
    numbers[None] = -1
    return np.array([numbers[key] for key in keys], dtype=np.int64)


class _Pairs(msgspec.Struct, frozen=True):
    """The results summed per pair of bots i < j that met, pairs in order of i·n + j;
    `of_result` is the position here of the pair of each result alone or piece of an
    unknown game (the results `_spread` takes one by one), in order."""

    n: int
    i: Ints
    j: Ints
    weight: Floats  # total weight
    points_i: Floats  # weighted points of i; of j in points_j
    points_j: Floats
    raw_i: Floats  # unweighted points of i; of j in raw_j
    raw_j: Floats
    games: Ints
    of_result: Ints

    @classmethod
    def of(cls, data: _Data, draws: _Draws, n: int) -> _Pairs:
        """The sums of the draws' sums per pair (`_Draws`), and of the results that are
        not in one (alone, or pieces of unknown games): each exact, so none depends on the
        order of the results."""
        piece = np.flatnonzero(data.role != _TOGETHER)
        key = draws.pair
        weight, points, raw, results = draws.weight, draws.points, draws.raw, draws.results
        if piece.size:
            w, score = data.weight[piece], data.score[piece]
            key = np.concatenate((key, data.i[piece] * n + data.j[piece]))
            weight = np.concatenate((weight, w))
            points = np.concatenate((points, w * score))
            raw = np.concatenate((raw, score))
            results = np.concatenate((results, np.ones(piece.size, dtype=np.int64)))
        games = np.bincount(key, results, minlength=n * n).astype(np.int64)
        met = np.flatnonzero(games)
        position = np.cumsum(games > 0) - 1
        pair = position[key]

        def sums(values: Floats) -> Floats:
            return _exact_sums(pair, values, met.size)

        i, j = np.divmod(met, max(n, 1))
        total, won, raw_won = sums(weight), sums(points), sums(raw)
        count = games[met]
        return cls(
            n=n,
            i=i,
            j=j,
            weight=total,
            points_i=won,
            points_j=np.maximum(total - won, 0.0),
            raw_i=raw_won,
            raw_j=count - raw_won,
            games=count,
            of_result=pair[draws.pair.size :],
        )


def _exact_sums(index: Ints, values: Floats, size: int) -> Floats:
    """out[k] = the sum of values[index == k], the same whatever the order of the values.

    Float addition is not associative, so a plain sum depends on the order of the results.
    Each value is cut into up to three integer parts on a fixed grid, each part small enough
    that any sum of them is an integer under 2^52, exact in float64 in any order; the sums
    are then put together. The grid is 2^-96 of the largest value for a million values (what
    is cut off is far below float64's own rounding of the total). Values on a coarse grid
    (scores of 0, 1/2 and 1) need one part only.
    """
    out = np.zeros(size)
    largest = max(float(values.max()), -float(values.min())) if values.size else 0.0
    if largest == 0.0:
        return out
    bits = 52 - values.size.bit_length()  # per part: a count of parts this wide stays < 2^52
    shift = bits - math.frexp(largest)[1]  # |values|·2^shift < 2^bits
    x = _times_two_to(values.copy(), shift)
    whole = np.empty_like(x)
    for part in range(3):
        np.modf(x, out=(x, whole))  # x keeps the rest, of its sign: both exact
        out += _times_two_to(_sum_by(index, whole, size), -shift - part * bits)
        if not x.any():
            break
        _times_two_to(x, bits)
    return out


def _times_two_to(x: Floats, power: int) -> Floats:
    """x·2^power in place, exact: a multiplication, or np.ldexp where 2^power is no float."""
    if abs(power) < 1000:
        x *= math.ldexp(1.0, power)
    else:
        np.ldexp(x, power, out=x)
    return x


def _per_bot(n: int, i: Ints, x: Floats, j: Ints, y: Floats) -> Floats:
    """Per bot: the sum of x over the pairs where it is i and of y where it is j."""
    return _sum_by(i, x, n) + _sum_by(j, y, n)


def _sum_by(index: Ints, values: Floats, size: int) -> Floats:
    """out[k] = the sum of values[index == k], taken in array order (np.bincount, typed)."""
    return np.asarray(np.bincount(index, values, minlength=size), dtype=np.float64)


def _sigmoids(x: Floats) -> tuple[Floats, Floats]:
    """(σ(x), σ(-x)), σ(x) = 1 / (1 + e^-x): one exponential for both, each accurate near 0."""
    e = np.exp(-np.abs(x))
    big = 1.0 / (1.0 + e)
    small = e * big
    up = x >= 0.0
    return np.where(up, big, small), np.where(up, small, big)


def _log_likelihood(theta: Floats, pairs: _Pairs, prior: float) -> float:
    """Σ over pairs of points_i·log σ(d) + points_j·log σ(-d), d = θi - θj, and the prior's.

    log σ(±d) = min(±d, 0) - log(1 + e^-|d|): one logarithm per pair, no overflow.
    """
    d = theta[pairs.i] - theta[pairs.j]
    soft = np.log1p(np.exp(-np.abs(d)))
    data = (
        pairs.points_i @ np.minimum(d, 0.0)
        - pairs.points_j @ np.maximum(d, 0.0)
        - (pairs.points_i + pairs.points_j) @ soft
    )
    virtual = np.sum(np.abs(theta) + 2.0 * np.log1p(np.exp(-np.abs(theta))))
    return float(data) - 0.5 * prior * float(virtual)


def _information(theta: Floats, pairs: _Pairs, prior: float) -> Floats:
    """Observed Fisher information: minus the Hessian of the log-likelihood (positive definite)."""
    p, q = _sigmoids(theta[pairs.i] - theta[pairs.j])
    t, u = _sigmoids(theta)
    info = _laplacian(pairs.n, pairs.i, pairs.j, pairs.weight * p * q)
    info[np.diag_indices(pairs.n)] += prior * t * u
    return info


def _laplacian(n: int, i: Ints, j: Ints, h: Floats) -> Floats:
    """Σ over pairs of h·(e_i - e_j)(e_i - e_j)ᵀ, as a dense matrix (each pair once)."""
    out = np.zeros((n, n))
    out[i, j] = -h
    out[j, i] = -h
    out[np.diag_indices(n)] = _per_bot(n, i, h, j, h)
    return out


def _maximise(
    pairs: _Pairs, prior: float, tie: _Tie | None = None, start: Floats | None = None
) -> Floats:
    """Newton–Raphson with step halving; the log-likelihood is strictly concave, so it converges.

    It starts from each bot's own score (as if all the others were rated 0), brought closer
    by `_warm_up`, as each step here costs a dense solve, O(n³). Steps are capped at 2 nats
    (350 Elo): where a lopsided result leaves a rating on the flat tail of the sigmoid, the
    curvature is tiny and a full step would fly off. Each bot's gradient is a sum of
    non-negative terms minus others (points_i·σ(-d) - points_j·σ(d)), so its rounding noise
    shrinks with its curvature. It stops after a full step under 1e-6 nats (Newton converges
    quadratically: what is left is about its square, 1e-12) or under the rounding noise of
    its bot's gradient, or when no step improves the log-likelihood.

    With several anchors (`tie`), the fit runs on the anchors' shared level and the other
    bots: the start and the warm-up are moved to the anchors' offsets, and each Newton step
    is solved on those coordinates.

    `start`, given, is where Newton starts instead (a live fit's last solution, warm): no
    warm-up then, as a few Newton steps from there are all it takes.
    """
    n, i, j = pairs.n, pairs.i, pairs.j
    tied = tie if tie is not None and tie.anchors.size > 1 else None
    if start is not None:
        theta = tied.place(start) if tied is not None else start
        current = _log_likelihood(theta, pairs, prior)
    else:
        theta = _first_guess(pairs, prior)
        if tied is not None:
            theta = tied.place(theta)
        current = _log_likelihood(theta, pairs, prior)
        warm = _warm_up(theta, pairs, prior)
        if tied is not None:
            warm = tied.place(warm)
        value = _log_likelihood(warm, pairs, prior)
        if value > current:
            theta, current = warm, value
    for _ in range(_MAX_NEWTON_STEPS):
        p, q = _sigmoids(theta[i] - theta[j])
        t, u = _sigmoids(theta)
        pull = pairs.points_i * q - pairs.points_j * p  # to i's gradient, and minus it to j's
        size = pairs.points_i * q + pairs.points_j * p  # the same terms, in size
        grad = 0.5 * prior * (u - t) + _per_bot(n, i, pull, j, -pull)
        info = _laplacian(n, i, j, pairs.weight * p * q)
        info[np.diag_indices(n)] += prior * t * u
        if tied is not None:
            reduced = np.linalg.solve(tied.matrix(info), tied.vector(grad))
            step = tied.step(reduced.astype(np.float64, copy=False))
        else:
            step = np.linalg.solve(info, grad).astype(np.float64, copy=False)
        longest = float(np.max(np.abs(step), initial=0.0))
        if longest > _MAX_STEP:
            step = step * (_MAX_STEP / longest)
        terms = 0.5 * prior * (u + t) + _per_bot(n, i, size, j, size)
        tolerance = _STEP_TOLERANCE + _NOISE_STEPS * terms / np.diagonal(info)
        slack = 1e-12 * (1.0 + abs(current))  # rounding noise in the log-likelihood
        scale = 1.0
        while True:
            trial: Floats = theta + scale * step
            value = _log_likelihood(trial, pairs, prior)
            if value >= current - slack:
                break
            scale *= 0.5
            if scale < 1e-12:
                return theta  # no step improves: at the optimum up to rounding
        if scale == 1.0 and longest <= _MAX_STEP and np.all(np.abs(step) <= tolerance):
            return trial
        theta, current = trial, max(current, value)
    raise ArithmeticError("rating fit did not converge")


def _first_guess(pairs: _Pairs, prior: float) -> Floats:
    """Each bot's rating from its own score, as if all the others were rated 0 (with the
    prior's virtual games, so that it is finite): where `_maximise` starts."""
    n, i, j = pairs.n, pairs.i, pairs.j
    played = _per_bot(n, i, pairs.weight, j, pairs.weight) + prior
    won = _per_bot(n, i, pairs.points_i, j, pairs.points_j) + 0.5 * prior
    guess: Floats = np.log(won) - np.log(played - won)
    return guess


def _warm_up(theta: Floats, pairs: _Pairs, prior: float) -> Floats:
    """A few sweeps of every bot's own Newton step, the others held still (Jacobi), capped.

    Each is a cheap pass over the pairs, and on a large pool they leave two dense Newton
    steps to take instead of four; `_maximise` keeps them only if they raised the
    log-likelihood (on a lopsided pool they can overshoot).
    """
    n, i, j = pairs.n, pairs.i, pairs.j
    for _ in range(_WARM_UP_SWEEPS):
        p, q = _sigmoids(theta[i] - theta[j])
        t, u = _sigmoids(theta)
        pull = pairs.points_i * q - pairs.points_j * p
        grad = 0.5 * prior * (u - t) + _per_bot(n, i, pull, j, -pull)
        h = pairs.weight * p * q
        curvature = _per_bot(n, i, h, j, h) + prior * t * u
        theta = theta + np.clip(grad / curvature, -_MAX_STEP, _MAX_STEP)
    return theta


def _spread(
    theta: Floats, data: _Data, draws: _Draws, pairs: _Pairs, prior: float
) -> tuple[Floats, Ints]:
    """V: the sum over draws of chance of g·gᵀ, g a draw's gradient of the log-likelihood at
    theta; and per bot, the number of draws whose spread V measures (see `t95`).

    A result alone in its draw adds its residual squared along its pair; the results of a
    named deal or game the outer product of their summed gradient (`_Draws`: summed per
    pair of the draw's bots first); a piece of an unknown game its expected square along
    its pair, its information
    w·p·(1 - p) (a spread the model gives, not one measured: it is not counted); each
    virtual game of the prior 1/4. Every sum is exact (`_exact_sums`), so V does not depend
    on the order of the results either.
    """
    n = pairs.n
    spread = np.zeros((n, n))
    count = draws.count
    single = np.flatnonzero(data.role != _TOGETHER)
    if single.size:
        i, j, weight = data.i[single], data.j[single], data.weight[single]
        p, q = _sigmoids(theta[i] - theta[j])
        alone = data.role[single] == _ALONE
        square = np.where(alone, (weight * (data.score[single] - p)) ** 2, weight * p * q)
        along = _exact_sums(pairs.of_result, square, pairs.i.size)
        spread += _laplacian(n, pairs.i, pairs.j, along)
        count = count + np.bincount(i[alone], minlength=n) + np.bincount(j[alone], minlength=n)
    cells: list[Ints] = []
    terms: list[Floats] = []
    for bots, weight, points in draws.blocks:
        c, t = _draw_terms(theta, bots, weight, points, n)
        cells.append(c)
        terms.append(t)
    if cells:
        upper = _exact_sums(np.concatenate(cells), np.concatenate(terms), n * n).reshape(n, n)
        spread += upper + upper.T - np.diag(np.diagonal(upper))
    spread[np.diag_indices(n)] += 0.25 * prior
    return spread, count


def _draw_terms(
    theta: Floats, bots: Ints, weight: Floats, points: Floats, n: int
) -> tuple[Ints, Floats]:
    """For draws of chance among m bots each (rows of `bots`, increasing), with their
    results summed per pair of slots u < v (`np.triu_indices(m, 1)` order: the weight, and
    the weighted points of the lower bot): the cells (i·n + j, i <= j: each row's diagonal,
    then its pairs) and terms of Σ g·gᵀ, g a draw's gradient at theta (per pair, the
    residual points - weight·p added to the lower bot and taken from the higher). What the
    batch fit and the live fit (arena.league.live_ratings) both sum."""
    m = bots.shape[1]
    u, v = np.triu_indices(m, 1)
    rating = theta[bots]
    p, _ = _sigmoids(rating[:, u] - rating[:, v])
    residual = points - weight * p
    g = np.zeros((bots.shape[0], m))
    for c in range(u.size):
        g[:, u[c]] += residual[:, c]
        g[:, v[c]] -= residual[:, c]
    terms = np.concatenate((g * g, g[:, u] * g[:, v]), axis=1)
    cells = np.concatenate((bots * (n + 1), bots[:, u] * n + bots[:, v]), axis=1)
    return cells.reshape(-1), terms.reshape(-1)


class _Draws(msgspec.Struct, frozen=True):
    """The draws of chance of more than one result (deals or games named by their key),
    each with its results summed per pair of its bots: `blocks` holds, for each
    number m of bots in a draw, the draws' bots (rows, increasing) and per pair of them
    (`np.triu_indices(m, 1)` order) the summed weight and weighted points of the lower bot
    (exact sums); `count` is per bot the number of draws it is in."""

    blocks: list[tuple[Ints, Floats, Floats]]
    count: Ints
    # Per (draw, pair): the pair (i·n + j), the summed weight, weighted points of i,
    # unweighted points of i and number of results (what `_Pairs.of` sums per pair).
    pair: Ints
    weight: Floats
    points: Floats
    raw: Floats
    results: Ints

    @classmethod
    def of(cls, data: _Data, n: int) -> _Draws:
        group, i, j = data.group, data.i, data.j
        w, score = data.weight, data.score
        single = data.role != _TOGETHER
        if single.any():
            chosen = np.flatnonzero(~single)
            group, i, j, w, score = group[chosen], i[chosen], j[chosen], w[chosen], score[chosen]
        if not group.size:
            none, empty = np.zeros(0, dtype=np.int64), np.zeros(0)
            return cls([], np.zeros(n, dtype=np.int64), none, empty, empty, empty, none)
        square = n * n
        key = group * square + i * n + j  # (draw, pair)
        order = _stable_order(key, (int(group.max()) + 1) * square)
        key = key[order]
        first = np.diff(key, prepend=-1) != 0
        cell = np.cumsum(first) - 1
        size = int(first.sum())
        w = w[order]
        score = score[order]
        weight = _exact_sums(cell, w, size)
        points = _exact_sums(cell, w * score, size)
        raw = _exact_sums(cell, score, size)
        results = np.diff(np.append(np.flatnonzero(first), key.size))
        draw, pair = np.divmod(key[first], square)
        low, high = np.divmod(pair, n)
        # Each draw's bots: its (draw, bot) entries, in order.
        member = np.sort(np.concatenate((draw * n + low, draw * n + high)))
        member = member[np.diff(member, prepend=-1) != 0]
        member_draw, member_bot = np.divmod(member, n)
        starts = np.flatnonzero(np.diff(member_draw, prepend=-1))
        sizes = np.diff(np.append(starts, member.size))
        first_member = np.zeros(int(member_draw[-1]) + 1, dtype=np.int64)
        first_member[member_draw[starts]] = starts
        slot_low = np.searchsorted(member, draw * n + low) - first_member[draw]
        slot_high = np.searchsorted(member, draw * n + high) - first_member[draw]
        size_of = np.zeros(first_member.size, dtype=np.int64)
        size_of[member_draw[starts]] = sizes
        row_of = np.zeros(first_member.size, dtype=np.int64)
        blocks: list[tuple[Ints, Floats, Floats]] = []
        for m in np.unique(sizes).tolist():
            these = starts[sizes == m]
            row_of[member_draw[these]] = np.arange(these.size)
            bots = member_bot[these[:, None] + np.arange(m)]
            slot_pair = np.full((m, m), -1, dtype=np.int64)
            u, v = np.triu_indices(m, 1)
            slot_pair[u, v] = np.arange(u.size)
            mine = np.flatnonzero(size_of[draw] == m)
            at = row_of[draw[mine]] * u.size + slot_pair[slot_low[mine], slot_high[mine]]
            block_weight = np.zeros(these.size * u.size)
            block_points = np.zeros(these.size * u.size)
            block_weight[at] = weight[mine]  # one sum per (draw, pair): no two land together
            block_points[at] = points[mine]
            blocks.append(
                (bots, block_weight.reshape(-1, u.size), block_points.reshape(-1, u.size))
            )
        return cls(
            blocks=blocks,
            count=np.bincount(member_bot, minlength=n),
            pair=pair,
            weight=weight,
            points=points,
            raw=raw,
            results=results,
        )


def _stable_order(keys: Ints, bound: int) -> Ints:
    """np.argsort(keys, kind="stable") for keys in 0..bound-1, faster: with each position
    packed into the low digits of its key, numpy's plain sort of int64 does it (argsort of
    a million keys is several times slower)."""
    count = keys.size
    if bound * max(count, 1) >= 2**63:
        return np.argsort(keys, kind="stable")
    packed = np.sort(keys * count + np.arange(count, dtype=np.int64))
    return packed % count


@functools.lru_cache(maxsize=4096)
def t95(degrees: int) -> float:
    """The 95% two-sided quantile of Student's t with `degrees` degrees of freedom (at least
    `MIN_DEGREES`), which each error bar takes instead of the normal 1.96.

    A bot's variance is measured from the spread of its k draws of chance (games or deals),
    so it is itself uncertain, the more so the fewer they are, and z = 1.96 then makes the
    95% bars cover less: a six-seat table playing 10 paired deals covered 91-93%. As
    cluster-robust intervals usually do, each bot's bar takes t with k - 1 degrees of
    freedom (1.98 for 100 draws, 2.05 for 30, 2.26 for 10). Exact for integer degrees up
    to 60 (the closed form of the t distribution function, A&S 26.7.3-4, solved by
    bisection), the Cornish-Fisher series beyond (within 1e-9 there).
    """
    nu = max(degrees, MIN_DEGREES)
    if nu > 60:
        z = 1.959963984540054
        return float(
            z
            + (z**3 + z) / (4 * nu)
            + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * nu**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * nu**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * nu**4)
        )
    low, high = 1.9, 13.0  # t95(3) = 3.18
    for _ in range(60):
        middle = 0.5 * (low + high)
        if _t_within(middle, nu) < 0.95:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def _t_within(t: float, nu: int) -> float:
    """P(|T| <= t) for Student's t with `nu` (a whole number) degrees of freedom."""
    angle = math.atan(t / math.sqrt(nu))
    c = math.cos(angle) ** 2
    term, total = 1.0, 1.0
    if nu % 2:
        for k in range(1, (nu - 1) // 2):
            term *= c * (2 * k) / (2 * k + 1)
            total += term
        inner = angle + (math.sin(angle) * math.cos(angle) * total if nu > 1 else 0.0)
        return 2.0 / math.pi * inner
    for k in range(1, nu // 2):
        term *= c * (2 * k - 1) / (2 * k)
        total += term
    return math.sin(angle) * total


def _sandwich(information: Floats, spread: Floats, inverse: Floats | None = None) -> Floats:
    """H⁻¹·V·H⁻¹, made exactly symmetric (`inverse`: H⁻¹, if the caller has it)."""
    if information.size == 0:
        return information
    h = np.linalg.inv(information).astype(np.float64) if inverse is None else inverse
    cov: Floats = h @ spread @ h
    return 0.5 * (cov + cov.T)


def _centred(cov: Floats, pool: Ints) -> Floats:
    """Covariance of θ - mean(θ over pool): C·Σ·Cᵀ with C = I - 1·mᵀ, m the pool's mean weights."""
    if not pool.size:
        return cov
    v = cov[:, pool].mean(axis=1)
    total = float(v[pool].mean())
    centred: Floats = cov - v[:, None] - v[None, :] + total
    return centred
