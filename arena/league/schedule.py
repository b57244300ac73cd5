"""The tournament schedule: who plays which game, in which seats, on which deal seed.

Everything here is a pure function of its arguments: the tournament seed and, for Swiss,
the standings after the earlier rounds. An interrupted tournament is resumed by deriving
its schedule again and skipping the game ids already played.

Fair deals: every deal is played once per cyclic rotation of its table's seating, all on
the same game seed, so each bot sits in each seat exactly once per deal and the luck of
the cards cancels. Deal `d` starts from the seating rotated by `d` (so in a 2-seat game
the bots take turns at being seat 0 of the deal's first game).
"""

from __future__ import annotations

import hashlib
import itertools
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence

import msgspec

Table = tuple[str, ...]

#: nodes a table or pairing search may visit before it settles for the best found so far
SEARCH_LIMIT = 50_000


class Game(msgspec.Struct, frozen=True):
    """One game to play: its place in the schedule, who sits where, and its deal's seed."""

    id: str
    round: int
    table: int
    deal: int
    rotation: int
    seats: tuple[str, ...]
    seed: int


class Standing(msgspec.Struct):
    """A bot's record so far: what Swiss pairs on, and what a results table shows.

    `points` sums the per-game scores (seats beaten + half the seats tied, over k-1) and the
    byes' points; `seat_counts[i]` counts games in seat i; `opponents` counts the tables
    (distinct round and table) shared with each other bot; `leads` counts games in which the
    bot was seat 0 of a deal's rotation 0 (for a 2-seat game: it moved first in the deal's
    first game).
    """

    name: str
    points: float = 0.0
    games: int = 0
    seat_counts: list[int] = msgspec.field(default_factory=list)
    opponents: dict[str, int] = msgspec.field(default_factory=dict)
    byes: int = 0
    leads: int = 0


# -- fair deals ------------------------------------------------------------------------


def rotations(bots: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The k cyclic rotations of a seating: each bot sits in each seat exactly once."""
    return [bots[i:] + bots[:i] for i in range(len(bots))]


def deal_seed(tournament_seed: int, key: str) -> int:
    """A 63-bit game seed from the tournament seed and a key (SHA-256: stable across runs)."""
    digest = hashlib.sha256(f"{tournament_seed}:{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def game_id(round: int, table: int, deal: int, rotation: int) -> str:
    """The stable id of a game, unique within a tournament: "r0-t3-d1-s2"."""
    return f"r{round}-t{table}-d{deal}-s{rotation}"


def table_games(
    tables: Sequence[Table], deals: int, seed: int, kind: str, round: int = 0
) -> list[Game]:
    """All games of `tables`: deal by deal, table by table, every rotation of a deal together.

    This order interleaves the tables, so a tournament cut short has played every table
    about equally, and the rotations of a deal are contiguous, so luck has cancelled for
    every complete table-deal. Deal seeds depend on (kind, round, table, deal).
    """
    games = []
    for deal in range(deals):
        for number, table in enumerate(tables):
            seating = rotations(table)
            k = len(table)
            game_seed = deal_seed(seed, f"{kind}:r{round}:t{number}:d{deal}")
            for rotation in range(k):
                games.append(
                    Game(
                        id=game_id(round, number, deal, rotation),
                        round=round,
                        table=number,
                        deal=deal,
                        rotation=rotation,
                        seats=seating[(deal + rotation) % k],
                        seed=game_seed,
                    )
                )
    return games


def solo(bots: Sequence[str], deals: int, seed: int) -> list[Game]:
    """A solo ruleset's schedule: every bot plays the same seeded deals alone, deal by deal,
    so bots can be compared deal by deal (docs/rules.md §6.6). Table i is bot i."""
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must differ")
    return [
        Game(
            id=game_id(0, table, deal, 0),
            round=0,
            table=table,
            deal=deal,
            rotation=0,
            seats=(name,),
            seed=deal_seed(seed, f"solo:d{deal}"),
        )
        for deal in range(deals)
        for table, name in enumerate(bots)
    ]


# -- round robin and gauntlet ------------------------------------------------------------


def _check(bots: Sequence[str], seats: int, deals: int) -> None:
    """Reject fields and table sizes that cannot make a schedule, in words."""
    if len(set(bots)) != len(bots):
        raise ValueError(f"bot names must be unique: {list(bots)}")
    if seats < 2:
        raise ValueError(f"a table needs at least 2 seats, not {seats}")
    if seats > len(bots):
        raise ValueError(f"{seats} seats need at least {seats} bots, there are {len(bots)}")
    if deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals}")


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
    bots: Sequence[str], seats: int, deals: int, seed: int, max_tables: int | None = None
) -> list[Game]:
    """Every `seats`-subset of `bots` plays `deals` deals, each deal in all `seats` rotations.

    When there are more subsets than `max_tables`, `max_tables` tables are drawn by
    `balanced_tables` instead: every bot sits at (nearly) as many tables as every other
    (counts differ by at most 1) and pairs meet about equally often. Tables are numbered in
    seeded order (shuffled, or in the order drawn) and played interleaved (`table_games`).
    """
    _check(bots, seats, deals)
    tables = _tables(bots, seats, max_tables, f"{seed}:round-robin")
    return table_games(tables, deals, seed, "round-robin")


def gauntlet(
    challenger: str,
    field: Sequence[str],
    seats: int,
    deals: int,
    seed: int,
    max_tables: int | None = None,
) -> list[Game]:
    """The challenger at a table with every (seats-1)-subset of `field`, all rotations per deal.

    Beyond `max_tables` subsets, a balanced sample of the field is drawn as in `round_robin`
    (every field bot faces the challenger at nearly as many tables as every other).
    """
    if challenger in field:
        raise ValueError(f"the challenger {challenger!r} is also in the field")
    _check([challenger, *field], seats, deals)
    others = _tables(field, seats - 1, max_tables, f"{seed}:gauntlet")
    return table_games([(challenger, *t) for t in others], deals, seed, "gauntlet")


# -- standings -----------------------------------------------------------------------------


def game_scores(ranks: Sequence[int]) -> list[float]:
    """Each seat's score: (seats it beat + half the seats it tied) / (k-1); rank 1 is best."""
    k = len(ranks)
    scores = []
    for seat, mine in enumerate(ranks):
        others = [r for other, r in enumerate(ranks) if other != seat]
        beat = sum(1 for r in others if r > mine)
        tied = sum(1 for r in others if r == mine)
        scores.append((beat + 0.5 * tied) / (k - 1))
    return scores


def bye_value(seats: int, deals: int) -> float:
    """What a Swiss bye is worth: a win (1.0 point) in each of the seats*deals games sat out."""
    return float(seats * deals)


def standings_from(
    results: Iterable[tuple[Game, Sequence[int]]],
    byes: Iterable[str] = (),
    *,
    bye_points: float = 1.0,
) -> dict[str, Standing]:
    """Standings from finished games and their ranks per seat (1 = best, ties share a rank).

    `byes` names a bot once per bye it was given; each adds `bye_points` and one to `byes`.
    A bye counts as a win: pass `bye_points=bye_value(seats, deals)` to credit 1.0 point
    for every game of the round sat out (the default credits a single game). `byes_from`
    recovers the byes from a Swiss schedule.
    """
    table: dict[str, Standing] = {}
    shared: dict[tuple[str, str], set[tuple[int, int]]] = {}

    def of(name: str) -> Standing:
        return table.setdefault(name, Standing(name))

    for game, ranks in results:
        k = len(game.seats)
        if len(ranks) != k:
            raise ValueError(f"game {game.id}: {len(ranks)} ranks for {k} seats")
        for seat, (name, score) in enumerate(zip(game.seats, game_scores(ranks), strict=True)):
            standing = of(name)
            standing.points += score
            standing.games += 1
            standing.seat_counts.extend([0] * (k - len(standing.seat_counts)))
            standing.seat_counts[seat] += 1
            if seat == 0 and game.rotation == 0:
                standing.leads += 1
            for other in game.seats:
                if other != name:
                    shared.setdefault((name, other), set()).add((game.round, game.table))
    for (name, other), met in shared.items():
        table[name].opponents[other] = len(met)
    for name in byes:
        standing = of(name)
        standing.byes += 1
        standing.points += bye_points
    return table


def byes_from(bots: Sequence[str], games: Iterable[Game]) -> list[str]:
    """The byes of the rounds planned in `games`: every bot of `bots` seated in none of a
    round's games, once per such round (byes are not games, so a resumed tournament
    re-derives them from its schedule for `standings_from`)."""
    seated: dict[int, set[str]] = {}
    for game in games:
        seated.setdefault(game.round, set()).update(game.seats)
    return [name for round in sorted(seated) for name in bots if name not in seated[round]]


# -- Swiss ---------------------------------------------------------------------------------


def swiss_round(
    bots: Sequence[str],
    standings: Mapping[str, Standing],
    round: int,
    seats: int,
    deals: int,
    seed: int,
) -> tuple[list[Game], list[str]]:
    """The games of Swiss round `round` and the bots given a bye, from the standings so far.

    Bots are ranked by points (ties in seeded order). Byes go to the bots with the fewest
    byes so far, lowest-ranked first, so no bot has a second bye before every bot has had
    one. A bye counts as a win: see `bye_value` and `standings_from`.

    2 seats: pairs are found top-down by rank (each bot with the nearest-ranked bot it has
    not met); a bounded backtracking search (`SEARCH_LIMIT` nodes) finds a pairing without
    rematches whenever one exists within the bound, else the one with fewest repeated
    meetings. With an odd field, the bye goes to the lowest-ranked fewest-byes bot whose
    absence allows the fewest rematches.

    k seats: the n mod k byes first, then tables of k in rank order: each table takes the
    top unseated bot, then one by one the bot among the next few by rank (a table's worth of
    slack) that has shared fewest tables with those already seated.

    Seating: every deal is played in every rotation, so every bot sits in every seat exactly
    `deals` times per round played. Who leads (seat 0 of a deal's rotation 0): at each table
    the bot with the fewest leads for its games played (`leads - games / k**2`) leads deal 0,
    the next one deal 1, and so on round the table (ties in seeded order); so with 2 seats
    and even `deals` every bot leads exactly half its deals, and with odd `deals` the bot
    that had led less leads the extra one. Pairing itself ignores leads.
    """
    _check(bots, seats, deals)
    rng = random.Random(f"{seed}:swiss:{round}")

    known = {name: standings.get(name) or Standing(name) for name in bots}

    def standing(name: str) -> Standing:
        return known[name]

    def met(a: str, b: str) -> int:
        return known[a].opponents.get(b, 0)

    order = list(bots)
    rng.shuffle(order)
    ranked = sorted(order, key=lambda name: -standing(name).points)
    # the bye order: fewest byes first, lowest-ranked first among equals
    fewest_byes_first = sorted(reversed(ranked), key=lambda name: standing(name).byes)
    if seats == 2:
        least = standing(fewest_byes_first[0]).byes
        candidates = [name for name in fewest_byes_first if standing(name).byes == least]
        tables, byes = _pair(ranked, candidates, met)
    else:
        byes = fewest_byes_first[: len(ranked) % seats]
        playing = [name for name in ranked if name not in byes]
        tables = _group(playing, seats, met)

    noise = {name: rng.random() for name in ranked}

    def lead_debt(name: str) -> tuple[float, float]:
        mine = standing(name)
        return mine.leads - mine.games / (seats * seats), noise[name]

    seated = [tuple(sorted(table, key=lead_debt)) for table in tables]
    return table_games(seated, deals, seed, "swiss", round), byes


def _pair(
    ranked: list[str], bye_candidates: list[str], met: Callable[[str, str], int]
) -> tuple[list[Table], list[str]]:
    """Pairs for a 2-seat round and the bye (one of `bye_candidates`, in order) if odd."""
    if len(ranked) % 2 == 0:
        return _pairings(ranked, met, SEARCH_LIMIT)[0], []
    best: tuple[list[Table], list[str], int] | None = None
    budget = SEARCH_LIMIT
    for name in bye_candidates:
        pairs, cost, nodes = _pairings([b for b in ranked if b != name], met, budget)
        if best is None or cost < best[2]:
            best = (pairs, [name], cost)
        budget -= nodes
        if cost == 0 or budget <= 0:
            break
    assert best is not None
    return best[0], best[1]


def _pairings(
    ranked: list[str], met: Callable[[str, str], int], limit: int
) -> tuple[list[Table], int, int]:
    """Top-down pairs by rank with the fewest repeated meetings found within `limit` nodes.

    Returns the pairs, their cost (the times the paired bots met before) and the nodes used.
    The first descent always completes, so there is a pairing whatever the limit.
    """
    best: list[Table] = []
    best_cost = math.inf
    nodes = 0

    def search(rest: list[str], pairs: list[Table], cost: int) -> bool:
        nonlocal best, best_cost, nodes
        if not rest:
            best, best_cost = pairs, cost
            return cost == 0
        top = rest[0]
        options = sorted(range(1, len(rest)), key=lambda j: (met(top, rest[j]), j))
        for j in options:
            total = cost + met(top, rest[j])
            if total >= best_cost:
                break  # options are sorted by cost: the rest cannot do better
            nodes += 1
            if search([*rest[1:j], *rest[j + 1 :]], [*pairs, (top, rest[j])], total):
                return True
            if nodes >= limit:
                return True
        return False

    search(ranked, [], 0)
    return best, int(best_cost), nodes


def _group(playing: list[str], seats: int, met: Callable[[str, str], int]) -> list[Table]:
    """Tables of `seats` in rank order, avoiding repeated co-seating greedily."""
    rest = list(playing)
    tables: list[Table] = []
    while rest:
        table = [rest.pop(0)]
        while len(table) < seats:
            window = rest[: seats - len(table) + seats - 1]
            pick = min(
                range(len(window)),
                key=lambda j: (sum(met(window[j], m) for m in table), j),
            )
            table.append(rest.pop(pick))
        tables.append(tuple(table))
    return tables


__all__ = [
    "SEARCH_LIMIT",
    "Game",
    "Standing",
    "balanced_tables",
    "bye_value",
    "byes_from",
    "deal_seed",
    "game_id",
    "game_scores",
    "gauntlet",
    "rotations",
    "round_robin",
    "standings_from",
    "swiss_round",
    "table_games",
]
