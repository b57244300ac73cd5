"""Standings of a set of finished games: Elo fitted to all of them, places, faults."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec

from arena.league.ratings import RatingTable, fit, game_results
from arena.referee.records import GameRecord


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
    # Solo rulesets only: games won (or drawn) against the dummy, and the mean margin
    # (dummy score minus bot score) with its 95% error.
    win_rate: float | None = None
    margin: float | None = None
    margin_error: float | None = None


class PairScore(msgspec.Struct, frozen=True):
    bot: str
    opponent: str
    score: float
    games: int


class Leaderboard(msgspec.Struct, frozen=True):
    games: int
    rows: list[Row]
    pairs: list[PairScore]
    solo: bool = False
    unrated: int = 0  # games a referee error ended, without a result (not counted above)


def is_solo(records: Sequence[GameRecord]) -> bool:
    return bool(records) and all(rec.players == 1 for rec in records)


def solo_deals(records: Sequence[GameRecord]) -> list[tuple[list[str], list[int]]]:
    """Solo games compared deal by deal (docs/rules.md §6.6): on each deal (same seed) the bots are
    ranked by margin, higher first; a bot that faulted ranks below every bot that did not."""
    by_deal: dict[int, list[tuple[str, float]]] = {}
    for rec in records:
        faulted = any(f.seat == 0 for f in rec.faults)
        key = float("-inf") if faulted else rec.scores[0]
        by_deal.setdefault(rec.seed, []).append((rec.seats[0].bot, key))
    out = []
    for entries in by_deal.values():
        if len(entries) > 1:
            margins = [m for _, m in entries]
            ranks = [1 + sum(1 for o in margins if o > m) for m in margins]
            out.append(([name for name, _ in entries], ranks))
    return out


def ratings(records: Sequence[GameRecord], bots: Sequence[str]) -> RatingTable:
    """Elo by maximum likelihood over every game at once (ranks after the fault policy);
    solo games count as one multi-bot game per deal, ranked by margin."""
    results = []
    if is_solo(records):
        for names, ranks in solo_deals(records):
            results.extend(game_results(names, ranks))
    else:
        for rec in records:
            results.extend(game_results([s.bot for s in rec.seats], rec.ranks))
    return fit(results, bots)


def _margins(records: Sequence[GameRecord], bot: str) -> tuple[float, float, float] | None:
    """Win rate against the dummy, mean margin and its 95% error, for one solo bot."""
    margins = [rec.scores[0] for rec in records if rec.seats[0].bot == bot]
    wins = [rec.ranks[0] == 1 for rec in records if rec.seats[0].bot == bot]
    if not margins:
        return None
    n = len(margins)
    mean = sum(margins) / n
    var = sum((m - mean) ** 2 for m in margins) / (n - 1) if n > 1 else 0.0
    return sum(wins) / n, mean, 1.96 * (var / n) ** 0.5


def leaderboard(records: Sequence[GameRecord], bots: Sequence[str] | None = None) -> Leaderboard:
    """The standings of `records`; every bot of `bots` appears, with or without games."""
    names = list(bots or [])
    for rec in records:
        for seat in rec.seats:
            if seat.bot not in names:
                names.append(seat.bot)
    unrated = sum(1 for rec in records if rec.error is not None)
    records = [rec for rec in records if rec.error is None]  # no result: not rated
    table = ratings(records, names)
    places: dict[str, list[int]] = {n: [] for n in names}
    faults: dict[str, Counter[str]] = {n: Counter() for n in names}
    for rec in records:
        for seat in rec.seats:
            places[seat.bot].append(rec.ranks[seat.seat])
        for fault in rec.faults:
            faults[rec.seats[fault.seat].bot][fault.kind] += 1
    # Bots that played come first, by Elo; a bot without games has only the prior.
    order = sorted(table.ratings, key=lambda r: not places[r.name])
    solo = is_solo(records)
    rows = []
    for i, r in enumerate(order):
        below = order[i + 1] if i + 1 < len(order) else None
        los = table.los(r.name, below.name) if below and places[below.name] else None
        seen = places[r.name]
        margin = _margins(records, r.name) if solo else None
        rows.append(
            Row(
                rank=i + 1,
                bot=r.name,
                elo=round(r.elo, 1),
                error=round(r.error, 1),
                games=len(seen),
                score=round(r.score, 4),
                mean_place=round(sum(seen) / len(seen), 3) if seen else None,
                los_next=None if los is None else round(los, 4),
                faults=dict(sorted(faults[r.name].items())),
                win_rate=None if margin is None else round(margin[0], 4),
                margin=None if margin is None else round(margin[1], 3),
                margin_error=None if margin is None else round(margin[2], 3),
            )
        )
    pairs = [
        PairScore(a, b, round(score, 4), games)
        for (a, b), (score, games) in table.pairwise_table().items()
        if games
    ]
    return Leaderboard(games=len(records), rows=rows, pairs=pairs, solo=solo, unrated=unrated)
