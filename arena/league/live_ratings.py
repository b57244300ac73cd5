"""Ratings kept live: the batch fit of `arena.league.ratings`, refitted as games arrive.

A ladder gets its games one by one and shows a table that must equal `arena leaderboard`'s
on the same games. Refitting from every game each time would read them all again, so
`LiveRatings` keeps what the fit needs and nothing else: per pair of bots the summed
results (what Newton's method runs on), and per draw of chance (every rotation of one deal
at one table, as the leaderboard groups them) its summed results per pair of its bots (what
the robust error bars need: each draw's gradient at the fitted ratings). A new game adds to
those sums; a refit starts from the last solution, converges in steps that reuse the last
fit's inverse information (a matrix-vector product each), and inverts the information once
at the new optimum for the error bars. Its table is the batch fit's, to the solver's
tolerance: the tests hold the ratings within 1e-6 Elo and the error bars within 1e-6 of
their size (tests/league/test_live_ratings.py); they come out within about 1e-11 Elo and
1e-12 of a bar (6e-14 on a million games), though not equal to the last bit, as the live
sums are taken in the order the games came and the batch fit's exactly.

`LiveStandings` is `Standings` (the leaderboard's tallies) with its ratings from a
`LiveRatings` fed the games it tallies, so a ladder's table is `arena leaderboard`'s row by
row, and asking for it again after a few games costs a refit, not a fit.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import numpy.typing as npt

from arena.league.leaderboard import Played, Standings
from arena.league.ratings import (
    _MAX_STEP,
    _NOISE_STEPS,
    _STEP_TOLERANCE,
    Floats,
    Ints,
    RatingTable,
    _draw_terms,
    _first_guess,
    _information,
    _log_likelihood,
    _maximise,
    _Pairs,
    _per_bot,
    _rating_table,
    _sigmoids,
    _sum_by,
    _Tie,
)

_LIVE_TOLERANCE = 1e-12
"""nats: what a refit leaves of the distance to the optimum (or its bot's rounding noise),
as little as the batch fit leaves (its last step is under 1e-6 nats, and what is left after
it about its square)."""

_REUSE_STEPS = 30
"""The most steps a refit takes with the last fit's inverse information before Newton's
method proper takes over (a dense solve a step)."""

_SEED_BITS = (1 << 64) - 1  # deals are told apart by their seed's low 64 bits, as `Standings`

Seeds = npt.NDArray[np.uint64]


class _Block:
    """The draws of chance among m distinct bots: per draw (a row) its bots in increasing
    order, and per pair of them (slots u < v, in `np.triu_indices(m, 1)` order) the summed
    weight and weighted points of the lower bot. Rows are added as new deals come; the
    arrays grow by doubling."""

    def __init__(self, m: int) -> None:
        self.m = m
        self.u, self.v = (np.asarray(x, dtype=np.int64) for x in np.triu_indices(m, 1))
        self.slot_pair = np.full((m, m), -1, dtype=np.int64)
        self.slot_pair[self.u, self.v] = np.arange(self.u.size)
        self.count = 0
        self.bots = np.zeros((0, m), dtype=np.int64)
        self.sums = np.zeros((2, 0, self.u.size))  # weight, points

    def add_rows(self, bots: Ints) -> Ints:
        """Append draws with these bots (rows, increasing); their row numbers."""
        need = self.count + bots.shape[0]
        if need > self.bots.shape[0]:
            size = max(need, 2 * self.bots.shape[0], 64)
            grown = np.zeros((size, self.m), dtype=np.int64)
            grown[: self.count] = self.bots[: self.count]
            self.bots = grown
            sums = np.zeros((2, size, self.u.size))
            sums[:, : self.count] = self.sums[:, : self.count]
            self.sums = sums
        rows = np.arange(self.count, need, dtype=np.int64)
        self.bots[rows] = bots
        self.count = need
        return rows

    def spread(self, theta: Floats, n: int) -> tuple[Ints, Floats]:
        """The cells and terms of Σ over these draws of g·gᵀ (`_draw_terms`, as the batch
        fit sums them)."""
        count = self.count
        return _draw_terms(theta, self.bots[:count], self.sums[0, :count], self.sums[1, :count], n)


class LiveRatings:
    """The rating fit of `arena.league.ratings.fit_columns`, fed one game at a time.

    `add` takes a finished, rated game as the leaderboard takes it: each seat's bot and rank
    (1 = best, ties share) and the deal's seed. Its pairs of seats are results of weight
    1/(seats - 1), as `game_results` makes them, and the games of one seed with the same
    bots at the table (in any seats: the rotations of a deal) are one draw of chance for
    the error bars, as `Standings.deals` numbers them. `extend` takes many games at once as
    columns (a ladder's restart, from its journal). `table()` refits when games came since
    the last fit and gives the `RatingTable` the batch fit gives on the same games.

    `bots` are registered first (in that order, as `Standings` lists them); a bot seen in
    a game is added. `prior_games` and `anchors` are the batch fit's.
    """

    def __init__(
        self,
        bots: Iterable[str] = (),
        *,
        prior_games: float = 1.0,
        anchors: Mapping[str, float] | None = None,
    ) -> None:
        if not prior_games > 0.0 or math.isinf(prior_games):
            raise ValueError(f"prior_games must be positive and finite, not {prior_games}")
        self.names: list[str] = []
        self._index: dict[str, int] = {}
        self.prior = prior_games
        self.anchors = dict(anchors or {})
        self.games = 0  # rated games added
        self.refits = 0  # fits taken warm from the last solution
        # Each deal (seed, then its bots in increasing order) -> its block and row.
        self._deals: dict[tuple[int, ...], tuple[int, int]] = {}
        self._blocks: dict[int, _Block] = {}
        # Per pair of bots i < j (dense, capacity `_cap`): weight, weighted points of i,
        # unweighted points of i, results.
        self._cap = 0
        self._pairs = np.zeros((4, 0, 0))
        self._pending: list[tuple[list[int], list[int], int]] = []
        self._theta: Floats | None = None  # the last fit's ratings (nats), per bot
        self._inverse: Floats | None = None  # the inverse information there
        self._table: RatingTable | None = None
        for name in bots:
            self.bot(name)

    def bot(self, name: str) -> int:
        """The index of a bot in `names`, registered when first seen."""
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = len(self.names)
            self.names.append(name)
            self._table = None
        return index

    def add(self, bots: Sequence[str], ranks: Sequence[int], seed: int) -> None:
        """Count one finished, rated game: each seat's bot and rank, and its deal's seed.
        Cheap: the game waits in a list until the next `table()`."""
        if len(bots) != len(ranks):
            raise ValueError(f"{len(bots)} bots but {len(ranks)} ranks")
        self._pending.append(([self.bot(name) for name in bots], list(ranks), seed))
        self.games += 1
        self._table = None

    def add_game(self, game: Played) -> None:
        """Count a game record or summary as `Standings.add` rates it: one a referee error
        ended is left out; a solo game (one player) cannot be, as solo games are ranked deal
        by deal against each other (ValueError)."""
        for seat in game.seats:
            self.bot(seat.bot)
        if game.error is not None:
            return
        if game.players == 1:
            raise ValueError("solo games are rated deal by deal: use the batch fit")
        self.add([seat.bot for seat in game.seats], game.ranks, game.seed)

    def extend(self, seats: Ints, bots: Ints, ranks: Ints, seeds: Seeds) -> None:
        """Count many rated games at once, as columns: per game its number of seats and its
        seed (its low 64 bits), then per seat, game after game, its bot (an index into
        `names`) and rank."""
        self._flush()
        seats = np.asarray(seats, dtype=np.int64)
        bots = np.asarray(bots, dtype=np.int64)
        ranks = np.asarray(ranks, dtype=np.int64)
        seeds = np.asarray(seeds, dtype=np.uint64)
        if bots.size != int(seats.sum()) or ranks.size != bots.size or seeds.size != seats.size:
            raise ValueError("one seat count and seed per game, one bot and rank per seat")
        if bots.size and (bots.min() < 0 or bots.max() >= len(self.names)):
            raise ValueError("a game names a bot number that is not registered")
        self._extend(seats, bots, ranks, seeds)
        self.games += seats.size
        self._table = None

    def table(self) -> RatingTable:
        """The ratings of every game added so far: the batch fit's table on them (refitted
        if games came since the last call, warm from the last solution)."""
        if self._table is not None:
            return self._table
        self._flush()
        n = len(self.names)
        self._grow(n)
        pairs = self._pair_sums(n)
        tie = _Tie.of(self.anchors, self.names)
        theta, inverse, information = self._solve(pairs, tie)
        spread, draws = self._spread(theta, n)
        self._table = _rating_table(
            self.names, theta, pairs, spread, draws, self.prior, tie, inverse, information
        )
        return self._table

    # The sums.

    def _flush(self) -> None:
        """Count the games `add` left waiting."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        seats = np.array([len(bots) for bots, _, _ in pending], dtype=np.int64)
        bots = np.array([b for game_bots, _, _ in pending for b in game_bots], dtype=np.int64)
        ranks = np.array([r for _, game_ranks, _ in pending for r in game_ranks], dtype=np.int64)
        seeds = np.array([seed & _SEED_BITS for _, _, seed in pending], dtype=np.uint64)
        self._extend(seats, bots, ranks, seeds)

    def _grow(self, n: int) -> None:
        """Room in the pair sums for n bots."""
        if n <= self._cap:
            return
        cap = max(n, 2 * self._cap, 16)
        grown = np.zeros((4, cap, cap))
        grown[:, : self._cap, : self._cap] = self._pairs
        self._pairs, self._cap = grown, cap

    def _extend(self, seats: Ints, bots: Ints, ranks: Ints, seeds: Seeds) -> None:
        self._grow(len(self.names))
        starts = np.cumsum(seats) - seats
        for k in np.unique(seats).tolist():
            if k < 2:
                continue
            chosen = np.flatnonzero(seats == k)
            at = starts[chosen, None] + np.arange(k)
            self._extend_tables(bots[at], ranks[at], seeds[chosen])

    def _extend_tables(self, tables: Ints, ranks: Ints, seeds: Seeds) -> None:
        """Games of k seats: each seat's bot and rank (rows), and their seeds."""
        k = tables.shape[1]
        m_of, row_of = self._deal_rows(np.sort(tables, axis=1), seeds)
        weight = 1.0 / (k - 1)
        cap = self._cap
        for m in np.unique(m_of).tolist():
            if m < 2:
                continue
            block = self._blocks[m]
            chosen = np.flatnonzero(m_of == m)
            rows = row_of[chosen]
            members = block.bots[rows]  # each game's distinct bots, increasing
            table, rank = tables[chosen], ranks[chosen]
            if m == k:  # no bot twice at the table: its seats in the order of its bots
                seat = np.argsort(table, axis=1) + k * np.arange(chosen.size)[:, None]
                ordered = rank.reshape(-1)[seat]
                mine, theirs = ordered[:, block.u], ordered[:, block.v]
                score = (0.5 * np.sign(theirs - mine) + 0.5).reshape(-1)  # the lower bot's
                pair_keys = (members[:, block.u] * cap + members[:, block.v]).reshape(-1)
                cell_keys = (rows[:, None] * block.u.size + np.arange(block.u.size)).reshape(-1)
                self._add_sums(self._pairs, pair_keys, score, weight)
                self._add_sums(block.sums, cell_keys, score, weight)
                continue
            slot = (members[:, None, :] < table[:, :, None]).sum(axis=2)  # each seat's
            first, second = np.triu_indices(k, 1)  # the pairs of seats
            u, v = slot[:, first], slot[:, second]
            mine, theirs = rank[:, first], rank[:, second]
            score = np.where(mine < theirs, 1.0, np.where(mine == theirs, 0.5, 0.0))
            swap = u > v
            low, high = np.where(swap, v, u), np.where(swap, u, v)
            score = np.where(swap, 1.0 - score, score)  # the lower bot's
            lower = np.take_along_axis(members, low, axis=1)
            higher = np.take_along_axis(members, high, axis=1)
            apart = u != v  # a bot against itself says nothing
            pair_keys = (lower * cap + higher)[apart]
            cell_keys = (rows[:, None] * block.u.size + block.slot_pair[low, high])[apart]
            score = score[apart]
            self._add_sums(self._pairs, pair_keys, score, weight)
            self._add_sums(block.sums, cell_keys, score, weight)

    @staticmethod
    def _add_sums(sums: Floats, key: Ints, score: Floats, weight: float) -> None:
        """Add results of one weight (their cells in each of sums[0], sums[1]..., flattened,
        and the lower bot's score) to the weight, weighted points, and if `sums` has rows
        for them, the raw points and result counts."""
        size, rows = sums[0].size, sums.shape[0]
        if key.size > size // 8:
            count = np.bincount(key, minlength=size).astype(np.float64)
            raw = np.bincount(key, score, minlength=size)
            for row, total in enumerate((weight * count, weight * raw, raw, count)[:rows]):
                sums[row].reshape(-1)[:] += total
            return
        for row, values in enumerate((np.full(key.size, weight), weight * score, score)[:rows]):
            np.add.at(sums[row].reshape(-1), key, values)
        if rows > 3:
            np.add.at(sums[3].reshape(-1), key, 1.0)

    def _deal_rows(self, ordered: Ints, seeds: Seeds) -> tuple[Ints, Ints]:
        """Per game (its bots in increasing order, its seed) its draw of chance, as the block
        (its number of distinct bots) and row there; a deal seen first gets a new row."""
        unique, inverse = _unique_rows(np.column_stack((seeds.view(np.int64), ordered)))
        m_of = np.zeros(unique.shape[0], dtype=np.int64)
        row_of = np.zeros(unique.shape[0], dtype=np.int64)
        deals = self._deals
        listed = list(map(tuple, unique.tolist()))
        found = [deals.get(key) for key in listed] if deals else [None] * len(listed)
        new = [d for d, seen in enumerate(found) if seen is None]
        if len(new) < len(listed):
            m_of[:] = [0 if seen is None else seen[0] for seen in found]
            row_of[:] = [0 if seen is None else seen[1] for seen in found]
        if new:
            fresh = np.array(new, dtype=np.int64)
            bots = unique[fresh, 1:]
            repeats = (bots[:, 1:] == bots[:, :-1]).sum(axis=1)
            m_new = bots.shape[1] - repeats
            for m in np.unique(m_new).tolist():
                chosen = fresh[m_new == m]
                if m < 2:  # a bot only against itself: no results, no draw of chance
                    rows = np.zeros(chosen.size, dtype=np.int64)
                else:
                    block = self._blocks.get(m)
                    if block is None:
                        block = self._blocks[m] = _Block(m)
                    held = unique[chosen, 1:]
                    if m < held.shape[1]:
                        held = np.array([sorted(set(r)) for r in held.tolist()], dtype=np.int64)
                    rows = block.add_rows(held)
                m_of[chosen], row_of[chosen] = m, rows
                keys = [listed[d] for d in chosen.tolist()]
                deals.update(zip(keys, [(m, r) for r in rows.tolist()], strict=True))
        return m_of[inverse], row_of[inverse]

    def _pair_sums(self, n: int) -> _Pairs:
        """The sums per pair of bots that met, as the batch fit makes them (`_Pairs.of`)."""
        weight, points, raw, results = (s[:n, :n] for s in self._pairs)
        met = np.flatnonzero(results)
        i, j = np.divmod(met, max(n, 1))
        w, p, r, c = (x.reshape(-1)[met] for x in (weight, points, raw, results))
        return _Pairs(
            n=n,
            i=i,
            j=j,
            weight=w,
            points_i=p,
            points_j=w - p,
            raw_i=r,
            raw_j=c - r,
            games=c.astype(np.int64),
            of_result=np.zeros(0, dtype=np.int64),
        )

    def _spread(self, theta: Floats, n: int) -> tuple[Floats, Ints]:
        """V and the draws per bot, as the batch fit's `_spread` gives them for these games."""
        cells: list[Ints] = []
        terms: list[Floats] = []
        draws = np.zeros(n, dtype=np.int64)
        for block in self._blocks.values():
            if block.count:
                c, t = block.spread(theta, n)
                cells.append(c)
                terms.append(t)
                draws += np.bincount(block.bots[: block.count].ravel(), minlength=n)
        if cells:
            spread = _sum_by(np.concatenate(cells), np.concatenate(terms), n * n).reshape(n, n)
            diagonal = np.diagonal(spread).copy()
            spread += spread.T  # the cells are i <= j: the lower half is 0
            spread[np.diag_indices(n)] = diagonal
        else:
            spread = np.zeros((n, n))
        spread[np.diag_indices(n)] += 0.25 * self.prior
        return spread, draws

    # The fit.

    def _solve(
        self, pairs: _Pairs, tie: _Tie | None
    ) -> tuple[Floats, Floats | None, Floats | None]:
        """The ratings at the optimum, and without anchors the inverse information there and
        the information."""
        start = self._start(pairs)
        if tie is not None:
            theta = _maximise(pairs, self.prior, tie, start)
            self._theta, self._inverse = theta, None
            return theta, None, None
        if start is not None and self._inverse is not None:
            self.refits += 1
            theta = self._reuse(start, pairs, self._extended_inverse(pairs, start))
        else:
            theta = _maximise(pairs, self.prior)
        for _ in range(8):  # Newton proper from there: one step, rarely two
            information = _information(theta, pairs, self.prior)
            inverse = _inverse(information)
            grad, noise = self._gradient(theta, pairs)
            step: Floats = inverse @ grad
            if float(np.max(np.abs(step), initial=0.0)) > _MAX_STEP:
                # Far from the new optimum (many games since, or lopsided ones): a full
                # step could fly off the sigmoid's flat tail; the safeguarded Newton of
                # the batch fit (steps capped, halved until they gain) takes over.
                theta = _maximise(pairs, self.prior, None, theta)
                step = np.full(1, math.inf)
                break
            theta = theta + step
            if np.all(np.abs(step) <= _STEP_TOLERANCE + noise):
                break  # what is left is about the step's square: under 1e-12 nats
        else:
            theta = _maximise(pairs, self.prior, None, theta)
            step = np.full(1, math.inf)
        if not np.all(np.abs(step) <= 1e-10 + noise):  # the inverse where it ends, then
            information = _information(theta, pairs, self.prior)
            inverse = _inverse(information)
        self._theta, self._inverse = theta, inverse
        return theta, inverse, information

    def _start(self, pairs: _Pairs) -> Floats | None:
        """The last solution, with a first guess for the bots that came since (None: no
        solution yet)."""
        if self._theta is None:
            return None
        old = self._theta.size
        if old == pairs.n:
            return self._theta
        guess = _first_guess(pairs, self.prior)
        guess[:old] = self._theta
        return guess

    def _extended_inverse(self, pairs: _Pairs, theta: Floats) -> Floats:
        """The last inverse information, with each new bot's own curvature beside it."""
        assert self._inverse is not None
        old, n = self._inverse.shape[0], pairs.n
        if old == n:
            return self._inverse
        out = np.zeros((n, n))
        out[:old, :old] = self._inverse
        diagonal = np.diagonal(_information(theta, pairs, self.prior))
        out[np.arange(old, n), np.arange(old, n)] = 1.0 / diagonal[old:]
        return out

    def _reuse(self, theta: Floats, pairs: _Pairs, inverse: Floats) -> Floats:
        """Steps with a fixed inverse information (the last fit's): near the last optimum it
        is close to the new one's, so each step gains digits (three or so after a few new
        games among a million) for a matrix-vector product. Stops once what is left (the
        step times its ratio to the one before) is under 1e-12 nats or the rounding noise,
        or when a step is not a fifth of the one before (the information moved too far:
        Newton proper takes over, as it does after a first step that lowers the
        log-likelihood)."""
        last = math.inf
        for steps in range(_REUSE_STEPS):
            grad, noise = self._gradient(theta, pairs)
            step = inverse @ grad
            longest = float(np.max(np.abs(step), initial=0.0))
            if longest > _MAX_STEP or longest > 0.2 * last:
                break
            trial = theta + step
            if steps == 0:
                current = _log_likelihood(theta, pairs, self.prior)
                value = _log_likelihood(trial, pairs, self.prior)
                if value < current - 1e-12 * (1.0 + abs(current)):
                    break
            theta = trial
            left = np.abs(step) * (longest / last)
            if np.all((left <= _LIVE_TOLERANCE) | (np.abs(step) <= noise)):
                break
            last = longest
        return theta

    def _gradient(self, theta: Floats, pairs: _Pairs) -> tuple[Floats, Floats]:
        """The log-likelihood's gradient at theta, and per bot the size of its rounding
        noise in a Newton step (as `_maximise` takes it)."""
        n, i, j, prior = pairs.n, pairs.i, pairs.j, self.prior
        p, q = _sigmoids(theta[i] - theta[j])
        t, u = _sigmoids(theta)
        pull = pairs.points_i * q - pairs.points_j * p
        size = pairs.points_i * q + pairs.points_j * p
        grad = 0.5 * prior * (u - t) + _per_bot(n, i, pull, j, -pull)
        h = pairs.weight * p * q
        curvature = _per_bot(n, i, h, j, h) + prior * t * u
        terms = 0.5 * prior * (u + t) + _per_bot(n, i, size, j, size)
        return grad, _NOISE_STEPS * terms / curvature


def _inverse(information: Floats) -> Floats:
    """The inverse of the information matrix (positive definite, so invertible)."""
    return np.linalg.inv(information).astype(np.float64, copy=False)


def _unique_rows(keys: Ints) -> tuple[Ints, Ints]:
    """The distinct rows of `keys` (in some order), and the number among them of each row:
    `np.unique(keys, axis=0, return_inverse=True)`, by a sort of the columns (lexsort),
    several times faster than numpy's sort of the rows as records."""
    if not keys.shape[0]:
        return keys, np.zeros(0, dtype=np.int64)
    order = np.lexsort(keys.T[::-1])
    ordered = keys[order]
    new = np.r_[True, (ordered[1:] != ordered[:-1]).any(axis=1)]
    inverse = np.empty(keys.shape[0], dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


class LiveStandings(Standings):
    """`Standings` whose ratings come from a `LiveRatings` fed the games it tallies: the
    same leaderboard, and asking for it again after a few games refits instead of fitting
    every game again. The games are handed to the live fit as columns when the ratings are
    asked for (so tallying a journal of a million games costs what `Standings` costs).
    Solo games, and anchors other than the ones given here, take the batch fit."""

    def __init__(
        self, bots: Iterable[str] = (), *, anchors: Mapping[str, float] | None = None
    ) -> None:
        super().__init__(bots)
        self.live = LiveRatings(self.names, anchors=anchors)
        self._fed_games = 0  # rated games handed to the live fit
        self._fed_seats = 0

    def restart(self) -> None:
        """Fit every game again from scratch at the next `ratings` (a refit that failed)."""
        self.live = LiveRatings(self.names, anchors=self.live.anchors)
        self._fed_games = self._fed_seats = 0

    def ratings(self, anchors: Mapping[str, float] | None = None) -> RatingTable:
        if self._solo is not None or dict(anchors or {}) != self.live.anchors:
            return super().ratings(anchors)
        for name in self.names[len(self.live.names) :]:
            self.live.bot(name)
        seats = np.asarray(self._seats[self._fed_games :], dtype=np.int64)
        if seats.size:
            end = self._fed_seats + int(seats.sum())
            self.live.extend(
                seats,
                np.asarray(self._bots[self._fed_seats : end], dtype=np.int64),
                np.asarray(self._ranks[self._fed_seats : end], dtype=np.int64),
                np.frombuffer(self._seeds, dtype=np.uint64)[self._fed_games :],
            )
            self._fed_games, self._fed_seats = len(self._seats), end
        return self.live.table()
