"""Schedule benchmark: balanced round-robin tables for a thousand bots, against the goal.

Run it with `bash bench/run schedule`. `round_robin(bots, seats, 1, seed, max_tables=N)`
samples N tables of a field too large to play every table (`balanced_tables`): every bot
at as many tables as any other (give or take one) at every prefix, pairs meeting evenly.

- goal rows: 1,000 bots and 5,000 / 50,000 tables at 2 and 4 seats (`--seats` for more),
  each timed once, whole (tables and their games), wall clock and CPU, beside the goal of
  10 s. Before the fast draw, 5,000 tables took 140 s and 50,000 did not finish in 300 s.
- baseline rows: the draw as it was before (kept below, in this file only, as the
  baseline) against today's, on a size the old one manages (1,000 bots, 200 tables), one
  after the other in the same run (today's: the fastest of five runs, as one takes about
  10 ms); the ratio is old CPU time over new. The two must draw the same tables (a
  resumed tournament derives its fixed schedule again from the seed): the row says so,
  and the benchmark stops if they differ.

CPU time is printed beside wall-clock time: on a shared machine the wall clock also counts
the time other processes held the cores.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

from arena.league.schedule import round_robin
from arena.league.schedule.deals import Table
from arena.league.schedule.tables import SEARCH_LIMIT, _greedy_tables

GOAL = 10.0  # seconds for 1,000 bots and 50,000 tables
T = TypeVar("T")


def timed(run: Callable[..., T], *args: object, **kwargs: object) -> tuple[float, float, T]:
    """Wall-clock and CPU seconds of `run(*args, **kwargs)`, and what it returned."""
    wall, cpu = time.perf_counter(), time.process_time()
    out = run(*args, **kwargs)
    return time.perf_counter() - wall, time.process_time() - cpu, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=1000, help="bots in the field")
    parser.add_argument("--seats", type=int, nargs="+", default=[2, 4], help="table sizes")
    parser.add_argument("--tables", type=int, nargs="+", default=[5000, 50000])
    parser.add_argument("--baseline-tables", type=int, default=200, help="0: no baseline")
    args = parser.parse_args()
    bots = [f"bot{i}" for i in range(args.bots)]
    print(f"balanced round robin, {args.bots} bots, one deal per table; goal: under {GOAL:g} s")
    print(f"{'seats':>5} {'tables':>7} {'wall s':>8} {'cpu s':>7}  goal (< {GOAL:g} s)")
    for seats, tables in itertools.product(args.seats, args.tables):
        wall, cpu, games = timed(round_robin, bots, seats, 1, 7, max_tables=tables)
        assert len(games) == tables * seats
        if wall < GOAL:
            mark = "met"
        elif cpu < GOAL:  # the process waited for the cores
            mark = f"met in CPU time only (a busy machine: wall {wall / cpu:.1f}x cpu)"
        else:
            mark = "NOT met"
        print(f"{seats:>5} {tables:>7} {wall:>8.2f} {cpu:>7.2f}  {mark}")
    if not args.baseline_tables:
        return
    count = args.baseline_tables
    print(f"\nbefore and after, {args.bots} bots, {count} tables, in this run:")
    print(
        f"{'seats':>5} {'before: wall s':>14} {'cpu s':>7} {'after: wall s':>13} {'cpu s':>7}"
        "  ratio (cpu)  same tables"
    )
    for seats in args.seats:
        seed = f"7:{seats}"
        old_wall, old, before = timed(old_greedy_tables, bots, seats, count, seed)
        runs = [timed(_greedy_tables, bots, seats, count, seed) for _ in range(5)]
        new_wall, new, after = min(runs, key=lambda run: run[1])  # the fastest of 5: ~10 ms
        same = before == after
        print(
            f"{seats:>5} {old_wall:>14.2f} {old:>7.2f} {new_wall:>13.3f} {new:>7.3f}"
            f"  {old / new:>11.0f}  {'yes' if same else 'NO'}"
        )
        if not same:
            raise SystemExit("the fast draw drew other tables than the old one")


# -- the draw as it was before the fast draw: the baseline, not used by arena ----------------


def old_greedy_tables(bots: Sequence[str], size: int, count: int, seed: str) -> list[Table]:
    """Tables drawn greedily and seeded, in passes, balanced at every prefix.

    Each next table takes bots with the fewest tables so far (all of them if fewer than
    `size`, topped up from the bots with one more), so appearance counts never differ by
    more than 1. Among the eligible bots it adds, one at a time, the bot that has met the
    bots already chosen least often (ties broken by seeded noise). A table drawn before, or
    one that would leave the rest of the pass (or the next pass) only tables drawn before,
    is passed over for the next best (bounded search, `SEARCH_LIMIT` nodes); only if no
    eligible table is new is a table drawn twice (not seen below half of all subsets).
    """
    n = len(bots)
    rng = random.Random(seed)
    appear = [0] * n
    meet = [[0] * n for _ in range(n)]
    drawn: set[tuple[int, ...]] = set()
    tables: list[Table] = []
    for _ in range(count):
        noise = [rng.random() for _ in range(n)]
        low = min(appear)
        floor = [i for i in range(n) if appear[i] == low]
        members = _OldDraw(n, size, meet, noise, drawn).table(floor)
        drawn.add(members)
        for i in members:
            appear[i] += 1
        for i, j in itertools.combinations(members, 2):
            meet[i][j] += 1
            meet[j][i] += 1
        tables.append(tuple(bots[i] for i in members))
    return tables


class _OldDraw:
    """One table for `balanced_tables`: greedy order, bounded search past dead ends."""

    def __init__(
        self,
        n: int,
        size: int,
        meet: list[list[int]],
        noise: list[float],
        drawn: set[tuple[int, ...]],
    ) -> None:
        self.n, self.size, self.meet, self.noise, self.drawn = n, size, meet, noise, drawn
        self.nodes = 0

    def spend(self) -> bool:
        """Count a search node; False once the budget is spent."""
        self.nodes += 1
        return self.nodes <= SEARCH_LIMIT

    def table(self, floor: list[int]) -> tuple[int, ...]:
        """The best new table from the bots on the floor (topped up if they are too few)."""
        within = len(floor) >= self.size
        chosen = [] if within else floor
        pool = floor if within else [i for i in range(self.n) if i not in set(floor)]
        first: list[tuple[int, ...]] = []  # the greedy choice, new or not
        new: list[tuple[int, ...]] = []  # the first new table, finishable or not

        def search(chosen: list[int], pool: list[int]) -> tuple[int, ...] | None:
            if len(chosen) == self.size:
                members = tuple(sorted(chosen))
                first[:] = first or [members]
                if members in self.drawn:
                    return None
                new[:] = new or [members]
                # the next floor: the rest of this pass, or else the whole next pass
                left = set(floor) - set(members) if within else set()
                left = left or set(range(self.n)) - (set(members) - set(floor))
                return members if self.finishable(left, [members]) else None
            meet = self.meet
            order = sorted(pool, key=lambda i: (sum(meet[i][c] for c in chosen), self.noise[i]))
            rest = list(pool)
            for i in order:
                rest.remove(i)  # siblings and their subtrees skip i: each set is visited once
                found = search([*chosen, i], rest)
                if found is not None:
                    return found
                if not self.spend() or len(rest) < self.size - len(chosen):
                    break
            return None

        found = search(chosen, pool)
        return found or (new or first)[0]

    def finishable(self, left: set[int], extra: list[tuple[int, ...]]) -> bool:
        """Whether the bots `left` on the floor can still sit at new tables this pass."""
        if not left:
            return True
        taken = [*self.drawn, *extra]
        if len(left) < self.size:
            supersets = sum(1 for t in taken if left.issubset(t))
            return math.comb(self.n - len(left), self.size - len(left)) > supersets
        options: Iterable[tuple[int, ...]] = itertools.combinations(sorted(left), self.size)
        if len(left) % self.size == 0:  # a partition: some table holds the first bot
            options = (t for t in options if t[0] == min(left))
        for t in options:
            if not self.spend():
                return True  # out of budget: assume it can
            if (
                t not in self.drawn
                and t not in extra
                and self.finishable(left - set(t), [*extra, t])
            ):
                return True
        return False


if __name__ == "__main__":
    main()
