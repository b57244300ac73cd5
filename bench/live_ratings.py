"""Live ratings benchmark: the ladder's refit times (issue 25, "Ratings").

Run it with `bash bench/run live-ratings` (or `.venv/bin/python bench/live_ratings.py`).
Synthetic games among 1,000 bots: 1,000,000 games of 2 to 6 seats (as many games of each
seat count), each deal played in every rotation of its table as the ladder plays it, ranked
by strength plus the deal's luck plus noise; 7 million pairwise results. It times:

- the batch fit (`fit_columns` on the 7 million results, what `arena leaderboard` runs
  after reading the journal; goal < 10 s);
- the live fit from scratch (`LiveRatings.extend` of every game, then `table()`: a ladder's
  restart; goal < 10 s);
- a refit after a few new games (`--new` games, then `table()`, median of `--refits`;
  goal < 1 s), and how many refits fell back to Newton's method proper;
- and how far the live table is from the batch one on the same games (largest difference
  of Elo, and of an error bar relative to its size).

Beside them, baselines measured in the same run: one numpy pass over the results (summing
their weights per pair of bots, the least any fit of them must read) for the fits, and one
inversion of a 1,000 × 1,000 matrix (`np.linalg.inv`, which every refit does once for the
error bars) for the refit; the ratios are what to compare between machines. Each time is
wall and the process's CPU time: on a machine others keep busy, the wall time includes
waiting for a core.

`--blas-threads N` sets OPENBLAS_NUM_THREADS (and OMP/MKL) before numpy is loaded.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

GOAL_FIT = 10.0
GOAL_REFIT = 1.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--games", type=int, default=1_000_000)
    parser.add_argument("--new", type=int, default=10, help="games added before each refit")
    parser.add_argument("--refits", type=int, default=5, help="refits timed (median)")
    parser.add_argument("--blas-threads", type=int, help="BLAS threads (default: numpy's)")
    parser.add_argument("--skip-batch", action="store_true", help="no batch fit")
    args = parser.parse_args()
    if args.blas_threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.blas_threads)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{os.cpu_count()} cores, load average {load},"
        f" BLAS threads {args.blas_threads or 'default'}"
    )
    run(args.bots, args.games, args.new, args.refits, not args.skip_batch)


class Clock:
    """Wall and CPU seconds of a block."""

    def __enter__(self) -> Clock:
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = time.perf_counter() - self.start
        self.cpu = time.process_time() - self.cpu_start


def fastest(repeats: int, work: Callable[[], object]) -> Clock:
    """The fastest of `repeats` runs of `work()` (a baseline: the least it takes here)."""
    clocks = []
    for _ in range(repeats):
        with Clock() as clock:
            work()
        clocks.append(clock)
    return min(clocks, key=lambda clock: clock.wall)


def run(bots: int, count: int, new: int, refits: int, batch: bool) -> None:
    import numpy as np

    from arena.league.live_ratings import LiveRatings
    from arena.league.ratings import fit_columns

    rng = np.random.default_rng(1)
    names = [f"bot{i}" for i in range(bots)]
    theta = rng.normal(0.0, 1.0, bots)
    seats, seat_bots, ranks, seeds = synthetic(rng, theta, count)
    columns = result_columns(seats, seat_bots, ranks, seeds)
    print(
        f"\n{bots:,} bots, {seats.size:,} games of 2-6 seats (every rotation of each deal),"
        f" {columns.a.size:,} pairwise results"
    )

    passing = fastest(
        3, lambda: np.bincount(columns.a * bots + columns.b, columns.weight, minlength=bots**2)
    )
    spd = rng.random((bots, bots))
    spd = spd @ spd.T + bots * np.eye(bots)
    inverting = fastest(3, lambda: np.linalg.inv(spd))

    rows: list[tuple[str, Clock, Clock, float]] = []
    table = None
    if batch:
        with Clock() as batch_fit:
            table = fit_columns(columns, names)
        rows.append(("batch fit (arena leaderboard)", batch_fit, passing, GOAL_FIT))
    live = LiveRatings(names)
    with Clock() as scratch:
        live.extend(seats, seat_bots, ranks, seeds)
        live_table = live.table()
    rows.append(("live fit from scratch", scratch, passing, GOAL_FIT))
    agreement = ""
    if table is not None:
        by_name = {row.name: row for row in table.ratings}
        elo = max(abs(r.elo - by_name[r.name].elo) for r in live_table.ratings)
        error = max(
            abs(r.error - by_name[r.name].error) / by_name[r.name].error for r in live_table.ratings
        )
        agreement = f"live vs batch: Elo within {elo:.1e}, error bars within {error:.1e} (relative)"

    clocks: list[Clock] = []
    before = live.refits
    next_seed = 2**40
    for _ in range(refits):
        for _ in range(new):
            k = int(rng.integers(2, 7))
            table_bots = rng.choice(bots, k, replace=False)
            live.add([names[b] for b in table_bots], list(rng.permutation(k) + 1), next_seed)
            next_seed += 1
        with Clock() as refit:
            live.table()
        clocks.append(refit)
    median = Clock()
    median.wall = statistics.median(c.wall for c in clocks)
    median.cpu = statistics.median(c.cpu for c in clocks)
    rows.append(
        (f"refit after {new} new games (median of {refits})", median, inverting, GOAL_REFIT)
    )

    print(
        f"\n{'':<44} {'wall s':>7} {'cpu s':>7} {'base s':>7} {'÷ base':>7} {'goal s':>7}"
        f" {'÷ goal':>7}"
    )
    for label, clock, base, goal in rows:
        print(
            f"{label:<44} {clock.wall:>7.2f} {clock.cpu:>7.2f} {base.wall:>7.3f}"
            f" {clock.wall / base.wall:>7.1f} {goal:>7.1f} {clock.wall / goal:>7.2f}"
        )
    print(
        f"\nbaselines: one pass over the results {passing.wall:.3f} s (cpu {passing.cpu:.3f}),"
        f" one inversion of {bots} x {bots} {inverting.wall:.3f} s (cpu {inverting.cpu:.3f})"
    )
    fell_back = refits - (live.refits - before)
    print(f"refits warm from the last solution: {live.refits - before} of {refits}", end="")
    print(f" ({fell_back} fell back)" if fell_back else "")
    if agreement:
        print(agreement)
    sys.stdout.flush()


def synthetic(rng: Any, theta: Any, count: int) -> tuple[Any, Any, Any, Any]:
    """`count` games as the leaderboard holds them (seats per game, then per seat its bot
    and rank, and a seed per game): for each seat count k of 2 to 6, count/5 games, as deals
    of k distinct bots each played in its k rotations (seat r of rotation t holds the bot
    of seat r + t), ranked by strength, the deal's luck for the seat and noise."""
    import numpy as np

    bots = theta.size
    seats, tables, ranks, seeds = [], [], [], []
    first = 0
    for k in range(2, 7):
        deals = count // 5 // k
        table = rng.integers(0, bots, (deals, k))
        while True:
            ordered = np.sort(table, axis=1)
            clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
            if not clash.any():
                break
            table[clash] = rng.integers(0, bots, (int(clash.sum()), k))
        luck = rng.gumbel(size=(deals, k))
        games = np.empty((deals, k, k), dtype=np.int64)  # deal, rotation, seat
        placed = np.empty((deals, k, k), dtype=np.int64)
        for t in range(k):
            seated = np.roll(table, -t, axis=1)
            performance = theta[seated] + luck + rng.gumbel(size=(deals, k))
            games[:, t] = seated
            placed[:, t] = np.argsort(np.argsort(-performance, axis=1), axis=1) + 1
        seats.append(np.full(deals * k, k))
        tables.append(games.reshape(-1))
        ranks.append(placed.reshape(-1))
        seeds.append(np.repeat(np.arange(first, first + deals, dtype=np.uint64), k))
        first += deals
    return tuple(np.concatenate(x) for x in (seats, tables, ranks, seeds))  # type: ignore[return-value]


def result_columns(seats: Any, bots: Any, ranks: Any, seeds: Any) -> Any:
    """The games' pairwise results as the leaderboard makes them for the batch fit (every
    pair of seats, weight 1/(k - 1), the deal's number as the draw of chance)."""
    import numpy as np

    from arena.league.ratings import ResultColumns

    starts = np.cumsum(seats) - seats
    parts: list[Any] = []
    for k in np.unique(seats).tolist():
        chosen = np.flatnonzero(seats == k)
        at = starts[chosen]
        for i in range(k):
            for j in range(i + 1, k):
                mine, theirs = ranks[at + i], ranks[at + j]
                score = np.where(mine < theirs, 1.0, np.where(mine == theirs, 0.5, 0.0))
                parts.append(
                    (
                        bots[at + i],
                        bots[at + j],
                        score,
                        np.full(chosen.size, 1.0 / (k - 1)),
                        seeds[chosen].astype(np.int64),
                    )
                )
    a, b, score, weight, group = (np.concatenate(column) for column in zip(*parts, strict=True))
    return ResultColumns(a, b, score, weight, group)


if __name__ == "__main__":
    main()
