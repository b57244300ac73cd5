"""Fixed schedules: round robin and gauntlet, every table of the field or a balanced sample."""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Sequence

from arena.league.schedule.deals import Game, Table, check_field, table_games

#: nodes a table or pairing search may visit before it settles for the best found so far
SEARCH_LIMIT = 50_000


def balanced_tables(bots: Sequence[str], size: int, count: int, seed: str) -> list[Table]:
    """`count` distinct tables of `size` bots, each bot at (nearly) as many tables as any other.

    Appearance counts differ by at most 1. Up to half of all subsets, the tables are drawn
    greedily in passes (`_greedy_tables`), so the balance holds at every prefix of the list
    too and pairs of bots meet about equally often. Beyond half, the tables left out are
    drawn that way instead and the rest are returned in seeded order (balanced in total).
    Members keep the order of `bots`.
    """
    n = len(bots)
    if not 1 <= size <= n:
        raise ValueError(f"a table of {size} cannot be drawn from {n} bots")
    total = math.comb(n, size)
    if not 0 <= count <= total:
        raise ValueError(f"{count} distinct tables of {size} cannot be drawn from {n} bots")
    if 2 * count <= total:
        return _greedy_tables(bots, size, count, seed)
    left_out = set(_greedy_tables(bots, size, total - count, seed))
    tables = [t for t in itertools.combinations(bots, size) if t not in left_out]
    random.Random(seed).shuffle(tables)
    return tables


def _greedy_tables(bots: Sequence[str], size: int, count: int, seed: str) -> list[Table]:
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
        members = _Draw(n, size, meet, noise, drawn).table(floor)
        drawn.add(members)
        for i in members:
            appear[i] += 1
        for i, j in itertools.combinations(members, 2):
            meet[i][j] += 1
            meet[j][i] += 1
        tables.append(tuple(bots[i] for i in members))
    return tables


class _Draw:
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


def _tables(bots: Sequence[str], size: int, max_tables: int | None, seed: str) -> list[Table]:
    """Every `size`-subset of `bots` in seeded order, or a balanced sample of `max_tables`."""
    if max_tables is not None and max_tables < 1:
        raise ValueError(f"max_tables must be at least 1, not {max_tables}")
    if max_tables is not None and math.comb(len(bots), size) > max_tables:
        return balanced_tables(bots, size, max_tables, seed)
    tables = list(itertools.combinations(bots, size))
    random.Random(seed).shuffle(tables)
    return tables


def round_robin(
    bots: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    max_tables: int | None = None,
    book: Sequence[int] = (),
) -> list[Game]:
    """Every `seats`-subset of `bots` plays `deals` deals, each deal in all `seats` rotations.

    When there are more subsets than `max_tables`, `max_tables` tables are drawn by
    `balanced_tables` instead: every bot sits at (nearly) as many tables as every other
    (counts differ by at most 1) and pairs meet about equally often. Tables are numbered in
    seeded order (shuffled, or in the order drawn) and played interleaved (`table_games`).
    """
    check_field(bots, seats, deals)
    tables = _tables(bots, seats, max_tables, f"{seed}:round-robin")
    return table_games(tables, deals, seed, "round-robin", book=book)


def gauntlet(
    challenger: str,
    field: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    max_tables: int | None = None,
    book: Sequence[int] = (),
) -> list[Game]:
    """The challenger at a table with every (seats-1)-subset of `field`, all rotations per deal.

    Beyond `max_tables` subsets, a balanced sample of the field is drawn as in `round_robin`
    (every field bot faces the challenger at nearly as many tables as every other).
    """
    if challenger in field:
        raise ValueError(f"the challenger {challenger!r} is also in the field")
    check_field([challenger, *field], seats, deals)
    others = _tables(field, seats - 1, max_tables, f"{seed}:gauntlet")
    return table_games([(challenger, *t) for t in others], deals, seed, "gauntlet", book=book)
