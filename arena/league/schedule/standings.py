"""Standings from finished games: points, seats, opponents, byes and leads per bot."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from arena.league.schedule.deals import Game


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
