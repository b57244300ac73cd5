"""Standings of a set of finished games: Elo fitted to all of them, places, faults, and what
a tournament's tables show beside them: wins, draws and losses and deal pairs (2 seats), and
the Swiss standings (points, byes, tie-breaks) that the pairing follows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import msgspec

from arena.league.ratings import RatingTable, fit, game_results, pairwise_results
from arena.league.results import ResultsDir
from arena.league.schedule import Game, bye_value, byes_from, standings_from
from arena.league.sprt import pentanomial
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
    faulted_games: int = 0  # games in which it faulted (the referee played its seat on)
    # 2 seats only: games won, drawn and lost (ranks after the fault policy), and the deal
    # pairs (a deal played in both seatings) by its points over the two games, 0 to 2:
    # [LL, LD, DD or WL, WD, WW], as fastchess counts them.
    wins: int | None = None
    draws: int | None = None
    losses: int | None = None
    pentanomial: list[int] | None = None


class SwissRow(msgspec.Struct, frozen=True):
    """One bot's line in the Swiss standings: its points as the pairing counts them (a bye
    counts as a win in every game of the round), then the tie-breaks that order equal points."""

    place: int  # shared by bots equal on points, Buchholz and Sonneborn-Berger
    bot: str
    points: float
    games: int
    byes: int
    buchholz: float  # the points of every opponent, once per table shared with it
    sonneborn_berger: float  # each opponent's points times the score made against it


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
    swiss: list[SwissRow] | None = None  # a Swiss tournament's standings (`results_leaderboard`)

    def mostly_faulted(self) -> list[Row]:
        """The bots that faulted in more than half of their games: their ratings measure their
        faults, not their play, so the views warn about them."""
        return [row for row in self.rows if 2 * row.faulted_games > row.games]


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
    faulted: Counter[str] = Counter()
    for rec in records:
        for seat in rec.seats:
            places[seat.bot].append(rec.ranks[seat.seat])
        for fault in rec.faults:
            faults[rec.seats[fault.seat].bot][fault.kind] += 1
        for bot in {rec.seats[fault.seat].bot for fault in rec.faults}:
            faulted[bot] += 1

    def tier(name: str) -> int:
        """0: played a game without a fault; 1: faulted in every game it played; 2: no games.
        Elo orders bots within a tier. A bot that only faulted is last of those that played
        whatever its rating: fitted to its losses against whoever it happened to meet, that
        rating can come out above the rating of a weak bot that played on."""
        if not places[name]:
            return 2
        return int(faulted[name] == len(places[name]))

    order = sorted(table.ratings, key=lambda r: tier(r.name))  # stable: Elo order within
    solo = is_solo(records)
    two_seats = bool(records) and all(rec.players == 2 for rec in records)
    won_drawn_lost = _wins_draws_losses(records) if two_seats else {}
    deal_pairs = _deal_pairs(records) if two_seats else {}
    rows = []
    for i, r in enumerate(order):
        below = order[i + 1] if i + 1 < len(order) else None
        los = table.los(r.name, below.name) if below and places[below.name] else None
        seen = places[r.name]
        margin = _margins(records, r.name) if solo else None
        wdl = won_drawn_lost.get(r.name, [0, 0, 0]) if two_seats else [None, None, None]
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
                faulted_games=faulted[r.name],
                wins=wdl[0],
                draws=wdl[1],
                losses=wdl[2],
                pentanomial=deal_pairs.get(r.name, [0] * 5) if two_seats else None,
            )
        )
    pairs = [
        PairScore(a, b, round(score, 4), games)
        for (a, b), (score, games) in table.pairwise_table().items()
        if games
    ]
    return Leaderboard(games=len(records), rows=rows, pairs=pairs, solo=solo, unrated=unrated)


def _two_seat_score(rec: GameRecord, seat: int) -> float:
    """A 2-seat game's score for `seat`: 1 won, 0.5 drawn, 0 lost (ranks after faults)."""
    mine, theirs = rec.ranks[seat], rec.ranks[1 - seat]
    return 1.0 if mine < theirs else 0.5 if mine == theirs else 0.0


def _wins_draws_losses(records: Sequence[GameRecord]) -> dict[str, list[int]]:
    """2-seat games: each bot's [won, drawn, lost] (a game against itself is left out)."""
    out: dict[str, list[int]] = {}
    for rec in records:
        if rec.seats[0].bot == rec.seats[1].bot:
            continue
        for seat in (0, 1):
            cell = {1.0: 0, 0.5: 1, 0.0: 2}[_two_seat_score(rec, seat)]
            out.setdefault(rec.seats[seat].bot, [0, 0, 0])[cell] += 1
    return out


def _deal_pairs(records: Sequence[GameRecord]) -> dict[str, list[int]]:
    """2-seat games: the deals played in both seatings by the same two bots (same seed), each
    bot's points over the two games (0, 0.5, 1, 1.5 or 2) counted as a pentanomial. A deal
    with one game only (a tournament cut short, a referee error) makes no pair."""
    deals: dict[tuple[int, frozenset[str]], list[GameRecord]] = {}
    for rec in records:
        bots = frozenset(seat.bot for seat in rec.seats)
        if len(bots) == 2:
            deals.setdefault((rec.seed, bots), []).append(rec)
    points: dict[str, list[float]] = {}
    for games in deals.values():
        if len(games) != 2 or games[0].seats[0].bot != games[1].seats[1].bot:
            continue  # not one deal in both seatings
        first, second = games
        for seat in (0, 1):
            total = _two_seat_score(first, seat) + _two_seat_score(second, 1 - seat)
            points.setdefault(first.seats[seat].bot, []).append(total)
    return {bot: pentanomial(scores) for bot, scores in points.items()}


def swiss_standings(
    records: Sequence[GameRecord], planned: Sequence[Game], bots: Sequence[str], bye_points: float
) -> list[SwissRow]:
    """The Swiss standings the pairing uses (`standings_from` over every finished game of the
    schedule, byes from `byes_from` worth `bye_points`), ordered by points, then Buchholz (the
    sum of the opponents' points, once per table shared), then Sonneborn-Berger (the sum over
    games of each opponent's points times the pairwise score against it, over k-1, so that it
    adds up the way the points do). Bots equal on all three share a place."""
    by_id = {game.id: game for game in planned}
    finished = [(by_id[rec.game], rec.ranks) for rec in records if rec.game in by_id]
    table = standings_from(finished, byes_from(bots, planned), bye_points=bye_points)
    names = list(bots) + [name for name in table if name not in bots]
    points = {name: table[name].points if name in table else 0.0 for name in names}
    buchholz = dict.fromkeys(names, 0.0)
    for name, record in table.items():
        buchholz[name] = sum(count * points[other] for other, count in record.opponents.items())
    sb = dict.fromkeys(names, 0.0)
    for game, ranks in finished:
        share = 1.0 / (len(game.seats) - 1)
        for i, j, score in pairwise_results(ranks):
            a, b = game.seats[i], game.seats[j]
            if a != b:
                sb[a] += share * score * points[b]
                sb[b] += share * (1.0 - score) * points[a]

    def key(name: str) -> tuple[float, float, float]:
        return (-round(points[name], 6), -round(buchholz[name], 6), -round(sb[name], 6))

    order = sorted(names, key=lambda name: (key(name), name))
    rows: list[SwissRow] = []
    for i, name in enumerate(order):
        place = rows[-1].place if rows and key(order[i - 1]) == key(name) else i + 1
        standing = table.get(name)
        rows.append(
            SwissRow(
                place=place,
                bot=name,
                points=round(points[name], 4),
                games=standing.games if standing else 0,
                byes=standing.byes if standing else 0,
                buchholz=round(buchholz[name], 4),
                sonneborn_berger=round(sb[name], 4),
            )
        )
    return rows


def results_leaderboard(
    folder: ResultsDir, records: Sequence[GameRecord] | None = None
) -> Leaderboard:
    """The standings of a results folder: `leaderboard` of its games (`records`, if already
    read), with every bot of its tournament, and for a Swiss tournament its Swiss standings
    (`swiss_standings`, over the schedule in the folder, byes worth `bye_value`)."""
    records = folder.records() if records is None else records
    stored = folder.stored()
    board = leaderboard(records, stored.bots if stored else None)
    if stored is not None and stored.config.format == "swiss":
        c = stored.config
        swiss = swiss_standings(records, folder.planned(), stored.bots, bye_value(c.seats, c.deals))
        board = msgspec.structs.replace(board, swiss=swiss)
    return board
