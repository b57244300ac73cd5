"""Ratings benchmark: how long the rating fit takes at scale, and whether its error bars hold.

Run it with `bash bench/run ratings`. Two parts:

- speed: `arena.league.ratings.fit` on 1,000,000 results among 100, 400 and 1,000 bots
  (two-seat games, 25% draws, strengths normal with sd 1 nat), and on 1,000,000 results from
  166,666 four-seat games among 1,000 bots, each game keyed (the error bars' grouped path).
  Goal: under 5 s for 1,000 bots. Beside each fit (wall time, and the process's CPU time:
  on a machine others keep busy, the wall time includes waiting for a core), a baseline
  measured in the same run: one pass in Python over the results reading their fields, the
  least any fit of `Result` objects must do; the ratio fit ÷ pass is what to compare
  between machines.
- coverage: 1,000 tournaments per row simulated from known strengths (10 bots, 200 games
  each: a round robin of two-seat games, without and with draws, or random tables of four
  and six seats ranked by Plackett-Luce); the share of bots whose 95% interval holds its
  true rating, with two standard errors (0.44% for 10,000 intervals). Goal: 94-96%. The
  four-seat games are also fitted without their game keys: the bars then fall back to the
  model's inverse Fisher information, which covers more than it should (for contrast).

`--blas-threads N` sets OPENBLAS_NUM_THREADS (and OMP/MKL) before numpy is loaded: on a
busy 2-core machine one BLAS thread can be several times faster than two.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

GOAL_SECONDS = 5.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="*", default=[100, 400, 1000])
    parser.add_argument("--results", type=int, default=1_000_000, help="results per fit")
    parser.add_argument("--repeats", type=int, default=3, help="fits per size (median)")
    parser.add_argument("--tournaments", type=int, default=1000, help="per coverage row")
    parser.add_argument("--blas-threads", type=int, help="BLAS threads (default: numpy's)")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-coverage", action="store_true")
    args = parser.parse_args()
    if args.blas_threads:
        for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = str(args.blas_threads)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    threads = args.blas_threads or "default"
    print(f"{os.cpu_count()} cores, load average {load}, BLAS threads {threads}")
    if not args.skip_speed:
        speed(args.bots, args.results, args.repeats)
    if not args.skip_coverage:
        coverage_table(args.tournaments)


def speed(sizes: list[int], count: int, repeats: int) -> None:
    import numpy as np

    from arena.league.ratings import Result, fit, game_results

    rng = np.random.default_rng(1)
    print(
        f"\nfit of {count:,} results (median of {repeats}; goal < {GOAL_SECONDS:g} s at 1,000 bots)"
    )
    print(
        f"{'bots':>6} {'games':<22} {'fit s':>7} {'min-max':>13} {'cpu s':>7} {'pass s':>7}"
        f" {'fit/pass':>9} {'fit/goal':>9}"
    )
    cases: list[tuple[int, str]] = [(n, "2 seats, 25% draws") for n in sizes]
    if 1000 in sizes:
        cases.append((1000, "4 seats, keyed"))
    for n, kind in cases:
        names = [f"bot{i}" for i in range(n)]
        theta = rng.normal(0.0, 1.0, n)
        if kind.startswith("2"):
            a = rng.integers(0, n, count)
            b = (a + rng.integers(1, n, count)) % n
            p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
            draw = np.minimum(np.minimum(2 * p, 2 * (1 - p)), 0.25)
            u = rng.random(count)
            score = np.where(u < p - draw / 2, 1.0, np.where(u < p + draw / 2, 0.5, 0.0))
            results = [
                Result(names[x], names[y], s)
                for x, y, s in zip(a.tolist(), b.tolist(), score.tolist(), strict=True)
            ]
        else:
            tables = distinct_tables(rng, n, count // 6, 4)
            performance = theta[tables] + rng.gumbel(size=tables.shape)
            ranks = np.argsort(np.argsort(-performance, axis=1), axis=1) + 1
            results = []
            for g, (table, rank) in enumerate(zip(tables.tolist(), ranks.tolist(), strict=True)):
                results += game_results([names[x] for x in table], rank, g)
        fits, cpus, passes = [], [], []
        for _ in range(repeats):
            start = time.perf_counter()
            _ = [(r.a, r.b, r.score, r.weight, r.game) for r in results]
            passes.append(time.perf_counter() - start)
            start, cpu = time.perf_counter(), time.process_time()
            fit(results, names)
            fits.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
        median, one = statistics.median(fits), statistics.median(passes)
        spread = f"{min(fits):.2f}-{max(fits):.2f}"
        print(
            f"{n:>6} {kind:<22} {median:>7.2f} {spread:>13} {statistics.median(cpus):>7.2f}"
            f" {one:>7.2f} {median / one:>9.1f} {median / GOAL_SECONDS:>9.2f}"
        )
        sys.stdout.flush()


def distinct_tables(rng: Any, bots: int, games: int, seats: int) -> Any:
    """`games` rows of `seats` different bots out of `bots`, each row uniformly drawn."""
    import numpy as np

    tables = rng.integers(0, bots, (games, seats))
    while True:
        ordered = np.sort(tables, axis=1)
        clash = (ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        if not clash.any():
            return tables
        tables[clash] = rng.integers(0, bots, (int(clash.sum()), seats))


def coverage_table(count: int) -> None:

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from tests.helpers.rating_sim import BOTS as bots
    from tests.helpers.rating_sim import GAMES_PER_BOT as per_bot
    from tests.helpers.rating_sim import covered

    print(
        f"\ncoverage of the 95% error bars: {count} tournaments per row, {bots} bots,"
        f" {per_bot} games each (goal 94-96%)"
    )
    print(f"{'games':<34} {'coverage':>9} {'± 2 se':>7} {'intervals':>10} {'goal':>5} {'s':>6}")
    rows = [
        ("2 seats, no draws", 2, 0.0, True),
        ("2 seats, draws up to 40%", 2, 0.4, True),
        ("4 seats, keyed", 4, 0.0, True),
        ("6 seats, keyed", 6, 0.0, True),
        ("4 seats, no keys: the model's bars", 4, 0.0, False),
    ]
    for label, seats, draws, keyed in rows:
        seed = seats * 10 + round(draws * 10) + (0 if keyed else 1)
        start = time.perf_counter()
        share = covered(seats, draws, seed, count, keyed) / (count * bots)
        se = math.sqrt(share * (1 - share) / (count * bots))
        met = ("met" if 0.94 <= share <= 0.96 else "no") if keyed else "-"
        print(
            f"{label:<34} {share:>9.2%} {2 * se:>7.2%} {count * bots:>10} {met:>5}"
            f" {time.perf_counter() - start:>6.1f}"
        )
        sys.stdout.flush()


if __name__ == "__main__":
    main()
