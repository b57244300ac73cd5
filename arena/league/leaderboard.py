"""Standings of a set of finished games: Elo fitted to all of them, places, faults, and what
a tournament's tables show beside them: wins, draws and losses and deal pairs (2 seats), and
the Swiss standings (points, byes, tie-breaks) that the pairing follows.

The games are tallied one at a time (`Standings`), from whole records or their summaries,
so the standings of a journal of any length come from one read of it, holding a few bytes
per game rather than the games. The ratings count every rotation of one deal at one table as
one draw of chance (see `arena.league.ratings.fit`), and may be fixed to anchors
(`parse_anchors`, `check_anchors`)."""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence

import msgspec
import numpy as np
import numpy.typing as npt

from arena.games.errors import ArenaError
from arena.games.suggest import did_you_mean
from arena.league.ratings import (
    RatingTable,
    Result,
    ResultColumns,
    fit,
    fit_columns,
    game_results,
    pairwise_results,
)
from arena.league.results import ResultsDir
from arena.league.schedule import Game, bye_value, byes_from, standings_from
from arena.referee.records import Fault, GameRecord, GameSummary


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
    # A ladder's table only: whether the bot's place is settled (separated from the bots
    # above and below it at 95% likelihood of superiority: arena.ladder.matchmaking.settled);
    # None for a tournament's, and for a version that no longer plays.
    settled: bool | None = None


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
    # The bots whose Elo is fixed, and at what (every other Elo and error bar is relative to
    # them); none: the mean Elo of the bots that played is 0.
    anchors: dict[str, float] = msgspec.field(default_factory=dict)

    def mostly_faulted(self) -> list[Row]:
        """The bots that faulted in more than half of their games: their ratings measure their
        faults, not their play, so the views warn about them."""
        return [row for row in self.rows if 2 * row.faulted_games > row.games]


Played = GameRecord | GameSummary
"""A finished game as standings read it: a whole record, or its summary (the same fields)."""


def solo_deals(records: Iterable[Played]) -> list[tuple[list[str], list[int]]]:
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


def _solo_margins(records: Iterable[Played]) -> dict[str, tuple[float, float, float]]:
    """Each solo bot's win rate against the dummy, mean margin and its 95% error."""
    margins: dict[str, list[float]] = {}
    wins: dict[str, int] = {}
    for rec in records:
        bot = rec.seats[0].bot
        margins.setdefault(bot, []).append(rec.scores[0])
        wins[bot] = wins.get(bot, 0) + (rec.ranks[0] == 1)
    out = {}
    for bot, seen in margins.items():
        n = len(seen)
        mean = sum(seen) / n
        var = sum((m - mean) ** 2 for m in seen) / (n - 1) if n > 1 else 0.0
        out[bot] = (wins[bot] / n, mean, 1.96 * (var / n) ** 0.5)
    return out


_SEEDS = 1 << 64  # deal pairs are told apart by seeds below this (every seed arena makes)
_SEED_BITS = _SEEDS - 1  # any other seed is kept as its low 64 bits (two's complement)


class AnchorError(ArenaError):
    """An anchor (`--anchor BOT=ELO`) that is malformed or names no bot of the standings."""


def parse_anchors(texts: Iterable[str]) -> dict[str, float]:
    """Anchors as given on the command line, each "BOT=ELO" (split at the last "=", so a
    bot's name may hold one), as Elo by bot name; AnchorError for a malformed one, an Elo
    that is not a finite number, or a bot anchored twice."""
    anchors: dict[str, float] = {}
    for text in texts:
        name, equals, value = text.rpartition("=")
        if not equals or not name:
            raise AnchorError(f"--anchor {text!r}: give a bot and its Elo as BOT=ELO")
        try:
            elo = float(value)
        except ValueError:
            raise AnchorError(
                f"--anchor {text!r}: the Elo must be a number, not {value!r}"
            ) from None
        if not math.isfinite(elo):
            raise AnchorError(f"--anchor {text!r}: the Elo must be a finite number")
        if name in anchors:
            raise AnchorError(f"--anchor {name}: the bot is anchored twice; anchor it once")
        anchors[name] = elo
    return anchors


_BOTS_LISTED = 10  # an anchor naming no bot lists at most this many of the bots


def check_anchors(anchors: Mapping[str, float], bots: Sequence[str]) -> None:
    """AnchorError for an anchor naming none of `bots`, with the names it comes close to
    (`did_you_mean`), else the bots (the first `_BOTS_LISTED` of them)."""
    for name in anchors:
        if name in bots:
            continue
        hint = did_you_mean(name, bots)
        if not hint and not bots:
            hint = "they hold no games"
        elif not hint:
            more = len(bots) - _BOTS_LISTED
            hint = f"the bots: {', '.join(bots[:_BOTS_LISTED])}"
            hint += f" and {more} more" if more > 0 else ""
        raise AnchorError(f"--anchor {name}: no bot of that name in these results; {hint}")


class Standings:
    """A leaderboard's tallies, fed one finished game at a time (`add`): what `leaderboard`
    shows, made in one read of a journal of any length without holding its games.

    Per rated game it keeps each seat's bot and rank in flat arrays (a few bytes a seat: a
    million 2-seat games take about 20 MB), from which the fit's results, the places and
    the wins, draws and losses are counted at the end (with numpy); per bot, its faults.
    With 2 seats, each deal waits for its second seating in a table of small numbers; solo
    games are kept as summaries, as their standings compare every deal's bots. Seats are
    read in their order (seat i is `seats[i]`, as the referee writes them and faults name
    them). `leaderboard` may be asked again after more games (the live view of a tournament
    does, every second).
    """

    def __init__(self, bots: Iterable[str] = ()) -> None:
        self.names: list[str] = []  # every bot: those given, then the others as first seen
        self._index: dict[str, int] = {}
        self.played = 0  # games added, with or without a result
        self.unrated = 0  # games a referee error ended, without a result
        self.rated = 0
        # Per rated game: its number of seats, then each seat's bot and rank.
        self._seats = array("H")
        self._bots = array("I")
        self._ranks = array("i")
        # Per bot (by index in `names`).
        self._faults: list[Counter[str]] = []
        self._faulted: list[int] = []  # games in which it faulted
        # Set to None once a rated game says the games are not all solo, or not all 2-seat.
        self._solo: list[GameSummary] | None = []
        # Per rated game, its deal's seed (its low 64 bits): the rotations of a deal at a
        # table are one draw of chance for the ratings, and with 2 seats they make the deal
        # pairs, found among them at the end (unless a seed was out of range: `_exact`).
        self._seeds = array("Q")
        self._exact = True
        self._two_seats = True  # while every rated game has 2 players
        for name in bots:
            self._bot(name)

    def _bot(self, name: str) -> int:
        """The index of a bot, registered when first seen."""
        index = self._index.get(name)
        if index is None:
            index = self._index[name] = len(self.names)
            self.names.append(name)
            self._faults.append(Counter())
            self._faulted.append(0)
        return index

    def add(self, game: Played) -> None:
        """Count one finished game (a game a referee error ended only names its bots). This
        runs once per line of a journal, so it does as little as it can."""
        self.played += 1
        seats = game.seats
        index = self._index
        try:
            bots = [index[seat.bot] for seat in seats]
        except KeyError:
            bots = [self._bot(seat.bot) for seat in seats]
        if game.error is not None:
            self.unrated += 1
            return
        ranks = game.ranks
        n = len(bots)
        if n != len(ranks):
            raise ValueError(f"{n} bots but {len(ranks)} ranks")
        self.rated += 1
        self._seats.append(n)
        self._bots.extend(bots)
        self._ranks.extend(ranks)
        if game.faults:
            self._add_faults(game.faults, bots)
        players = game.players
        if self._solo is not None:
            if players == 1:
                self._solo.append(GameSummary.of(game))
            else:
                self._solo = None
        seed = game.seed
        if 0 <= seed < _SEEDS:
            self._seeds.append(seed)
        else:
            self._seeds.append(seed & _SEED_BITS)
            self._exact = False
        if self._two_seats and players != 2:
            self._two_seats = False

    def _add_faults(self, faults: Sequence[Fault], bots: list[int]) -> None:
        """A game's faults: by kind, and the game once for each bot that faulted in it."""
        for fault in faults:
            self._faults[bots[fault.seat]][fault.kind] += 1
        for bot in {bots[fault.seat] for fault in faults}:
            self._faulted[bot] += 1

    def _columns(self) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Every rated game's seats, one after another: each seat's bot, and its rank."""
        bots = np.asarray(self._bots).astype(np.int64)  # the arrays' buffers, as they are
        ranks = np.asarray(self._ranks).astype(np.int64)
        return bots, ranks

    def _places(self) -> tuple[list[int], list[int]]:
        """Each bot's games (a seat each) and the sum of its places (ranks) in them."""
        bots, ranks = self._columns()
        n = len(self.names)
        games = np.bincount(bots, minlength=n)
        place_sum = np.bincount(bots, weights=ranks, minlength=n)  # whole numbers: exact
        return games.tolist(), [int(x) for x in place_sum]

    def _wins_draws_losses(self) -> list[list[int]]:
        """2-seat games (all of them are): each bot's games won, drawn and lost, by the ranks
        after the fault policy; a game against itself is left out."""
        bots, ranks = self._columns()
        bots, ranks = bots.reshape(-1, 2), ranks.reshape(-1, 2)
        apart = bots[:, 0] != bots[:, 1]
        bots, ranks = bots[apart], ranks[apart]
        halves = np.where(ranks[:, 0] < ranks[:, 1], 2, np.where(ranks[:, 0] == ranks[:, 1], 1, 0))
        n = len(self.names)
        cells = np.bincount(bots[:, 0] * 3 + (2 - halves), minlength=3 * n)  # seat 0's
        cells += np.bincount(bots[:, 1] * 3 + halves, minlength=3 * n)  # seat 1's
        return cells.reshape(n, 3).tolist()

    def _deal_pairs(self) -> dict[int, list[int]]:
        """Each bot's deal pairs (a deal played in both seatings by the same two bots, same
        seed) by its points over the two games, counted as a pentanomial [LL, LD, DD or WL,
        WD, WW]. A deal with one game only (a tournament cut short, a referee error) makes no
        pair, nor does one with more than two, or two in the same seating (nor any, if a
        seed was out of range)."""
        if not self._exact:
            return {}
        bots, ranks = self._columns()
        bots, ranks = bots.reshape(-1, 2), ranks.reshape(-1, 2)
        seeds = np.frombuffer(self._seeds, dtype=np.uint64)
        games = np.flatnonzero(bots[:, 0] != bots[:, 1])  # a bot against itself makes no pair
        low, high = bots[games].min(axis=1), bots[games].max(axis=1)
        # The games of one deal (seed and pair of bots) side by side, in the order played.
        order = np.lexsort((games, high, low, seeds[games]))
        games, low, high, dealt = games[order], low[order], high[order], seeds[games][order]
        starts = np.flatnonzero(
            np.r_[True, (dealt[1:] != dealt[:-1]) | (low[1:] != low[:-1]) | (high[1:] != high[:-1])]
        )
        sizes = np.diff(np.r_[starts, games.size])
        one, two = games[starts[sizes == 2]], games[starts[sizes == 2] + 1]
        swapped = bots[one, 0] != bots[two, 0]  # the other seating, not the same one twice
        one, two = one[swapped], two[swapped]

        def halves(game: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:  # seat 0's score
            mine, theirs = ranks[game, 0], ranks[game, 1]
            return np.where(mine < theirs, 2, np.where(mine == theirs, 1, 0))

        points = halves(one) + 2 - halves(two)  # the first game's seat-0 bot's, over both
        n = len(self.names)
        cells = np.bincount(bots[one, 0] * 5 + points, minlength=5 * n)
        cells += np.bincount(bots[one, 1] * 5 + 4 - points, minlength=5 * n)
        counts = cells.reshape(n, 5)
        return {int(bot): counts[bot].tolist() for bot in np.flatnonzero(counts.sum(axis=1))}

    def _solo_results(self) -> Iterator[Result]:
        """Solo games' pairwise results, deal by deal (a deal of more than 2 bots carries its
        number, so that the error bars count its results as one)."""
        for number, (deal_bots, deal_ranks) in enumerate(solo_deals(self._solo or [])):
            key = number if len(deal_bots) > 2 else None
            yield from game_results(deal_bots, deal_ranks, key)

    def deals(self) -> npt.NDArray[np.int64]:
        """Each rated game's draw of chance: games of one deal (seed) with the same bots at
        the table (in any seats: the rotations of the deal) share a number, numbers counting
        from 0 in the order of the games' seat counts, deal seeds and bots."""
        bots, _ = self._columns()
        seats = np.asarray(self._seats).astype(np.int64)
        starts = np.cumsum(seats) - seats
        seeds = np.frombuffer(self._seeds, dtype=np.uint64)
        deal = np.zeros(seats.size, dtype=np.int64)
        first = 0
        for k in np.unique(seats).tolist():
            chosen = np.flatnonzero(seats == k)
            table = np.sort(bots[starts[chosen, None] + np.arange(k)], axis=1)  # bots as a set
            if len(self.names) ** k < 2**63:  # the set as one number: one sort key, not k
                table = table @ (len(self.names) ** np.arange(k - 1, -1, -1, dtype=np.int64))
                table = table[:, None]
            dealt = seeds[chosen]
            order = np.lexsort((*table.T[::-1], dealt))
            table, dealt = table[order], dealt[order]
            new = np.r_[True, (dealt[1:] != dealt[:-1]) | (table[1:] != table[:-1]).any(axis=1)]
            number = np.cumsum(new) - 1
            deal[chosen[order]] = first + number
            first += int(number[-1]) + 1
        return deal

    def _result_columns(self) -> ResultColumns:
        """Every rated game's pairwise results (`game_results` of each), made as columns for
        the fit straight from the flat arrays: for a game of k seats each pair of seats
        i < j, seat i's score 1, 1/2 or 0 by rank, weight 1/(k-1), and the number of its
        draw of chance (`deals`), so that the error bars count every rotation of a deal at a
        table as one."""
        bots, ranks = self._columns()
        seats = np.asarray(self._seats).astype(np.int64)
        starts = np.cumsum(seats) - seats
        deals = self.deals()
        parts: list[tuple[npt.NDArray[np.int64], ...]] = []
        scores: list[npt.NDArray[np.float64]] = []
        weights: list[npt.NDArray[np.float64]] = []
        for k in np.unique(seats).tolist():
            chosen = np.flatnonzero(seats == k)
            at = starts[chosen]
            game = deals[chosen]
            for i in range(k):
                for j in range(i + 1, k):
                    mine, theirs = ranks[at + i], ranks[at + j]
                    parts.append((bots[at + i], bots[at + j], game))
                    scores.append(np.where(mine < theirs, 1.0, np.where(mine == theirs, 0.5, 0.0)))
                    weights.append(np.full(chosen.size, 1.0 / (k - 1)))
        if not parts:
            none = np.zeros(0, dtype=np.int64)
            return ResultColumns(none, none, np.zeros(0), np.zeros(0), none)
        a, b, game = (np.concatenate(column) for column in zip(*parts, strict=True))
        return ResultColumns(a, b, np.concatenate(scores), np.concatenate(weights), game)

    def ratings(self, anchors: Mapping[str, float] | None = None) -> RatingTable:
        """Elo by maximum likelihood over every rated game at once (ranks after the fault
        policy); solo games count as one multi-bot game per deal, ranked by margin. With
        `anchors` (Elo by bot name, each checked by `check_anchors`) those bots' ratings are
        fixed and the others relative to them."""
        if anchors:
            check_anchors(anchors, self.names)
        if self._solo is not None:
            return fit(self._solo_results(), self.names, anchors=anchors)
        return fit_columns(self._result_columns(), self.names, anchors=anchors)

    def leaderboard(self, anchors: Mapping[str, float] | None = None) -> Leaderboard:
        """The standings of the games added so far; every bot appears, with or without games.
        `anchors`: see `ratings`."""
        table = self.ratings(anchors)
        index, faulted = self._index, self._faulted
        games, place_sum = self._places()

        def tier(name: str) -> int:
            """0: played a game without a fault; 1: faulted in every game it played; 2: no
            games. Elo orders bots within a tier. A bot that only faulted is last of those that
            played whatever its rating: fitted to its losses against whoever it happened to
            meet, that rating can come out above the rating of a weak bot that played on."""
            i = index[name]
            if not games[i]:
                return 2
            return int(faulted[i] == games[i])

        order = sorted(table.ratings, key=lambda r: tier(r.name))  # stable: Elo order within
        solo = self.rated > 0 and self._solo is not None
        two_seats = self.rated > 0 and self._two_seats
        margins = _solo_margins(self._solo or []) if solo else {}
        deal_pairs = self._deal_pairs() if two_seats else {}
        won_drawn_lost = self._wins_draws_losses() if two_seats else []
        rows = []
        for i, r in enumerate(order):
            bot = index[r.name]
            below = order[i + 1] if i + 1 < len(order) else None
            los = table.los(r.name, below.name) if below and games[index[below.name]] else None
            seen = games[bot]
            margin = margins.get(r.name) if solo else None
            wdl = won_drawn_lost[bot] if two_seats else [None, None, None]
            rows.append(
                Row(
                    rank=i + 1,
                    bot=r.name,
                    elo=round(r.elo, 1),
                    error=round(r.error, 1),
                    games=seen,
                    score=round(r.score, 4),
                    mean_place=round(place_sum[bot] / seen, 3) if seen else None,
                    los_next=None if los is None else round(los, 4),
                    faults=dict(sorted(self._faults[bot].items())),
                    win_rate=None if margin is None else round(margin[0], 4),
                    margin=None if margin is None else round(margin[1], 3),
                    margin_error=None if margin is None else round(margin[2], 3),
                    faulted_games=faulted[bot],
                    wins=wdl[0],
                    draws=wdl[1],
                    losses=wdl[2],
                    pentanomial=list(deal_pairs.get(bot, [0] * 5)) if two_seats else None,
                )
            )
        # Every pair that met, as `table.pairwise_table()` gives them (a's mean score against
        # b), without its entry for every pair of bots: a million for a thousand bots.
        rated = table.names()
        pairs = [
            PairScore(a, rated[j], round(points[j] / games[j], 4), games[j])
            for i, (a, points, games) in enumerate(
                zip(rated, table.pair_points, table.pair_games, strict=True)
            )
            for j in range(len(rated))
            if games[j] and j != i
        ]
        return Leaderboard(
            games=self.rated,
            rows=rows,
            pairs=pairs,
            solo=solo,
            unrated=self.unrated,
            anchors=dict(table.anchors),
        )


def leaderboard(
    records: Iterable[Played],
    bots: Sequence[str] | None = None,
    anchors: Mapping[str, float] | None = None,
) -> Leaderboard:
    """The standings of `records`; every bot of `bots` appears, with or without games.
    `anchors`: see `Standings.ratings`."""
    standings = Standings(bots or ())
    for record in records:
        standings.add(record)
    return standings.leaderboard(anchors)


def swiss_standings(
    records: Iterable[Played], planned: Sequence[Game], bots: Sequence[str], bye_points: float
) -> list[SwissRow]:
    """The Swiss standings of `records` (see `swiss_rows`)."""
    return swiss_rows(((rec.game, rec.ranks) for rec in records), planned, bots, bye_points)


def swiss_rows(
    results: Iterable[tuple[str, Sequence[int]]],
    planned: Sequence[Game],
    bots: Sequence[str],
    bye_points: float,
) -> list[SwissRow]:
    """The Swiss standings the pairing uses (`standings_from` over every finished game of the
    schedule, given as its id and ranks, byes from `byes_from` worth `bye_points`), ordered
    by points, then Buchholz (the sum of the opponents' points, once per table shared), then
    Sonneborn-Berger (the sum over games of each opponent's points times the pairwise score
    against it, over k-1, so that it adds up the way the points do). Bots equal on all three
    share a place."""
    by_id = {game.id: game for game in planned}
    finished = [(by_id[game], ranks) for game, ranks in results if game in by_id]
    table = standings_from(finished, byes_from(bots, planned), bye_points=bye_points)
    names = list(bots) + [name for name in table if name not in bots]
    points = {name: table[name].points if name in table else 0.0 for name in names}
    buchholz = dict.fromkeys(names, 0.0)
    for name, record in table.items():
        buchholz[name] = sum(count * points[other] for other, count in record.opponents.items())
    sb = dict.fromkeys(names, 0.0)
    for game, game_ranks in finished:
        share = 1.0 / (len(game.seats) - 1)
        for i, j, score in pairwise_results(game_ranks):
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
    folder: ResultsDir,
    standings: Standings | None = None,
    finished: Mapping[str, Sequence[int]] | None = None,
    anchors: Mapping[str, float] | None = None,
) -> Leaderboard:
    """The standings of a results folder, with every bot of its tournament, and for a Swiss
    tournament its Swiss standings (`swiss_rows`, over the schedule in the folder, byes worth
    `bye_value`). The journal is read once, as summaries, one line at a time, unless the
    caller already did: `standings` tallied every game of the folder and `finished` holds
    their ranks by id (as `ResultsDir.finished(standings.add)` reads them, and a run adds
    the games it plays), so a tournament's run shows its standings without reading again.
    `anchors` fix ratings (see `Standings.ratings`); one naming no bot of the folder is
    refused (AnchorError), before the journal is read when the folder is a tournament's."""
    stored = folder.stored()
    swiss = stored is not None and stored.config.format == "swiss"
    if anchors and stored is not None:
        check_anchors(anchors, stored.bots)  # a tournament's games are among its bots
    if standings is None:
        standings = Standings(stored.bots if stored else ())
        if swiss:
            finished = folder.finished(standings.add)
        else:
            for line in folder.games():
                standings.add(line.value)
    board = standings.leaderboard(anchors)
    if stored is not None and swiss:
        c = stored.config
        ranks = folder.finished() if finished is None else finished
        rows = swiss_rows(ranks.items(), folder.planned(), stored.bots, bye_value(c.seats, c.deals))
        board = msgspec.structs.replace(board, swiss=rows)
    return board
