"""Matchmaking benchmark: the time to choose a ladder table, and the games the settled rule saves.

Run it with `bash bench/run matchmaking` (or `.venv/bin/python bench/matchmaking.py`). Two parts:

- speed: `arena.ladder.matchmaking.next_table` among 1,000 active bots (500 authors of two
  bots each, ratings normal with sd 300, games 0-999, tables of 2 and 4 seats), the median
  of many calls; goal under 1 ms. Beside it, measured in the same run, a baseline: the
  least any matchmaker reading those bots must do, one pass over them for the least played
  (`min` by games) and a sort of the rest by rating distance from it. The ratio is what to
  compare between machines.
- games to the top 20: 500 bots (one author each) of known strengths (Elo normal with sd
  `--sd`, seeded), tables of 4 seats chosen by `next_table`, each deal's 4 rotations
  played as 4 games drawn from the model (Plackett-Luce on the true strengths: no bot
  processes). Every `--refit` tables (or 2% of the tables so far, if more) the ratings are
  fitted again and the bots' weights set from `settled`. The top 20 are identified once
  every bot is settled against the line under place 20 (each of the fitted top 20 at 95%
  LOS over the fitted 21st, the 21st and below under the fitted 20th) and the fitted top
  20 are the true top 20. Arms: "fewest games first" (every weight 1: the seed is the
  least played bot, as in Halite II), the rule with the line at 20 (settled bots weigh
  `--settled-weight`), and the rule with every place a line (the ladder's default, which
  knows nothing of a top 20). Printed: games to identify the top 20 (or the budget, if not
  found), and each arm's games against fewest-first's over the fields where fewest-first
  found the top: the ratio of the totals, and the geometric mean of the fields' ratios.
  One field's count is noisy: the line is looked at after every fit, and a lucky streak
  settles it early now and then (right or not: a wrong top does not count as found), so
  compare totals over several fields. A field whose true gap at the line is a few Elo
  needs millions of games by any rule (`--budget`).

The fit in the simulation is Bradley-Terry maximum likelihood on the pair sums with the
same weak prior as `arena.league.ratings.fit` (one virtual draw against 0), warm-started by
Newton's method, with the model's covariance (the inverse information, centred on the pool
mean): the games are drawn from the model itself, without the luck of a deal, so the
model's covariance is right for them, and the sandwich of the project's fit (seconds per
fit at 500 bots) would only make the run long. Both arms use the same fit.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import time
from collections.abc import Callable

for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")  # before numpy: one BLAS thread is faster on 2 busy cores

import msgspec  # noqa: E402
import numpy as np  # noqa: E402
import numpy.typing as npt  # noqa: E402

from arena.games.text import counted  # noqa: E402
from arena.ladder.matchmaking import (  # noqa: E402
    SETTLED_SHARE,
    Entrant,
    next_table,
    settled,
    weights,
)
from arena.league.ratings import ELO_PER_NAT, BotRating, RatingTable  # noqa: E402

GOAL_MS = 1.0
Floats = npt.NDArray[np.float64]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000, help="timed table choices")
    parser.add_argument("--bots", type=int, default=500, help="bots in the simulation")
    parser.add_argument("--top", type=int, default=20, help="the places to identify")
    parser.add_argument("--sd", type=float, default=1000.0, help="sd of the true Elo")
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3], help="fields")
    parser.add_argument("--refit", type=int, default=100, help="tables between fits")
    parser.add_argument("--budget", type=int, default=600_000, help="games per arm at most")
    parser.add_argument("--settled-weight", type=float, default=SETTLED_SHARE)
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-simulation", action="store_true")
    args = parser.parse_args()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{os.cpu_count()} cores, load average {load}")
    if not args.skip_speed:
        speed(args.calls)
    if not args.skip_simulation:
        simulation(args)


# -- speed ----------------------------------------------------------------------------------


def table_times(calls: int) -> tuple[tuple[float, float], tuple[float, float]]:
    """The median wall-clock and CPU time (ms) of `next_table` among 1,000 bots, and of the
    one-pass baseline (min by games, a sort by rating distance)."""
    rng = random.Random(7)
    bots = [
        Entrant(f"bot{i}", f"author{i // 2}", rng.randrange(1000), rng.gauss(0.0, 300.0), 40.0)
        for i in range(1000)
    ]
    seats = {2: 1.0, 4: 1.0}

    def choose() -> None:
        next_table(bots, seats, rng)

    def baseline() -> None:
        seed = min(bots, key=lambda bot: bot.games)
        centre = seed.rating or 0.0
        sorted(bots, key=lambda bot: abs((bot.rating or 0.0) - centre))

    ours, base = _median_times([choose, baseline], calls)
    return ours, base


def speed(calls: int) -> None:
    """The median time of `next_table` among 1,000 bots, beside the one-pass baseline."""
    (ours, ours_cpu), (base, base_cpu) = table_times(calls)
    mark = "met" if ours < GOAL_MS else ("met in CPU time" if ours_cpu < GOAL_MS else "NOT met")
    print(f"\nchoosing a table among 1,000 active bots (2 and 4 seats), median of {calls} calls:")
    print(f"  {'':<11} {'wall ms':>8} {'cpu ms':>8}")
    print(f"  next_table  {ours:8.3f} {ours_cpu:8.3f}   goal < {GOAL_MS:g} ms: {mark}")
    print(f"  baseline    {base:8.3f} {base_cpu:8.3f}   (min by games, sort by rating distance)")
    print(f"  ratio       {ours / base:8.2f} {ours_cpu / base_cpu:8.2f}")


def _median_times(runs: list[Callable[[], None]], calls: int) -> list[tuple[float, float]]:
    """Each run's median wall-clock and CPU time in ms over `calls` calls, the runs
    interleaved in batches so that a busy machine slows them alike (the CPU time leaves
    out the time other processes held the cores)."""
    times: list[list[tuple[float, float]]] = [[] for _ in runs]
    batch = 50
    for _ in range(max(1, calls // batch)):
        for k, run in enumerate(runs):
            wall, cpu = time.perf_counter(), time.process_time()
            for _ in range(batch):
                run()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            times[k].append((wall / batch * 1e3, cpu / batch * 1e3))
    return [(statistics.median(w for w, _ in t), statistics.median(c for _, c in t)) for t in times]


# -- the simulation -------------------------------------------------------------------------


class Fit:
    """Bradley-Terry on pair sums, warm-started: the simulation's stand-in for the batch fit
    (the same model and prior; the model's covariance, which is right for games drawn from
    the model)."""

    def __init__(self, n: int, prior: float = 1.0) -> None:
        self.n, self.prior = n, prior
        self.wins = np.zeros((n, n))  # weighted points of i against j
        self.games = np.zeros((n, n))  # weighted games between i and j
        self.theta = np.zeros(n)

    def add(self, ranks: list[int], bots: list[int]) -> None:
        """One game: the bots' finishing order (ranks[k] of bots[k], lower is better)."""
        k = len(bots)
        w = 1.0 / (k - 1)
        for x in range(k):
            for y in range(x + 1, k):
                i, j = bots[x], bots[y]
                self.games[i, j] += w
                self.games[j, i] += w
                if ranks[x] < ranks[y]:
                    self.wins[i, j] += w
                else:
                    self.wins[j, i] += w

    def table(self, names: list[str]) -> RatingTable:
        """Ratings and centred covariance (Elo) as a `RatingTable`, best first."""
        n, prior = self.n, self.prior
        theta = self.theta
        points = self.wins.sum(axis=1)
        for _ in range(50):
            diff = theta[:, None] - theta[None, :]
            p = 1.0 / (1.0 + np.exp(-diff))
            q = 1.0 / (1.0 + np.exp(theta))  # the prior's opponent at 0: P(0 beats i)
            grad = points - (self.games * p).sum(axis=1) + prior * (0.5 - (1.0 - q))
            h = self.games * p * (1.0 - p)
            info = np.diag(h.sum(axis=1) + prior * q * (1.0 - q)) - h
            step = np.linalg.solve(info, grad)
            step = np.clip(step, -2.0, 2.0)
            theta = theta + step
            if np.abs(step).max() < 1e-6:
                break
        self.theta = theta
        diff = theta[:, None] - theta[None, :]
        p = 1.0 / (1.0 + np.exp(-diff))
        q = 1.0 / (1.0 + np.exp(theta))
        h = self.games * p * (1.0 - p)
        info = np.diag(h.sum(axis=1) + prior * q * (1.0 - q)) - h
        centre = np.eye(n) - 1.0 / n
        cov = centre @ np.linalg.inv(info) @ centre * ELO_PER_NAT**2
        elo = (theta - theta.mean()) * ELO_PER_NAT
        order = np.argsort(-elo, kind="stable")
        error = 1.96 * np.sqrt(np.maximum(np.diagonal(cov), 0.0))
        played = self.games.sum(axis=1)
        rows = [
            BotRating(names[i], float(elo[i]), float(error[i]), round(float(played[i])), 0.5)
            for i in order
        ]
        return RatingTable(
            ratings=rows,
            covariance=cov[np.ix_(order, order)].tolist(),
            pair_points=[],
            pair_games=[],
        )


def identified(table: RatingTable, top: int, truth: set[str]) -> tuple[bool, bool]:
    """Whether the line under place `top` is settled for every bot, and whether the fitted
    top `top` are then the true ones."""
    done = all(settled(table, places=[top]).values())
    return done, {row.name for row in table.ratings[:top]} == truth


def run_arm(
    strengths: Floats, top: int, arm: str, refit: int, budget: int, weight: float, seed: int
) -> tuple[int, int]:
    """Games played until the top `top` are identified (or `budget`), and how many fits
    before had settled the line on a wrong top (sequential looks at 95% do, now and then)."""
    n = len(strengths)
    names = [f"bot{i}" for i in range(n)]
    index = {name: i for i, name in enumerate(names)}
    truth = {names[i] for i in np.argsort(-strengths)[:top]}
    rng = random.Random(seed)
    noise = np.random.default_rng(seed)
    bots = [Entrant(name, f"author{i}") for i, name in enumerate(names)]
    fit = Fit(n)
    theta = strengths / ELO_PER_NAT
    games = tables = last = wrong = 0
    while games < budget:
        table = next_table(bots, 4, rng)
        members = [index[b] for b in table.bots]
        for _ in table.games:  # every rotation: the model has no seats, so one game each
            gumbel = noise.gumbel(size=len(members))
            score = theta[members] + gumbel  # Plackett-Luce: the order of these
            ranks = np.argsort(np.argsort(-score)).tolist()
            fit.add(ranks, members)
            games += 1
        for i in members:
            bots[i] = msgspec.structs.replace(bots[i], games=bots[i].games + len(table.games))
        tables += 1
        if tables < last + max(refit, tables // 50):  # fits every `refit` tables, or 2%
            continue
        last = tables
        rating = fit.table(names)
        done, right = identified(rating, top, truth)
        if done and right:
            return games, wrong
        wrong += done  # settled on a wrong top: not identified, play on
        if arm == "fewest":
            weight_of = dict.fromkeys(names, 1.0)
        elif arm == "line":
            weight_of = weights(settled(rating, places=[top]), weight)
        else:
            weight_of = weights(settled(rating), weight)
        rows = {row.name: row for row in rating.ratings}
        bots = [
            msgspec.structs.replace(
                bot, rating=rows[bot.id].elo, error=rows[bot.id].error, weight=weight_of[bot.id]
            )
            for bot in bots
        ]
    return games, wrong


def simulation(args: argparse.Namespace) -> None:
    """Games to identify the top 20 of 500, per arm and field, and the ratios."""
    arms = [
        ("fewest", "fewest games first"),
        ("line", f"settled rule, line under place {args.top}"),
        ("places", "settled rule, every place a line"),
    ]
    print(
        f"\ngames to identify the top {args.top} of {args.bots} (4-seat tables, every deal in "
        f"4 rotations; Elo sd {args.sd:g}; refit every {args.refit} tables or 2%; settled weight "
        f"{args.settled_weight:g}; budget {args.budget:,} games):"
    )
    found: dict[str, list[int]] = {arm: [] for arm, _ in arms}
    for seed in args.seeds:
        strengths = np.random.default_rng(seed).normal(0.0, args.sd, args.bots)
        ranked = np.sort(strengths)[::-1]
        gap = ranked[args.top - 1] - ranked[args.top]
        print(
            f"  field {seed}: true gap between places {args.top} and {args.top + 1}: {gap:.1f} Elo",
            flush=True,
        )
        for arm, label in arms:
            start = time.perf_counter()
            games, wrong = run_arm(
                strengths, args.top, arm, args.refit, args.budget, args.settled_weight, seed
            )
            found[arm].append(games)
            took = time.perf_counter() - start
            verdict = "not found" if games >= args.budget else "found"
            if wrong:
                verdict += f", settled wrong at {counted(wrong, 'earlier fit')}"
            print(f"    {label:<40} {games:>10,} games  {verdict} ({took:.0f} s)", flush=True)
    base = found["fewest"]
    kept = [k for k, games in enumerate(base) if games < args.budget]  # fewest-first found it
    if not kept:
        print("  fewest-first found the top in no field within the budget: no ratio")
        return
    print(
        f"  games against fewest-first, over the {counted(len(kept), 'field')} where "
        "fewest-first found the top (< 1 is fewer; an arm out of budget counts the budget):"
    )
    print(f"    {'':<40} {'total':>7} {'geo mean':>9}  per field")
    for arm, label in arms[1:]:
        ratios = [found[arm][k] / base[k] for k in kept]
        total = sum(found[arm][k] for k in kept) / sum(base[k] for k in kept)
        mean = math.exp(statistics.fmean(math.log(r) for r in ratios))
        each = ", ".join(f"{r:.2f}" for r in ratios)
        print(f"    {label:<40} {total:>7.2f} {mean:>9.2f}  {each}")


if __name__ == "__main__":
    main()
