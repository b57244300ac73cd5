"""Standings of a set of finished games: Elo fitted to all of them, places, faults."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec

from arena.ratings import RatingTable, fit, game_results
from arena.records import GameRecord


class Row(msgspec.Struct, frozen=True):
    """One bot's line on the leaderboard."""

    rank: int
    bot: str
    elo: float
    error: float
    games: int
    score: float  # mean pairwise score, 0..1 (wins 1, ties 1/2, per opponent at the table)
    mean_place: float | None  # mean rank at the table (1 = best); None without games
    los_next: float | None  # likelihood of superiority over the next bot down
    faults: dict[str, int]


class PairScore(msgspec.Struct, frozen=True):
    bot: str
    opponent: str
    score: float
    games: int


class Leaderboard(msgspec.Struct, frozen=True):
    games: int
    rows: list[Row]
    pairs: list[PairScore]


def ratings(records: Sequence[GameRecord], bots: Sequence[str]) -> RatingTable:
    """Elo by maximum likelihood over every game at once (ranks after the fault policy)."""
    results = []
    for rec in records:
        results.extend(game_results([s.bot for s in rec.seats], rec.ranks))
    return fit(results, bots)


def leaderboard(records: Sequence[GameRecord], bots: Sequence[str] | None = None) -> Leaderboard:
    """The standings of `records`; every bot of `bots` appears, with or without games."""
    names = list(bots or [])
    for rec in records:
        for seat in rec.seats:
            if seat.bot not in names:
                names.append(seat.bot)
    table = ratings(records, names)
    places: dict[str, list[int]] = {n: [] for n in names}
    faults: dict[str, Counter[str]] = {n: Counter() for n in names}
    for rec in records:
        for seat in rec.seats:
            places[seat.bot].append(rec.ranks[seat.seat])
        for fault in rec.faults:
            faults[rec.seats[fault.seat].bot][fault.kind] += 1
    los = table.los_neighbours()
    rows = []
    for i, r in enumerate(table.ratings):
        seen = places[r.name]
        rows.append(
            Row(
                rank=i + 1,
                bot=r.name,
                elo=round(r.elo, 1),
                error=round(r.error, 1),
                games=len(seen),
                score=round(r.score, 4),
                mean_place=round(sum(seen) / len(seen), 3) if seen else None,
                los_next=round(los[i], 4) if i < len(los) else None,
                faults=dict(sorted(faults[r.name].items())),
            )
        )
    pairs = [
        PairScore(a, b, round(score, 4), games)
        for (a, b), (score, games) in table.pairwise_table().items()
        if games
    ]
    return Leaderboard(games=len(records), rows=rows, pairs=pairs)
