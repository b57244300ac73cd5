"""Swiss pairing: each round's tables from the standings after the rounds before it."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping, Sequence

from arena.league.schedule.deals import Game, Table, check_field, table_games
from arena.league.schedule.standings import Standing
from arena.league.schedule.tables import SEARCH_LIMIT


def swiss_round(
    bots: Sequence[str],
    standings: Mapping[str, Standing],
    round: int,
    seats: int,
    deals: int,
    seed: int,
    book: Sequence[int] = (),
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
    check_field(bots, seats, deals)
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
    # With a deal file, each round plays the file's next `deals` deals.
    first = (round - 1) * deals
    return table_games(seated, deals, seed, "swiss", round, book, first), byes


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
